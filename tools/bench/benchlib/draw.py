"""Draw: the report's outputs from parsed runs and judged goals: the raw
JSON, the markdown (tables, the cover-letter block), the gnuplot PNG and the
summary table on stdout."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

from .parse import PROG, ROWS, SWEEP_ROWS, fmt, host_loads, load_recorded, med
from .judge import (DIRECTION, MIN_PAIRS, MIN_ROUNDS, NO_DIFF, NOT_MEASURED, HEADLINE, headline,
                    metric_verdict, spread, sweep_headline, sweep_verdicts, unresolved)

# The repository (tools/bench/benchlib/draw.py is two levels under it): paths in the
# report are given relative to it when they are inside.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def is_base(meta):
    """Kernel A is base, the pristine 6.1 (make bench); else a comparison of
    two other trees (e.g. the top without one commit against the top)."""
    return meta.get("kernel_a") == "base"


def shown_path(path):
    """path relative to the repository when it is inside, else its name."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return os.path.basename(path) if rel.startswith("..") else rel


def sweep_png_path(png):
    """The sweep plot next to the main one: same basename + "-sweep.png"."""
    base, ext = os.path.splitext(png)
    return base + "-sweep" + (ext or ".png")


def cell(xs):
    if not xs:
        return "–"
    return f"{fmt(med(xs))} ({fmt(min(xs))}–{fmt(max(xs))})"


def rcell(st):
    if not st.ratios:
        return "–"
    return f"{st.ratio():.3f} ({min(st.ratios):.3f}–{max(st.ratios):.3f})"



def kmalloc_size(n):
    """Bytes the slab/page allocator hands out for an n-byte kmalloc (SLUB, x86_64)."""
    for s in (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192):
        if n <= s:
            return s
    pages = -(-n // 4096)
    order = max(0, (pages - 1).bit_length())
    return 4096 << order


def model_bytes(nr_ids):
    """shrinker_info bytes per memcg and node for nr_ids memcg-aware shrinker ids."""
    nr = -(-nr_ids // 64) * 64
    # 6.1: {rcu_head, nr_deferred *, map *} + nr_deferred[nr] + map[nr / 64]
    base = kmalloc_size(32 + nr * 8 + nr // 8)
    # series: {rcu_head, int map_nr_max, unit *[]} + units of 64 counters + 64-bit map
    units = nr // 64
    series = kmalloc_size(24 + units * 8) + units * kmalloc_size(64 * 8 + 8)
    return base, series



def sweep_resolution(sg):
    """What the rule resolved per N of a sweep goal, and what it did not."""
    res = [f"N={p['n']} ({p['verdict']})" for p in sg["per_n"]
           if p["verdict"] != NOT_MEASURED and not p["verdict"].startswith(NO_DIFF)]
    nd = [str(p["n"]) for p in sg["per_n"] if p["verdict"].startswith(NO_DIFF)]
    nm = [str(p["n"]) for p in sg["per_n"] if p["verdict"] == NOT_MEASURED]
    return "; ".join([f"resolved at {', '.join(res) if res else 'no N'}"]
                     + ([f"not resolvable at N={', '.join(nd)}"] if nd else [])
                     + ([f"not measured at N={', '.join(nm)}"] if nm else []))


SWEEP_WHAT = {"P4 at scale": "N memcgs with a tmpfs each, writers in many of them at once under "
                             "their parent's memory limit (memcg limit reclaim)",
              "P6": "tmpfs mount and umount in a memcg outside that parent while its writers run"}


def cover_block(meta, G, indicative, SG=()):
    """The goals as plain text for the mailed cover letter (tools/stack/b4-series.sh
    copies what stands between the cover-letter markers): ASCII, lines under
    75 columns, no thousands separators. SG: the sweep goals
    (judge.sweep_goals), a line each with what the rule resolved per N."""
    def plain(t):
        t = t.replace("–", "-").replace("µ", "u")
        while True:
            u = re.sub(r"(\d) (\d{3})\b", r"\1\2", t)
            if u == t:
                return u
            t = u
    what = {"P1": "mount, umount, insmod and rmmod while a shrinker blocks in its scan",
            "P2": "stress-ng --ramfs, shrinker register/unregister throughput (LKP's case)",
            "P3": "memcg reclaim under mount churn",
            "P4": "reclaim over many memcgs, with a CPU profile",
            "P5": "shrinker_info memory per memcg"}
    if is_base(meta):
        kernels = (f"{meta.get('kernel_a')} (unpatched) against {meta.get('kernel_b')} (the top of the "
                   f"series)")
    else:
        kernels = f"{meta.get('kernel_a')} (A) against {meta.get('kernel_b')} (B)"
    head = (f"Benchmarks (make bench of the series repository, {meta.get('date', '?')[:10]}): "
            f"{kernels}, both built from the same "
            f"config, QEMU TCG with {meta.get('smp', '?')} vCPUs, {meta.get('rounds')} rounds "
            f"booting A and B in alternating order; per boot the median, ratios B/A pair by pair; "
            f"a verdict is '{NO_DIFF}' when the pair ratios' min-max includes 1.00 and "
            f"'faster' or 'slower' only when every pair agrees"
            f"{'; fewer than ' + str(MIN_ROUNDS) + ' rounds, so the verdicts are indicative' if indicative else ''}:")
    out = ["<!-- cover-letter: begin -->"] + textwrap.wrap(plain(head), 72)
    for n, v, t in G:
        t = t.replace("see the P5 section", "see docs/results/benchmarks.md")
        out += textwrap.wrap(plain(f"{n}, {what.get(n, n)}: {v}; {t}"), 72,
                             initial_indent="- ", subsequent_indent="  ")
    for sg in SG:
        out += textwrap.wrap(plain(f"{sg['goal']}, {SWEEP_WHAT.get(sg['goal'], sg['goal'])}: "
                                   f"{sweep_resolution(sg)}; {sg['text']}"), 72,
                             initial_indent="- ", subsequent_indent="  ")
    nd = unresolved(G, SG)
    out += textwrap.wrap(plain(f"Not resolvable with these pairs (their spread includes 1.00): "
                               f"{', '.join(nd) if nd else 'none'}."), 72)
    out.append("<!-- cover-letter: end -->")
    return out


def profile_tops(runs, kernel):
    for r in runs:
        if r["kernel"] != kernel:
            continue
        for s in r["samples"]:
            if s.get("w") == "p4" and s.get("m") == "profile_top":
                return r["round"], s.get("top", [])
    return None, []


def plot(meta, S, png):
    gp = shutil.which("gnuplot")
    if not gp:
        print(f"{PROG}: warning: gnuplot missing (tools/build/deps.sh bench); no {png}", file=sys.stderr)
        return False
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    panels = [
        ("P1: latency while a shrinker is held (ms, log)", True,
         [("mount", ("p1", "mount_ms")), ("umount", ("p1", "umount_ms")),
          ("insmod", ("p1", "insmod_ms")), ("rmmod", ("p1", "rmmod_ms"))]),
        ("P1: dentries the 2nd reclaimer freed", False, [("freed", ("p1", "second_freed"))]),
        ("P2: stress-ng --ramfs (bogo ops/s)", False,
         [("alternating", ("p2", "ops_per_s")), ("same time", ("p2par", "ops_per_s"))]),
        ("P3: dentries freed per reclaim pass", False, [("freed", ("p3", "pass_freed_dentries"))]),
        ("P3: reclaim latency under churn (ms)", False,
         [("memory.reclaim", ("p3", "memcg_reclaim_ms")), ("drop_caches", ("p3", "drop_caches_ms"))]),
        ("P4: full reclaim pass (ms)", False,
         [("drop_caches", ("p4", "drop_caches_ms")), ("memory.reclaim", ("p4", "memcg_reclaim_ms"))]),
        ("P4: profile share (%)", False,
         [("rwsem in shrink", ("p4", "pct_rwsem_in_shrink")),
          ("down_read_trylock", ("p4", "pct_down_read_trylock")),
          ("up_read", ("p4", "pct_up_read")), ("shrink_slab*", ("p4", "pct_shrink_on_stack"))]),
        ("P5: bytes per memcg for the extra shrinkers", False, [("bytes", ("p5", "bytes_per_memcg"))]),
    ]
    tmp = tempfile.mkdtemp(prefix="s61-bench-plot.")
    script = [f'set terminal pngcairo size 1600,900 font ",10"',
              f'set output "{png}"',
              'set multiplot layout 2,4 title "'
              f'{ka} (A) vs {kb} (B), median and min-max over {meta.get("rounds")} rounds, '
              f'QEMU TCG {meta.get("smp")} vCPUs{" QUICK" if meta.get("quick") == "1" else ""}"',
              "set style data histograms", "set style histogram errorbars gap 1 lw 1",
              "set style fill solid 0.6 border -1", "set boxwidth 0.9",
              "set termoption noenhanced", "set key top right horizontal",
              "set offsets 0, 0, graph 0.2, 0", "set xtics rotate by -15",
              "set grid ytics", "set yrange [0:*]", "set xtics nomirror"]
    for i, (title, logy, items) in enumerate(panels):
        dat = os.path.join(tmp, f"p{i}.dat")
        with open(dat, "w") as f:
            for label, key in items:
                st = S.get(key)
                vals = []
                for xs in ((st.a if st else []), (st.b if st else [])):
                    if xs:
                        v = (med(xs), min(xs), max(xs))
                        if logy:
                            v = tuple(max(x, 0.1) for x in v)
                    else:
                        v = (0.1 if logy else 0, 0.1 if logy else 0, 0.1 if logy else 0)
                    vals.extend(v)
                f.write(f'"{label}" ' + " ".join(f"{x:g}" for x in vals) + "\n")
        script.append(f'set title "{title}"')
        script.append("set logscale y" if logy else "unset logscale y")
        script.append("set yrange [0.1:*]" if logy else "set yrange [0:*]")
        script.append(f'plot "{dat}" using 2:3:4:xtic(1) title "{ka}" lc rgb "#d95f02", '
                      f'"" using 5:6:7 title "{kb}" lc rgb "#1b9e77"')
    script.append("unset multiplot")
    gpf = os.path.join(tmp, "plot.gp")
    with open(gpf, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run([gp, gpf], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{PROG}: warning: gnuplot failed: {r.stderr.strip()[:500]}", file=sys.stderr)
        return False
    shutil.rmtree(tmp, ignore_errors=True)
    return True


def plot_sweep(meta, SW, png):
    """The sweep plot (png: the main plot's name + "-sweep.png"): left, the
    cost against N (write_ms and reclaim_ms of both kernels, median and
    min-max over the rounds, log-log); right, P6: the tmpfs mount latency
    distribution per kernel and N (CDF of the latencies pooled over the
    rounds), or without distribution samples p99 per N with p50-max bars."""
    gp = shutil.which("gnuplot")
    if not gp:
        print(f"{PROG}: warning: gnuplot missing (tools/build/deps.sh bench); no {png}", file=sys.stderr)
        return False
    if not SW or not SW.ns:
        return False
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    color = {ka: "#d95f02", kb: "#1b9e77"}
    # A and B side by side at each N: their bars would hide each other.
    shift = {ka: 0.96, kb: 1.04}
    tmp = tempfile.mkdtemp(prefix="s61-bench-sweep.")
    xt = ", ".join(f'"{n}" {n}' for n in SW.ns)
    xr = f"[{min(SW.ns) / 1.6:g}:{max(SW.ns) * 1.6:g}]"
    script = ['set terminal pngcairo size 1600,700 font ",10"',
              f'set output "{png}"',
              f'set multiplot layout 1,2 title "P4 at scale and P6: {ka} (A) vs {kb} (B), '
              f'{meta.get("rounds")} rounds, QEMU TCG {meta.get("smp")} vCPUs'
              f'{" QUICK" if meta.get("quick") == "1" else ""}"',
              "set termoption noenhanced", "set grid", "set key top left",
              "set logscale x", "set logscale y", f"set xrange {xr}", f"set xtics ({xt})",
              'set xlabel "memcgs (N), log"', 'set ylabel "ms, log"',
              'set title "cost against N: median and min-max over the rounds"']
    series = []
    for m, label, dt, pt in (("write_ms", "write phase", 1, 7), ("reclaim_ms", "memory.reclaim pass", 2, 5)):
        for k in (ka, kb):
            rows = []
            for n in SW.ns:
                st = SW.get("p4s", m, n)
                xs = (st.a if k == ka else st.b) if st else []
                if xs:
                    rows.append((n * shift[k], max(med(xs), 0.01), max(min(xs), 0.01), max(max(xs), 0.01)))
            if not rows:
                continue
            dat = os.path.join(tmp, f"{m}-{'a' if k == ka else 'b'}.dat")
            with open(dat, "w") as f:
                f.writelines(" ".join(f"{x:g}" for x in r) + "\n" for r in rows)
            series.append(f'"{dat}" using 1:2:3:4 with yerrorlines lc rgb "{color[k]}" dt {dt} pt {pt} '
                          f'lw 1.5 title "{label} {k}"')
    if series:
        script.append("plot " + ", ".join(series))
    else:
        script += ["unset key", "set label 1 \"no write_ms or reclaim_ms samples\" at graph 0.3, graph 0.5",
                   "plot [1:2] [1:2] NaN notitle", "unset label 1", "set key top left"]
    # Right: P6.
    series = []
    have_dist = any(w == "p6" and m == "mount_dist" for w, m, _, _ in SW.dist)
    if have_dist:
        script += ["set title \"P6: tmpfs mount latency during the write phase, CDF pooled over the rounds\"",
                   "unset logscale y", "set yrange [0:1]", "set autoscale x", "unset xtics", "set xtics",
                   'set xlabel "mount latency (ms, log)"', 'set ylabel "fraction of mounts"',
                   "set key bottom right"]
        for i, n in enumerate(SW.ns):
            for k in (ka, kb):
                xs = SW.dist.get(("p6", "mount_dist", k, n))
                if not xs:
                    continue
                dat = os.path.join(tmp, f"cdf-{'a' if k == ka else 'b'}-{n}.dat")
                with open(dat, "w") as f:
                    f.write(f"{max(xs[0], 0.001):g} 0\n")
                    f.writelines(f"{max(x, 0.001):g} {(j + 1) / len(xs):g}\n" for j, x in enumerate(xs))
                series.append(f'"{dat}" using 1:2 with steps lc rgb "{color[k]}" dt {i % 5 + 1} lw 1.5 '
                              f'title "{k} N={n} ({len(xs)} mounts)"')
    else:
        script += ['set title "P6: tmpfs mount latency during the write phase: p99, bars p50 to max (medians)"',
                   'set ylabel "ms, log"']
        for k in (ka, kb):
            rows = []
            for n in SW.ns:
                v = [SW.get("p6", f"mount_{q}_ms", n) for q in ("p99", "p50", "max")]
                v = [med(st.a if k == ka else st.b) if st else None for st in v]
                if None not in v:
                    rows.append((n * shift[k],) + tuple(max(x, 0.01) for x in v))
            if not rows:
                continue
            dat = os.path.join(tmp, f"p6-{'a' if k == ka else 'b'}.dat")
            with open(dat, "w") as f:
                f.writelines(" ".join(f"{x:g}" for x in r) + "\n" for r in rows)
            series.append(f'"{dat}" using 1:2:3:4 with yerrorlines lc rgb "{color[k]}" pt 7 lw 1.5 '
                          f'title "mount p99 {k}"')
    if series:
        script.append("plot " + ", ".join(series))
    else:
        script += ["unset key", "set label 1 \"no P6 samples\" at graph 0.4, graph 0.5",
                   "plot [1:2] [1:2] NaN notitle"]
    script.append("unset multiplot")
    gpf = os.path.join(tmp, "plot.gp")
    with open(gpf, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run([gp, gpf], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png):
        print(f"{PROG}: warning: gnuplot failed on the sweep plot: {r.stderr.strip()[:500]}", file=sys.stderr)
        if os.path.exists(png):
            os.remove(png)  # what gnuplot wrote before it failed: not the plot
        return False
    shutil.rmtree(tmp, ignore_errors=True)
    return True


def raw_json(meta, runs, S, G, indicative, SW=None, SG=()):
    """The JSON written next to the report: every run with its raw (and
    derived) samples, per metric the values per kernel and the pair ratios
    B/A, the goals with their verdicts; with the P4-at-scale sweep, "sweep"
    (the same per metric and N, the skipped N, the pooled P6 distributions)
    and "sweep_goals" (the verdicts per N)."""
    d = {"meta": meta, "runs": runs,
         "summary": {f"{w}.{m}": {"a": S[(w, m)].a, "b": S[(w, m)].b, "ratios_b_over_a": S[(w, m)].ratios}
                     for w, m, _, _, _ in ROWS},
         "goals": [{"workload": n, "verdict": v, "text": t} for n, v, t in G]}
    if SW:
        d["sweep"] = SW.summary()
        d["sweep_goals"] = [{"workload": sg["goal"], "metric": sg["metric"], "per_n": sg["per_n"],
                             "skipped": {str(n): w for n, w in sorted(sg["skipped"].items())},
                             "text": sg["text"]} for sg in SG]
    return d


def write_json(path, raw):
    with open(path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=False)
        f.write("\n")


def markdown(meta, runs, S, G, indicative, png, have_png, json_path, SW=None, SG=(), have_sweep_png=False,
             md_path=None, earlier=True):
    """docs/results/benchmarks.md: the run, the goals, the cover-letter block, every
    metric, the P4 profile, the P4-at-scale sweep and P6 (when the run has
    them), the P5 model and the method. md_path: where it is written (the
    plots are linked relative to it)."""
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    base = is_base(meta)
    mdir = os.path.dirname(os.path.abspath(md_path or json_path))
    unames = {k: next((r["uname"] for r in runs if r["kernel"] == k and r["uname"]), "?") for k in (ka, kb)}
    quick = meta.get("quick") == "1"
    ok_runs = sum(1 for r in runs if r["rc"] == "0")
    L = []
    if base:
        L.append("# Benchmarks: lockless slab shrink on 6.1 vs base")
        L.append("")
        how = (f"tools/bench/bench.sh{' --quick' if quick else ''} --only {meta['only']}" if meta.get("only")
               else f"make bench{' QUICK=1' if quick else ''}")
        L.append(f"Generated by `{how}` (tools/bench/bench.sh, tools/bench/bench-report.py) "
                 f"on {meta.get('date', '?')}. Do not edit by hand.")
    else:
        L.append(f"# Benchmarks: lockless slab shrink on 6.1, `{kb}` (B) vs `{ka}` (A)")
        L.append("")
        L.append(f"Generated by `tools/bench/bench.sh -a {ka} -b {kb}{' --quick' if quick else ''}` (tools/bench/bench.sh, "
                 f"tools/bench/bench-report.py) on {meta.get('date', '?')}. Kernel A is not base: the "
                 f"figures compare `{kb}` with `{ka}`, not the series with 6.1. Do not edit by hand.")
    L.append("")
    L.append("| | |")
    L.append("| --- | --- |")
    L.append(f"| kernel A | `{ka}` {meta.get('commit_a', '')[:12]} — {unames[ka]}"
             f"{' (pristine 6.1.192)' if base else ''} |")
    L.append(f"| kernel B | `{kb}` {meta.get('commit_b', '')[:12]} — {unames[kb]}"
             f"{' (top of the stack)' if base else ''} |")
    L.append("| config | `qemu/configs/bench` (boot + perf events + SLUB_DEBUG code, no debug options) for both |")
    L.append(f"| QEMU | {meta.get('qemu', '?')}, accel {meta.get('accel', '?')}, -cpu max, "
             f"{meta.get('smp', '?')} vCPUs, {meta.get('mem', '?')} |")
    order = ("A B, B A, A B ..., and the first boot of a P2 pair alternating too"
             if meta.get("order") == "abba" else "A B A B ...")
    L.append(f"| rounds | {meta.get('rounds')} ({order}, one boot per kernel and round){' — QUICK' if quick else ''}, "
             f"then {meta.get('p2_pairs', '0')} P2 pairs booted at the same time; "
             f"{ok_runs} of {len(runs)} boots passed (every test reported its samples) |")
    L.append(f"| guest command line | `{meta.get('append', '')}` |")
    L.append(f"| host | {meta.get('host_cpus', '?')} CPUs shared with other jobs; load average before each boot: "
             + ", ".join(f"r{r['round']} {r['kernel']} {str(r['host_load_before']).split(' ')[0]}"
                         for r in runs if r["phase"] == "rounds") + " |")
    L.append(f"| duration | {fmt(int(meta.get('total_secs', '0')) / 60, 1)} min in all, "
             f"{meta.get('build_secs', '?')} s of it building or reusing the kernels |")
    L.append("")
    L.append("## Goals")
    L.append("")
    if indicative:
        L.append(f"This run has {meta.get('rounds')} rounds; the goals are judged over at least "
                 f"{MIN_ROUNDS} (`make bench`). Its verdicts are indicative only: between boots of one "
                 "kernel, P2 throughput and P4 pass times vary by 10-30% on this host (in the A/A run "
                 "of docs/backport-notes.md two identical kernels came out 0.885-1.150), more than "
                 "the median of a few pairs can resolve.")
        L.append("")
    L.append(f"Verdicts by the pair ratios B/A (`{kb}` over `{ka}`, one per round or P2 pair): "
             f"\"{NO_DIFF}\" when their min–max includes 1.00; \"faster\" or \"slower\" (for P3 "
             f"\"frees more\"/\"frees fewer\", for P5 \"less memory\"/\"more memory\") only when "
             f"every pair agrees; over fewer than {MIN_PAIRS} pairs \"(indicative)\". The pairs judged: "
             + "; ".join(f"{g} " + " + ".join(f"{w}.{m}" for w, m in keys) for g, keys in HEADLINE.items())
             + ".")
    L.append("")
    L.append("| workload | verdict | measured |")
    L.append("| --- | --- | --- |")
    for n, v, t in G:
        L.append(f"| {n} | **{v}** | {t} |")
    for sg in SG:
        L.append(f"| {sg['goal']} | " + "; ".join(f"N={p['n']}: **{p['verdict']}**" for p in sg["per_n"])
                 + f" | {sg['text']} |")
    L.append("")
    if SG:
        L.append(f"P4 at scale and P6 are judged per N (memcgs) by the same rule on that N's pairs, "
                 f"{' and '.join(sg['metric'] for sg in SG)}; an N without a pair is \"{NOT_MEASURED}\" "
                 f"(see the section P4 at scale and P6).")
        L.append("")
    L.append("The same for the cover letter of the mailed series (`tools/stack/b4-series.sh cover`):")
    L.append("")
    L += cover_block(meta, G, indicative, SG)
    L.append("")
    if earlier:
        L += earlier_runs(json_path)
    L.append("## All metrics")
    L.append("")
    L.append(f"Per boot the median of its samples; here the median (min–max) over the rounds. "
             f"B/A: the ratio computed round by round, its median (min–max).")
    L.append("")
    L.append(f"| metric | unit | A `{ka}` | B `{kb}` | B/A |")
    L.append("| --- | --- | --- | --- | --- |")
    for w, m, how, label, unit in ROWS:
        st = S[(w, m)]
        L.append(f"| {label} | {unit} | {cell(st.a)} | {cell(st.b)} | {rcell(st)} |")
    L.append("")
    L.append("P1 per operation over every sample (not per boot): median / max")
    L.append("")
    L.append(f"| operation | A `{ka}` | B `{kb}` |")
    L.append("| --- | --- | --- |")
    for op in ("mount_ms", "umount_ms", "insmod_ms", "rmmod_ms"):
        st = S[("p1", op)]
        L.append(f"| {op[:-3]} | {fmt(med(st.all_a))} / {fmt(max(st.all_a) if st.all_a else None)} ms "
                 f"| {fmt(med(st.all_b))} / {fmt(max(st.all_b) if st.all_b else None)} ms |")
    hold = next((s["v"] for r in runs for s in r["samples"] if s.get("m") == "hold_ms"), None)
    L.append("")
    L.append(f"Hold time of the blocked shrinker: {fmt(hold)} ms.")
    L.append("")
    if have_png:
        alt = "base vs series per workload" if base else f"{ka} vs {kb} per workload"
        L.append(f"![{alt}]({os.path.relpath(os.path.abspath(png), mdir)})")
        L.append("")
    L.append("## P4 profile")
    L.append("")
    L.append("`perf record -a -g -e cpu-clock -F 1000` in the guest while drop_caches and memory.reclaim "
             "of the parent memcg run in a loop; self time per symbol (`perf report --no-children "
             "--sort sym`), top symbols of the first round:")
    L.append("")
    for k in (ka, kb):
        rnd, top = profile_tops(runs, k)
        L.append(f"- `{k}` (round {rnd}): " + (", ".join(f"{s} {p}%" for s, p in top) if top else "no profile"))
    L.append("")
    L.append("\"rwsem ops under shrink_slab\" counts the samples whose leaf is down_read_trylock or up_read "
             "called from the slab shrink path (on 6.1 shrink_slab() and shrink_slab_memcg() are static "
             "and inlined into shrink_node() and drop_slab_node(), so those count as callers); the self "
             "shares of down_read_trylock and up_read include every other caller (mmap_lock in page "
             "faults, ...). The shares of the shrink functions themselves cannot be compared across the "
             "kernels: the series' shrink_slab() lives in mm/shrinker.c and is not inlined, and in a "
             "fixed profile time a faster kernel runs more passes. The cost is the pass time above.")
    L.append("")
    if SW:
        L += sweep_section(meta, SW, SG, sweep_png_path(png) if have_sweep_png else None, mdir)
    L.append("## P5 memory: shrinker_info per memcg")
    L.append("")
    L.append("Measured: SUnreclaim (/proc/meminfo) before and after creating M memcgs, once with the boot's shrinkers and once "
             "after S more memcg-aware shrinkers (tmpfs mounts); the difference divided by M is what those "
             "shrinkers cost each memcg (one NUMA node here; the cost is per node).")
    L.append("")
    L.append("Model (x86_64, SLUB; bytes per memcg and node, kmalloc rounding included):")
    L.append("")
    L.append("| shrinker ids | 6.1: one `{rcu, nr_deferred *, map *}` + 8 B counter + 1 bit per id | "
             "series: `{rcu, map_nr_max, unit *[]}` + one 520-byte unit (64 counters + 64-bit map) per 64 ids |")
    L.append("| --- | --- | --- |")
    for n in (64, 256, 576, 1088, 2048):
        b, s = model_bytes(n)
        L.append(f"| {n} | {b} | {s} |")
    L.append("")
    ids = {}
    for r in runs:
        for smp in r["samples"]:
            if smp.get("w") == "p5" and smp.get("m") in ("kb_memcgs_boot", "kb_memcgs_more"):
                ids[smp["m"]] = smp.get("shrinkers")
    if ids.get("kb_memcgs_boot") and ids.get("kb_memcgs_more"):
        lo, hi = ids["kb_memcgs_boot"], ids["kb_memcgs_more"]
        (bl, sl), (bh, sh) = model_bytes(lo), model_bytes(hi)
        p5 = S[("p5", "bytes_per_memcg")]
        L.append(f"For this run ({lo} shrinkers at boot, {hi} after the mounts; debugfs counts every "
                 f"shrinker, memcg-aware or not, so the id count is at most that) the model gives "
                 f"{bh - bl} more bytes per memcg on 6.1 ({bl} -> {bh}) and {sh - sl} on the series "
                 f"({sl} -> {sh}); measured: {fmt(p5.ma())} and {fmt(p5.mb())}. SUnreclaim counts slab "
                 f"pages, so objects that fit into partly used slabs of the boot go unseen: a "
                 f"measurement can only be lower than the model.")
        L.append("")
    L.append("Why: the secondary array adds a level, a pointer per 64 ids plus the units, each a separate "
             "kzalloc() of 520 bytes (64 deferred counters and a 64-bit map) that SLUB serves from "
             "kmalloc-1k. So the series needs about 16.2 bytes per id and memcg, in steps of 64 ids. "
             "6.1 needs 8.1 bytes per id, but in one kvmalloc() rounded up to the next power of two, so "
             "between 8.1 and 16.2 bytes: the series costs about the same as 6.1 right above a power of "
             "two and up to twice as much right below one, i.e. at most ~1 KiB more per memcg and node "
             "for every 64 memcg-aware shrinker ids. Upstream 6.7 has the same layout and cost. In "
             "exchange, growing the id space no longer copies counters and bits (the units are shared "
             "between the old and the new info), which is what lets reclaim read an info under RCU "
             "without the rwsem.")
    L.append("")
    L.append("## Method")
    L.append("")
    L.append("- Both kernels are built by `tools/build/kbuild.sh --config bench` (same fragment), with the test module "
             "(`testmod/`) and a copy of it named `s61_shrinker_aux`; the guest runs the `bench` suite "
             "(`rootfs-overlay/s61/tests/bench/`): P5, P1, P2, P3, P4 in that order in one boot.")
    L.append("- P1: the test module's shrinker blocks the first reclaimer (drop_caches) in its scan callback "
             "for the hold time; one operation is timed per hold, around the system call alone "
             "(mount(2), umount(2), finit_module(2), delete_module(2) in `s61-bench timed`, "
             "guest-src/bench.c), since a fork and exec alone take tens of ms under TCG. In the mount's hold a second drop_caches "
             "runs 0.2 s after the mount started; the negative ext4 dentries it frees are counted.")
    L.append("- P2: `stress-ng --times --metrics-brief --ramfs N` (N = vCPUs), bogo ops/s of wall clock "
             "time; in the full run three 15 s runs per boot (their median is the boot's value). "
             "Upstream's anchor (LKP): 7884 -> 7952 (+0.9%); the reverted SRCU design lost 88.8%. "
             f"Then {meta.get('p2_pairs', '0')} more pairs with A and B booted at the same time "
             "(\"same time\"): the host's load changes far more between two boots than the kernels "
             "differ, and two guests side by side see the same load. A CPU profile of P2 on both kernels "
             "(bench test 60-p2-profile, off unless s61.bench_p2_profile=1) spends the same in the "
             "shrinker functions (shrinker_free 3.5% vs unregister_shrinker 3.8%, shrinker_register "
             "1.6% vs register_shrinker_prepared 1.5%, shrinker_alloc 0.45% vs prealloc_shrinker "
             "0.48%, inclusive); most of a ramfs mount/umount cycle is synchronize_rcu_expedited() "
             "in umount's namespace_unlock(), whose latency under TCG depends on how the host "
             "schedules the vCPU threads.")
    L.append("- P3: N negative dentries on ext4 made inside each of K memcgs; under `stress-ng --ramfs` churn "
             "each memcg is reclaimed by writing 64M to its memory.reclaim (more than it has: reclaim goes "
             "down to priority 0), then drop_caches; freed = negative dentries gone (memory.stat is "
             "flushed lazily on 6.1, so it is not used); \"skipped\" = a memcg reclaim that freed less "
             "than 10% of its N dentries. On 6.1 shrink_slab_memcg() returns at once when its "
             "down_read_trylock() of shrinker_rwsem fails, and stops after the current shrinker when "
             "rwsem_is_contended(): under mount churn a memory.reclaim then ends with a fraction of "
             "the memcg's dentries freed, and a single reclaim takes less time because it does less "
             "work. The series walks every shrinker of the memcg each time. Hence \"time per dentry it "
             "freed\" (each reclaim's latency over its freed count; a derived sample in the JSON) "
             "compares the cost of the work; the latency row alone does not.")
    L.append("- P4: M memcgs, each with a tmpfs mount and a 1 MiB file; full passes of drop_caches "
             "(shrink_slab() for every memcg) and of memory.reclaim on the parent; then the profile. "
             "The pass judged is memory.reclaim of the parent (reclaim over the whole memcg hierarchy, "
             "the upstream cover letter's scenario); the drop_caches pass is judged by the same rule, in the text. "
             "Per pass the guest also records vmstat slabs_scanned and pgscan_direct and the parent's "
             "reclaimable slab: in this scenario the shrinkers find nothing to free on either kernel "
             "(slabs_scanned does not move), so the pass time is the cost of the walk itself. "
             "s61.bench_p4_symoff=1 prints the profile's samples by symbol+offset in the walk.")
    if SW:
        L.append("- P4 at scale (bench test 70-p4-sweep, run in boots of its own): the memcgs are added step "
                 "by step under one parent, each with a tmpfs mount and a 4 KiB file charged to it (N "
                 "memcg-aware superblock shrinkers: the cover letter's do_create/do_mount) and a directory on "
                 "one shared ext4 file system (loop device). At each N the write phase (do_touch): 64 writer "
                 "processes at once write a file of 256 MiB/N into every memcg's directory, each from inside "
                 "that memcg, while the parent's memory.max is its usage plus 32 MiB (s61.bench_p4s_* change "
                 "these), so the phase runs through memcg limit reclaim of the parent, which walks all N "
                 "memcgs and calls shrink_slab() for each. Timed: the setup, the write phase (write_ms, the "
                 "headline) and the writers' write() calls (their latency is the allocation stall); then "
                 "three timed memory.reclaim passes of the parent (reclaim_ms, per boot their median: the "
                 "first frees the phase's page cache, the others are walks over N memcgs with little to "
                 "free). Counted: the parent's memory.events max, memory.stat pgscan/pgsteal, vmstat "
                 "slabs_scanned, the reclaimable slab before and after. A perf profile (cpu-clock, 250 Hz, "
                 "all CPUs) runs during the write phase on both kernels alike. An N that could not be set up "
                 "is skipped, with the reason. P6: during the write phase a process in a memcg outside the "
                 "limited parent mounts and unmounts a tmpfs in a loop (shrinker registration and "
                 "unregistration during that reclaim), each call timed; its idle latency (2 s before the "
                 "writers start) is recorded as idle_*.")
    L.append("- Under TCG every figure is slower than on hardware, and the host's 2 CPUs are shared with "
             "other jobs (the load average is recorded per boot): compare A and B within a round. "
             f"Raw samples: `{shown_path(json_path)}`.")
    L.append("")
    return "\n".join(L)


# The sweep's table (a): (metric, unit, judged by the rule)
SWEEP_COST = [("write_ms", "ms", True), ("reclaim_ms", "ms", True), ("wlat_p99_us", "µs", True),
              ("setup_ms", "ms", True),
              ("limit_events", "events", False), ("pgsteal", "pages", False), ("slabs_scanned", "objects", False)]
# (b): the profile's symbols, self share in %
SWEEP_SYMS = ["down_read_trylock", "up_read", "shrink_slab", "shrink_slab_memcg", "do_shrink_slab",
              "__rcu_read_lock", "__rcu_read_unlock", "_find_next_bit"]


def ab(st, digits=None):
    """'A / B' medians of a Stats, '–' for a missing side."""
    if not st or not (st.a or st.b):
        return "–"
    return f"{fmt(st.ma(), digits)} / {fmt(st.mb(), digits)}"


def sweep_section(meta, SW, SG, sweep_png, mdir):
    """The section "P4 at scale and P6": per N the cost with the pair ratios
    and the verdicts of the judged metrics, the profile's lock-op shares, P6's
    mount/umount latencies, the skipped N and the sweep plot."""
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    L = ["## P4 at scale and P6", ""]
    L.append(f"The bench test 70-p4-sweep for N = {', '.join(str(n) for n in SW.all_ns)} memcgs (see Method). "
             f"Per boot and N the median of its samples (reclaim_ms: of the timed passes); here the median "
             f"(min–max) over the rounds, A `{ka}`, B `{kb}`, and the ratio B/A computed round by round, "
             f"its median (min–max) and how many pairs. The times are judged per N by the rule above; "
             f"the counts are not judged (more limit events or pages stolen is neither better nor worse "
             f"by itself).")
    L.append("")
    if SW.skipped:
        L.append("Skipped N (the guest found they did not fit): "
                 + "; ".join(f"N={n}: {SW.skipped_why(n)}" for n in sorted(SW.skipped)) + ".")
    else:
        L.append("No N was skipped.")
    L.append("")
    L.append(f"| N | metric | unit | A `{ka}` | B `{kb}` | B/A, pairs | verdict |")
    L.append("| --- | --- | --- | --- | --- | --- | --- |")
    for n in SW.all_ns:
        if n not in SW.ns:
            L.append(f"| {n} | all | | – | – | – | **{NOT_MEASURED}** (skipped: {SW.skipped_why(n)}) |")
            continue
        for i, (m, unit, judged) in enumerate(SWEEP_COST):
            st = SW.get("p4s", m, n)
            if st and st.ratios:
                r = f"{rcell(st)}, {len(st.ratios)}"
            else:
                r = "–"
            if judged:
                v = f"**{metric_verdict(st.ratios if st else [], ('p4s', m))}**"
            else:
                v = "not judged"
            if i == 0 and n in SW.skipped:
                v += f" (skipped: {SW.skipped_why(n)})"
            L.append(f"| {n if i == 0 else ''} | {m} | {unit} | {cell(st.a if st else [])} "
                     f"| {cell(st.b if st else [])} | {r} | {v} |")
    L.append("")
    L.append(f"Profile of the write phase (`perf record -a -g`), self share in % per symbol, median over "
             f"the rounds, A `{ka}` / B `{kb}`:")
    L.append("")
    L.append("| N | " + " | ".join(SWEEP_SYMS) + " | profile samples |")
    L.append("| --- " * (len(SWEEP_SYMS) + 2) + "|")
    for n in SW.ns:
        L.append(f"| {n} | " + " | ".join(ab(SW.get("p4s", f"pct_{sym}", n), 2) for sym in SWEEP_SYMS)
                 + f" | {ab(SW.get('p4s', 'profile_samples', n))} |")
    L.append("")
    rcu = [x for sym in ("__rcu_read_lock", "__rcu_read_unlock") for n in SW.ns
           for st in [SW.get("p4s", f"pct_{sym}", n)] if st for x in st.a + st.b]
    rcu0 = bool(rcu) and max(rcu) == 0
    L.append(f"On kernel B (`{kb}`) down_read_trylock and up_read are absent from the reclaim path by "
             f"construction: its shrink_slab() walks the shrinkers under RCU and takes no shrinker_rwsem. "
             f"So their 0% there is not a measurement of contention, and what share they keep comes from "
             f"other callers (mmap_lock in page faults, ...). __rcu_read_lock and __rcu_read_unlock are "
             f"functions only with CONFIG_PREEMPT_RCU; on a non-preemptible kernel rcu_read_lock() is "
             f"inlined and they show 0"
             + (" (as here on both kernels)" if rcu0 else "")
             + ": a 0 there says nothing about the cost of the RCU walk. The cost is the write phase and "
             "the reclaim pass above.")
    L.append("")
    L.append(f"P6, tmpfs mount and umount (a shrinker registered and unregistered each) in a memcg outside "
             f"the limited parent while the writers run: per N the medians over the rounds of each boot's "
             f"p50, p99 and max, A `{ka}` / B `{kb}` in ms; judged: mount p99.")
    L.append("")
    L.append("| N | mount p50 | mount p99 | mount max | umount p50 | umount p99 | umount max | pairs done "
             "| mount p99 B/A, pairs | verdict |")
    L.append("| --- " * 10 + "|")
    for n in SW.all_ns:
        g = {m: SW.get("p6", m, n) for m in ("mount_p50_ms", "mount_p99_ms", "mount_max_ms",
                                             "umount_p50_ms", "umount_p99_ms", "umount_max_ms", "ops")}
        st = g["mount_p99_ms"]
        r = f"{rcell(st)}, {len(st.ratios)}" if st and st.ratios else "–"
        v = f"**{metric_verdict(st.ratios if st else [], ('p6', 'mount_p99_ms'))}**"
        if n in SW.skipped:
            v += f" (skipped: {SW.skipped_why(n)})"
        L.append(f"| {n} | " + " | ".join(ab(g[m]) for m in g) + f" | {r} | {v} |")
    L.append("")
    if sweep_png:
        L.append(f"![P4 at scale: {ka} vs {kb} against N; P6 mount latency]"
                 f"({os.path.relpath(os.path.abspath(sweep_png), mdir)})")
        L.append("")
    return L


def table(meta, S, G, indicative, SW=None, SG=()):
    """The summary table and the verdicts on stdout."""
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    quick = meta.get("quick") == "1"
    print(f"\nbenchmarks: {ka} (A) vs {kb} (B), {meta.get('rounds')} rounds{' QUICK' if quick else ''}")
    print(f"{'metric':58} {'A':>12} {'B':>12} {'B/A':>8}")
    for w, m, how, label, unit in ROWS:
        st = S[(w, m)]
        r = f"{st.ratio():.3f}" if st.ratios else "-"
        print(f"{(label + ' [' + unit + ']')[:58]:58} {fmt(st.ma()):>12} {fmt(st.mb()):>12} {r:>8}")
    if SW:
        for w, m, how, label, unit in SWEEP_ROWS:
            if (w, m) not in DIRECTION:
                continue
            for n in SW.ns:
                st = SW.get(w, m, n)
                r = f"{st.ratio():.3f}" if st.ratios else "-"
                lab = f"{w} N={n} {label} [{unit}]"
                print(f"{lab[:58]:58} {fmt(st.ma()):>12} {fmt(st.mb()):>12} {r:>8}")
    print()
    for n, v, t in G:
        print(f"{n}: {v}: {t}")
    for sg in SG:
        print(f"{sg['goal']}: {sweep_verdicts(sg)}")
    if SW and SW.skipped:
        print("skipped: " + "; ".join(f"N={n}: {SW.skipped_why(n)}" for n in sorted(SW.skipped)))


def earlier_runs(json_path):
    """The section "Earlier runs": every report JSON in the directory of this
    report's JSON (docs/bench/ for make bench), this one included, oldest
    first, with the headline pair ratios and their verdicts by the rule, so
    that a result that did not repeat stays visible."""
    this = os.path.abspath(json_path)
    d = os.path.dirname(this)
    recs = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if not name.endswith(".json") or not os.path.isfile(p):
            continue
        rec = load_recorded(p)
        if rec:
            recs.append((rec["meta"].get("date", ""), name, p == this, rec))
    recs.sort(key=lambda x: (x[0], x[1]))
    L = ["## Earlier runs", ""]
    L.append(f"Every report JSON next to this one (`{os.path.basename(d)}/`), this run included, "
             "oldest first: QUICK and full runs, A/A runs too. Per goal the headline pair ratios B/A, "
             "median (min–max), how many pairs, and the verdict by the rule above; the host load is "
             "the 1-minute load average before each boot of the rounds, median (min–max).")
    L.append("")
    heads = [g for g in ("P2", "P3", "P4")]
    what = {"P2": "P2 ops/s, all pairs", "P3": "P3 dentries freed per pass", "P4": "P4 memory.reclaim pass"}
    # The P4-at-scale headline, a column only once a report has it.
    scale = any(sweep_headline(rec.get("sweep")) for _, _, _, rec in recs)
    if scale:
        L.append("P4 at scale: the write phase's pair ratios B/A at the largest N with pairs of both kernels.")
        L.append("")
    L.append("| report | date | run | A vs B | host | " + " | ".join(what[g] for g in heads)
             + (" | P4 at scale write_ms, largest N" if scale else "") + " |")
    L.append("| --- " * (5 + len(heads) + scale) + "|")
    for date, name, is_this, rec in recs:
        m = rec["meta"]
        R = {k: v.get("ratios_b_over_a") for k, v in rec["summary"].items() if isinstance(v, dict)}
        loads = host_loads(rec["runs"])
        load = f"load {cell(loads)}" if loads else "load not recorded"
        kind = (f"{'QUICK' if m.get('quick') == '1' else 'full'}, {m.get('rounds', '?')} rounds"
                f" + {m.get('p2_pairs', '0')} P2 pairs")
        cells = []
        for g in heads:
            ratios, v = headline(R, g)
            cells.append(f"{spread(ratios)}, {len(ratios)} pairs: **{v}**" if ratios else "–")
        if scale:
            h = sweep_headline(rec.get("sweep"))
            cells.append(f"N={h[0]}: {spread(h[1])}, {len(h[1])} pairs: **{h[2]}**" if h else "–")
        L.append(f"| `{name}`{' (this report)' if is_this else ''} | {date[:16].replace('T', ' ')} | {kind} "
                 f"| `{m.get('kernel_a')}` vs `{m.get('kernel_b')}` "
                 f"| {m.get('host_cpus', '?')} CPUs, {m.get('smp', '?')} vCPUs {m.get('accel', '?')}; {load} | "
                 + " | ".join(cells) + " |")
    L.append("")
    return L


# The sections of docs/results/benchmarks.md (draw.page): role, title, what it answers.
PAGE_ROLES = [
    ("whole", "The latest whole run against base: P1 to P5",
     "`make bench`: base against the top, every bench test in each boot."),
    ("sweep", "The memcg sweep against base: P4 at scale and P6",
     "`make bench-sweep`: base against the top, the 70-p4-sweep test alone, N memcgs per step."),
    ("0004", "The unit map on and off: the memcg sweep without memcg-empty-units against it",
     "`make bench-0004`: kernel A is the stack without the memcg-empty-units branch (before "
     "2026-12-06: the top without lockless/0004, top-no0004), kernel B memcg-empty-units."),
]


def page_runs(bench_dir):
    """For each role of PAGE_ROLES the newest full (not QUICK) report JSON
    in bench_dir that fills it, or None: "whole" a run against base of every
    test (no --only) with a kernel B other than A (not an A/A run); "sweep"
    a run against base with samples of the sweep; "0004" one of the sweep
    whose kernel B is memcg-empty-units (A the branch below it), or, from
    before that branch existed, whose kernel A is top-no0004."""
    best = {}
    for name in sorted(os.listdir(bench_dir)):
        path = os.path.join(bench_dir, name)
        if not name.endswith(".json") or not os.path.isfile(path):
            continue
        rec = load_recorded(path)
        if not rec:
            continue
        m = rec["meta"]
        if m.get("quick") == "1":
            continue
        a, b, only = m.get("kernel_a"), m.get("kernel_b"), m.get("only", "")
        role = None
        if a == "base" and not only and m.get("commit_a") != m.get("commit_b"):
            role = "whole"
        elif a == "base" and "70-p4-sweep" in only.split(","):
            role = "sweep"
        elif b != a and (a == "top-no0004" or
                         (b == "memcg-empty-units" and "70-p4-sweep" in only.split(","))):
            role = "0004"
        if role and (role not in best or m.get("date", "") >= best[role][0]):
            best[role] = (m.get("date", ""), path)
    return {role: best[role][1] if role in best else None for role, _, _ in PAGE_ROLES}


def page(md_path, bench_dir, sections):
    """docs/results/benchmarks.md: one section per role of PAGE_ROLES, each the
    report of its recorded run (sections: role -> the markdown that
    markdown() wrote for it, earlier=False) with its headings one level
    down, or a line saying that no such run is recorded; then the table of
    every recorded run (earlier_runs)."""
    L = ["# Benchmarks: lockless slab shrink on 6.1", ""]
    L.append("Generated by `tools/bench/bench-report.py --page` (`make bench-page`; tools/bench/bench.sh runs it "
             "after every run) from the report JSONs in "
             f"`{shown_path(bench_dir)}/`; do not edit by hand. Each section is the newest full run "
             "of its kind, judged anew from its raw samples by today's rules (tools/bench/benchlib/judge.py), "
             "so a run recorded before a rule changed reads as that rule says now. Every run, QUICK and "
             "A/A runs included, is listed at the end.")
    L.append("")
    for role, title, what in PAGE_ROLES:
        L.append(f"## {title}")
        L.append("")
        L.append(what)
        L.append("")
        md = sections.get(role)
        if not md:
            L.append(f"No full run of this kind is recorded in `{shown_path(bench_dir)}/`.")
            L.append("")
            continue
        for line in md.split("\n", 1)[-1].lstrip("\n").split("\n"):
            L.append("#" + line if re.match(r"#+ ", line) else line)
        L.append("")
    jsons = [p for p in (os.path.join(bench_dir, n) for n in sorted(os.listdir(bench_dir)))
             if p.endswith(".json") and load_recorded(p)]
    if jsons:
        er = earlier_runs(jsons[-1])
        L += ["## Every recorded run"] + [x.replace(" (this report)", "") for x in er[1:]]
    with open(md_path, "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")
