"""The Debian system comparison (tools/debian/compare.sh, issue #27 section 3):
up to three kernels on one Debian image, stock (Debian's 6.1.192-3), base
and top (base and the series, built with Debian's reduced config), each
booted once per round. Reads a tools/debian/compare.sh run directory (meta.env,
runs.env, runs/r<N>-<kernel>/result.ktap), takes the debian-bench samples
of parse.DEBIAN_ROWS per kernel and the pair ratios X/Y round by round for
the pairs top/base (the series), base/stock (the config) and top/stock,
judges them by judge.pair_verdict (no verdict while the spread of a pair's
ratios includes 1.0) and writes the report: markdown, raw JSON, one
gnuplot PNG, and the page docs/results/debian-compare.md.

A report is a record: it names the run (its stamp), the commit and stack
the project was at, and the kind of machine (S61_MACHINE, or the host's
architecture and CPU count), never a path of the machine it ran on
(scrub(): the run directory becomes "run STAMP", a clone's .work/ is
named as .work/).

A run that failed (tools/debian/boot.sh's exit not 0) or never finished is
named in the report with its reason; its samples are in the JSON but in no
figure. A kernel left out of the comparison (no .deb for it yet) is named
with the reason tools/debian/compare.sh recorded. A known splat that
tools/debian/boot.sh allowed in a run (debian-system/known-splats: a defect of
that kernel, fixed upstream; the run's known-splats file) does not fail
it: the run counts, and the report names the splat and its count.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import parse
from .parse import DEBIAN_ROWS, fmt, med, read_env, read_ktap, run_value
from .judge import DIRECTION, MIN_PAIRS, NOT_MEASURED, pair_verdict

PROG = "debian-report"
KERNELS = ("stock", "base", "top")
# (pair name, X, Y, what it tells): a ratio is X/Y.
PAIRS = (("top/base", "top", "base", "the series"),
         ("base/stock", "base", "stock", "the config"),
         ("top/stock", "top", "stock", "both"))
NOT_JUDGED = "not judged (a count)"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RC_MEANING = {"1": "a test failed, is missing or not as expected, or a splat",
              "2": "hang, crash, no result or no power-off",
              "3": "harness error",
              "130": "interrupted"}


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(1)


def runs_env(path):
    """(round, kernel) -> the fields of its runs.env line."""
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                d = {k: v.strip('"') for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', line)}
                if "round" in d and "kernel" in d:
                    try:
                        out[(int(d["round"]), d["kernel"])] = d
                    except ValueError:
                        pass
    return out


def problem_of(log):
    """What tools/debian/boot.sh's output says went wrong: its RUN PROBLEM,
    HARNESS ERROR, failed tests and splat lines, at most 3."""
    if not os.path.exists(log):
        return ""
    keep = []
    with open(log, errors="replace") as f:
        for line in f:
            line = line.strip()
            if re.match(r"(RUN PROBLEM|HARNESS ERROR|KERNEL SPLAT|FAIL\b|debian-boot: error)", line) \
                    or re.search(r"not as expected|not reported", line):
                keep.append(line)
    return "; ".join(keep[:3])


def known_splats(path):
    """The known splats tools/debian/boot.sh allowed in a run (its OUT/known-splats:
    a line "COUNT<TAB>UPSTREAM-ID<TAB>TITLE" per entry of debian-system/known-splats
    for the run's target and config), those seen (COUNT above 0)."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for i, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or not parts[0].isdigit():
                die(f"{path} line {i}: want COUNT<TAB>UPSTREAM-ID<TAB>TITLE (tools/debian/boot.sh writes it), not {line.strip()!r}")
            if int(parts[0]):
                out.append({"count": int(parts[0]), "upstream": parts[1], "title": parts[2]})
    return out


def load(rundir):
    """meta and runs of a tools/debian/compare.sh run directory. A run is one
    boot of one kernel in one round: its samples, results, exit code (rc,
    None when it never finished), position in its round and problem."""
    meta = read_env(os.path.join(rundir, "meta.env"))
    if not meta or "kernels" not in meta:
        die(f"{rundir} has no meta.env naming kernels=: not a tools/debian/compare.sh run directory")
    kernels = [k for k in meta["kernels"].split(",") if k]
    bad = [k for k in kernels if k not in KERNELS]
    if not kernels or bad:
        die(f"{rundir}/meta.env: kernels={meta['kernels']}: want some of {','.join(KERNELS)}")
    try:
        rounds = int(meta.get("rounds", ""))
    except ValueError:
        die(f"{rundir}/meta.env: rounds={meta.get('rounds')!r} is no number")
    info = runs_env(os.path.join(rundir, "runs.env"))
    runs = []
    for r in range(1, rounds + 1):
        for k in kernels:
            d = os.path.join(rundir, "runs", f"r{r}-{k}")
            i = info.get((r, k), {})
            run = {"round": r, "kernel": k, "order": i.get("order"), "rc": i.get("rc"),
                   "samples": [], "tests": {}, "uname": "", "seconds": None,
                   "host_load_before": i.get("load_before"), "host_load_after": i.get("load_after"),
                   "problem": "", "known_splats": known_splats(os.path.join(d, "known-splats"))}
            ktap = os.path.join(d, "result.ktap")
            if os.path.exists(ktap):
                run["samples"], run["tests"], run["uname"] = read_ktap(ktap)
            sec = os.path.join(d, "seconds")
            if os.path.exists(sec):
                with open(sec) as f:
                    m = re.search(r"\d+", f.read())
                    run["seconds"] = int(m.group(0)) if m else None
            if run["rc"] is None:
                run["problem"] = "never finished (the comparison was interrupted or stopped before it)"
            elif run["rc"] != "0":
                p = problem_of(os.path.join(rundir, "runs", f"r{r}-{k}.log"))
                run["problem"] = (f"tools/debian/boot.sh exit {run['rc']} "
                                  f"({RC_MEANING.get(run['rc'], 'unknown exit')})" + (f": {p}" if p else ""))
            runs.append(run)
    return meta, runs


def ok(run):
    return run["rc"] == "0"


def missing(meta):
    """kernel -> why it is not in the comparison (meta.env missing_<k>=)."""
    return {k: meta.get(f"missing_{k}") or "not asked for (--kernels)"
            for k in KERNELS if k not in meta["kernels"].split(",")}


def rows(meta, runs):
    """One dict per (w, m, n) of DEBIAN_ROWS: per kernel the run values
    over the rounds (the median of a run's samples; only runs that passed),
    per pair the ratios X/Y round by round and their verdict."""
    kernels = meta["kernels"].split(",")
    gone = missing(meta)
    good = [r for r in runs if ok(r)]
    out = []
    for w, m, how, label, unit in DEBIAN_ROWS:
        ns = sorted({parse.sample_n(s) for r in good for s in r["samples"]
                     if parse.matches(s, w, m)} - {None})
        for n in (ns or [None]):
            row = {"w": w, "m": m, "n": n, "label": label, "unit": unit, "values": {}, "pairs": {}}
            per = {}  # (kernel, round) -> value
            for r in good:
                v = run_value(r, w, m, how, n)
                if v is not None:
                    per[(r["kernel"], r["round"])] = v
            for k in kernels:
                row["values"][k] = [per[(k, r)] for r in sorted({r for kk, r in per if kk == k})]
            for name, x, y, _ in PAIRS:
                ratios = [per[(x, r)] / per[(y, r)] for r in sorted({r["round"] for r in runs})
                          if (x, r) in per and (y, r) in per and per[(y, r)] != 0]
                if (w, m) not in DIRECTION:
                    verdict = NOT_JUDGED
                else:
                    hib, words = DIRECTION[(w, m)]
                    verdict = pair_verdict(ratios, hib, words)
                if verdict == NOT_MEASURED:
                    why = [f"no {k} kernel in this comparison" for k in (x, y) if k in gone]
                    why += [f"no sample on {k}" for k in (x, y) if k not in gone and not row["values"].get(k)]
                    if why:
                        verdict += " (" + "; ".join(why) + ")"
                row["pairs"][name] = {"ratios": ratios, "verdict": verdict}
            out.append(row)
    return out


def cell(xs):
    if not xs:
        return "–"
    return f"{fmt(med(xs))} ({fmt(min(xs))}–{fmt(max(xs))})"


def pcell(p):
    r = p["ratios"]
    if not r:
        return p["verdict"]
    return f"{med(r):.3f} ({min(r):.3f}–{max(r):.3f}): {p['verdict']}"


WORKDIR = re.compile(r"(?:/[^\s/`'\"]+)+/\.work/")
PATHS = re.compile(r"(?<![\w.])/(?:root|home|work|tmp|var|srv|mnt)(?:/[^\s`'\",;()]+)+")


def scrub(x, meta):
    """X (a string, or a list/dict of them) without the machine's paths:
    the run directory as "run STAMP", a clone's .work/ as .work/, another
    absolute path as <path>."""
    if isinstance(x, dict):
        return {k: scrub(v, meta) for k, v in x.items()}
    if isinstance(x, list):
        return [scrub(v, meta) for v in x]
    if not isinstance(x, str):
        return x
    out = meta.get("out") or ""
    if out and out.startswith("/"):
        x = x.replace(out, f"run {meta.get('stamp', '?')}")
    x = WORKDIR.sub(".work/", x)
    return PATHS.sub("<path>", x)


def record_meta(meta):
    """The meta a record keeps: the run's id, commit, stack and machine
    kind; not the run directory nor the image's path."""
    m = {k: v for k, v in meta.items() if k not in ("out", "image")}
    m["run"] = meta.get("run") or meta.get("stamp", "?")
    for k in ("commit", "stack_id", "machine"):
        m.setdefault(k, "-")
    return scrub(m, meta)


def provenance(meta, now=None):
    """"run STAMP, commit C (stack S), machine M": what a record names."""
    sid = meta.get("stack_id", "-")
    mark = "" if now is None or sid == now else " (other stack)" if sid != "-" else " (other stack: not recorded)"
    return (f"run `{meta.get('run') or meta.get('stamp', '?')}`, commit `{meta.get('commit', '-')}`, "
            f"stack `{sid}`{mark}, machine: {meta.get('machine', '-')}")


def rowname(row):
    return f"{row['w']}.{row['m']}" + (f" N={row['n']}" if row["n"] is not None else "")


def raw_json(meta, runs, R):
    return {"meta": record_meta(meta), "kernels": meta["kernels"].split(","),
            "missing": scrub(missing(meta), meta), "runs": scrub(runs, meta), "rows": R,
            "failed": [{"round": r["round"], "kernel": r["kernel"], "rc": r["rc"],
                        "problem": scrub(r["problem"], meta)}
                       for r in runs if not ok(r)]}


def shown(path):
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return os.path.basename(path) if rel.startswith("..") else rel


def table_md(meta, runs, R, failed):
    """The figures: a row per metric, the kernels' medians (min–max) over the
    rounds, the pairs' ratios and verdicts; then the kernels left out and
    the failed runs."""
    kernels = meta["kernels"].split(",")
    L = []
    head = ["workload.metric", "unit"] + kernels + [p[0] for p in PAIRS]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---|" * len(head))
    for row in R:
        L.append("| " + " | ".join([rowname(row), row["unit"]] + [cell(row["values"].get(k)) for k in kernels]
                                    + [pcell(row["pairs"][p[0]]) for p in PAIRS]) + " |")
    L.append("")
    L.append(f"Values: per kernel the median (min–max) over the rounds of each run's median. "
             f"Pairs X/Y: the ratio of the two kernels' values in the same round, median (min–max); "
             f"top/base is the series, base/stock the config, top/stock both. A verdict only when "
             f"every pair lies on one side of 1.0 (a time: under 1.0 is faster); under {MIN_PAIRS} "
             f"pairs it is indicative.")
    gone = missing(meta)
    if gone:
        L.append("")
        L.append("Not in this comparison: " + "; ".join(f"**{k}**: {why}" for k, why in gone.items()) + ".")
    if failed:
        L.append("")
        L.append(f"**Failed runs ({len(failed)}, kept in the run directory, in no figure):**")
        L.append("")
        for r in failed:
            L.append(f"- r{r['round']} {r['kernel']}: {r['problem']}")
    known = [(r, k) for r in runs for k in r.get("known_splats") or []]
    if known:
        L.append("")
        L.append("**Known splats allowed** (`debian-system/known-splats`: a defect of that kernel, fixed upstream, "
                 "not a failure of the run; a run that passed with it is in the figures):")
        L.append("")
        for r, k in known:
            L.append(f"- r{r['round']} {r['kernel']}: {k['count']} console lines of {k['upstream']} \"{k['title']}\"")
    if not any(r["samples"] for r in runs):
        L.append("")
        L.append(f"No S61BENCH sample in any run: the suites {meta.get('suites', '?')} emit none "
                 f"(debian-bench does).")
    return "\n".join(L)


def markdown(meta, runs, R, png, have_png, json_path):
    failed = [r for r in runs if not ok(r)]
    kernels = meta["kernels"].split(",")
    L = [f"# Debian system: {', '.join(kernels)} ({meta.get('stamp', '?')})", ""]
    L.append(f"`tools/debian/compare.sh` (issue #27 section 3): one Debian 12 image "
             f"(`{meta.get('image_key', '?')}`), booted on each kernel once per round, "
             f"{meta.get('rounds')} round{'' if meta.get('rounds') == '1' else 's'}, the order rotated "
             f"per round; QEMU TCG, "
             f"{meta.get('smp', 2)} vCPUs, {meta.get('mem', '2048M')}; suites `{meta.get('suites')}`"
             + (f" (only `{meta['only']}`)" if meta.get("only") else "")
             + (f", `s61.n={meta['n']}`" if meta.get("n") else ", no `--n` (the tests' own N)") + (f", `{meta['append']}`" if meta.get("append") else "")
             + f"; started {meta.get('date', '?')}" + (", **interrupted**" if meta.get("interrupted") else "")
             + ".")
    L.append("")
    L.append("| kernel | release | package |")
    L.append("|---|---|---|")
    for k in kernels:
        L.append(f"| {k} | {meta.get('kver_' + k, '?')} | {meta.get('deb_' + k, '?')}"
                 + (f" + {meta['testmod_' + k]}" if meta.get("testmod_" + k) else "") + " |")
    L.append("")
    L.append(table_md(meta, runs, R, failed))
    L.append("")
    if have_png:
        L.append(f"![medians and min-max per kernel]({os.path.relpath(os.path.abspath(png), os.path.dirname(os.path.abspath(json_path)))})")
    else:
        L.append("No plot (no sample, or gnuplot missing).")
    L.append("")
    L.append("## Runs")
    L.append("")
    L.append("| round | order | kernel | exit | seconds | samples | host load before | known splats allowed |")
    L.append("|---|---|---|---|---|---|---|---|")
    for r in runs:
        ks = ", ".join(f"{k['upstream']} ×{k['count']}" for k in r.get("known_splats") or []) or "–"
        L.append(f"| {r['round']} | {r['order'] or '–'} | {r['kernel']} | {r['rc'] if r['rc'] is not None else 'none'} "
                 f"| {r['seconds'] if r['seconds'] is not None else '–'} | {len(r['samples'])} "
                 f"| {r['host_load_before'] or '–'} | {ks} |")
    L.append("")
    L.append(f"Raw samples: `{shown(json_path)}`; {provenance(record_meta(meta))}.")
    return scrub("\n".join(L) + "\n", meta)


# The plot: one panel per workload, the kernels side by side.
PANELS = [("containers (ms, log)", True, [("dcont", m) for m in
                                          ("setup_ms", "reclaim_ms", "mount_p50_ms", "mount_p99_ms",
                                           "umount_p99_ms", "teardown_ms")]),
          ("P1 while a shrinker is held (ms, log)", True, [("dp1", "mount_ms"), ("dp1", "umount_ms")]),
          ("P2 stress-ng --ramfs (bogo ops/s)", False, [("dp2", "ops_per_s")]),
          ("boot (ms)", False, [("dboot", "kernel_ms"), ("dboot", "userspace_ms"), ("dboot", "total_ms")])]
COLOURS = {"stock": "#7570b3", "base": "#d95f02", "top": "#1b9e77"}


def plot(meta, R, png):
    """One PNG: per panel the medians and min-max of each kernel; for dcont
    the largest N. False (and a warning) without gnuplot or samples."""
    if not any(v for row in R for v in row["values"].values()):
        return False
    gp = shutil.which("gnuplot")
    if not gp:
        print(f"{PROG}: warning: gnuplot missing (tools/build/deps.sh bench); no {png}", file=sys.stderr)
        return False
    kernels = meta["kernels"].split(",")
    byk = {}
    for row in R:  # the largest N of each metric
        key = (row["w"], row["m"])
        if key not in byk or (row["n"] or 0) > (byk[key]["n"] or 0):
            byk[key] = row
    tmp = tempfile.mkdtemp(prefix="s61-debian-plot.")
    script = ['set terminal pngcairo size 1600,500 font ",10"', f'set output "{png}"',
              f'set multiplot layout 1,{len(PANELS)} title "Debian system: {", ".join(kernels)}, median and '
              f'min-max over {meta.get("rounds")} rounds, QEMU TCG ({meta.get("stamp", "")})"',
              "set style data histograms", "set style histogram errorbars gap 1 lw 1",
              "set style fill solid 0.6 border -1", "set boxwidth 0.9", "set termoption noenhanced",
              "set key top right horizontal", "set offsets 0, 0, graph 0.2, 0", "set xtics rotate by -25",
              "set grid ytics", "set xtics nomirror"]
    for i, (title, logy, items) in enumerate(PANELS):
        ns = {byk[k]["n"] for k in items if k in byk and byk[k]["n"] is not None}
        if ns:
            title = title.replace(" (", f", N={max(ns)} (", 1)
        dat = os.path.join(tmp, f"p{i}.dat")
        floor = 0.1 if logy else 0
        with open(dat, "w") as f:
            for w, m in items:
                row = byk.get((w, m))
                vals = []
                for k in kernels:
                    xs = row["values"].get(k) if row else None
                    v = (med(xs), min(xs), max(xs)) if xs else (floor, floor, floor)
                    vals.extend(max(x, floor) if logy else x for x in v)
                lab = m.replace("_ms", "").replace("_per_s", "/s")
                f.write(f'"{lab}" ' + " ".join(f"{x:g}" for x in vals) + "\n")
        script.append(f'set title "{title}"')
        script.append("set logscale y" if logy else "unset logscale y")
        script.append("set yrange [0.1:*]" if logy else "set yrange [0:*]")
        parts = []
        for j, k in enumerate(kernels):
            c = 2 + 3 * j
            src = f'"{dat}"' if j == 0 else '""'
            parts.append(f'{src} using {c}:{c + 1}:{c + 2}{":xtic(1)" if j == 0 else ""} '
                         f'title "{k}" lc rgb "{COLOURS[k]}"')
        script.append("plot " + ", ".join(parts))
    script.append("unset multiplot")
    gpf = os.path.join(tmp, "plot.gp")
    with open(gpf, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run([gp, gpf], capture_output=True, text=True)
    shutil.rmtree(tmp, ignore_errors=True)
    if r.returncode != 0:
        print(f"{PROG}: warning: gnuplot failed: {r.stderr.strip()[:500]}", file=sys.stderr)
        return False
    return True


def report(rundir, md, js, png):
    meta, runs = load(rundir)
    R = rows(meta, runs)
    for p in (md, js, png):
        os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    with open(js, "w") as f:
        json.dump(raw_json(meta, runs, R), f, indent=1)
        f.write("\n")
    if os.path.exists(png):
        os.remove(png)
    have_png = plot(meta, R, os.path.abspath(png))
    with open(md, "w") as f:
        f.write(markdown(meta, runs, R, png, have_png, js))
    failed = [r for r in runs if not ok(r)]
    print(table_md(meta, runs, R, failed))
    print(f"\nwrote {md}, {js}" + (f", {png}" if have_png else " (no plot)"))
    return meta, runs


def load_recorded(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(d, dict) and isinstance(d.get("meta"), dict) and isinstance(d.get("rows"), list)
            and "kernels" in d["meta"]):
        return None
    return d


def today_stack():
    """Today's stack id: stack_id of the tools' lib.sh ("-" when it cannot say)."""
    for lib in ("tools/lib/lib.sh", "tools/lib.sh"):
        if os.path.isfile(os.path.join(ROOT, lib)):
            r = subprocess.run(["bash", "-c", '. "$1" && stack_id', "bash", os.path.join(ROOT, lib)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            return r.stdout.strip() or "-"
    return "-"


def page(md_path, rep_dir):
    """The page md_path (docs/results/debian-compare.md), all of it: the
    newest recorded comparison of rep_dir (by its name, <stamp>.json)
    judged from its JSON, and the list of all of them, each with the run,
    commit, stack and machine it names; a comparison of another stack is
    marked so."""
    recs = []
    if os.path.isdir(rep_dir):
        for name in sorted(os.listdir(rep_dir)):
            if name.endswith(".json"):
                d = load_recorded(os.path.join(rep_dir, name))
                if d:
                    recs.append((name, d))
    now = today_stack()
    mdir = os.path.dirname(os.path.abspath(md_path))
    cmd = f"python3 tools/debian/report.py --page {shown(md_path)} --dir {shown(rep_dir)}"
    L = ["# Debian system: stock, base and top on one Debian image", "",
         f"Generated by `{cmd}` from `{shown(rep_dir)}/*.json` (each written by `tools/debian/compare.sh`, "
         "`make debian-compare`); do not edit by hand: the figures are judged anew from each record's raw "
         "samples by today's rules (tools/bench/benchlib/judge.py).", "",
         f"Today's stack: `{now}` (`stack_id` of tools/lib/lib.sh); a comparison of another stack, or of none "
         "recorded, is marked \"other stack\".", ""]
    if not recs:
        L.append(f"No comparison recorded yet in `{shown(rep_dir)}/` (`make debian-compare` writes one).")
    else:
        name, d = recs[-1]
        meta, runs = d["meta"], d["runs"]
        R = rows(meta, runs)  # judged anew from the raw samples
        base = os.path.join(rep_dir, os.path.splitext(name)[0])
        L.append(f"Newest comparison: [{shown(base + '.md')}]({os.path.relpath(base + '.md', mdir)}) "
                 f"({provenance(meta, now)}; kernels {meta['kernels']}; {meta.get('rounds')} rounds; "
                 f"suites {meta.get('suites')}" + (f", s61.n={meta['n']}" if meta.get("n") else "") + ").")
        L.append("")
        L.append(table_md(meta, runs, R, [r for r in runs if not ok(r)]))
        if os.path.exists(base + ".png"):
            L.append("")
            L.append(f"![the newest comparison]({os.path.relpath(base + '.png', mdir)})")
        L.append("")
        L.append("Every recorded comparison:")
        L.append("")
        L.append("| report | kernels | rounds | failed runs | run, commit, stack, machine |")
        L.append("|---|---|---|---|---|")
        for name, d in reversed(recs):
            b = os.path.join(rep_dir, os.path.splitext(name)[0])
            L.append(f"| [{os.path.basename(b)}]({os.path.relpath(b + '.md', mdir)}) | {d['meta']['kernels']} "
                     f"| {d['meta'].get('rounds')} | {len(d.get('failed') or [])} | {provenance(d['meta'], now)} |")
    os.makedirs(mdir, exist_ok=True)
    with open(md_path, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {md_path} ({len(recs)} recorded)")