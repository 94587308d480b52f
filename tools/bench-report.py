#!/usr/bin/env python3
"""Report of a tools/bench run: docs/benchmarks.md, the raw JSON, a PNG plot.

Usage: tools/bench-report.py --runs DIR --md FILE --json FILE --png FILE

DIR is a tools/bench run directory (meta.env, runs.env, runs/r<N>-<kernel>/
result.ktap). Every "S61BENCH {json}" line of the guests' KTAP results is a
sample. Per run (one boot of one kernel in one round) a metric's value is the
median of its samples; over the rounds the report gives the median and the
min-max of those values, and the ratio B/A computed round by round (pairs).
Prints the summary table on stdout. Python 3 standard library and gnuplot.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

PROG = "bench-report"


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(1)


def read_env(path):
    env = {}
    if not os.path.exists(path):
        return env
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def load(rundir):
    meta = read_env(os.path.join(rundir, "meta.env"))
    if not meta:
        die(f"{rundir} has no meta.env: not a tools/bench run directory")
    runs = []
    rinfo = {}
    rpath = os.path.join(rundir, "runs.env")
    if os.path.exists(rpath):
        with open(rpath) as f:
            for line in f:
                d = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
                d = {k: v.strip('"') for k, v in d.items()}
                if "round" in d:
                    rinfo[(int(d["round"]), d["kernel"])] = d
                if "pair" in d:
                    rinfo[("p2par", int(d["pair"]), d["kernel"])] = d
    rounds = int(meta.get("rounds", "0"))
    pairs = int(meta.get("p2_pairs", "0") or 0)
    todo = [(r, k, f"r{r}-{k}", "") for r in range(1, rounds + 1)
            for k in (meta["kernel_a"], meta["kernel_b"])]
    # P2 pairs booted at the same time: their samples count as "p2par".
    todo += [(r, k, f"p2par-r{r}-{k}", "p2par") for r in range(1, pairs + 1)
             for k in (meta["kernel_a"], meta["kernel_b"])]
    if True:
        for r, k, name, phase in todo:
            d = os.path.join(rundir, "runs", name)
            ktap = os.path.join(d, "result.ktap")
            run = {"round": r, "kernel": k, "phase": phase or "rounds", "samples": [], "tests": {},
                   "uname": "", "seconds": None,
                   "rc": (rinfo.get((r, k), {}) if not phase else {}).get("rc"),
                   "host_load_before": rinfo.get((r, k), {}).get("load_before"),
                   "host_load_after": rinfo.get((r, k), {}).get("load_after")}
            if os.path.exists(os.path.join(d, "verdict")):
                with open(os.path.join(d, "verdict")) as f:
                    run["rc"] = f.read().strip()
            if os.path.exists(os.path.join(d, "seconds")):
                with open(os.path.join(d, "seconds")) as f:
                    run["seconds"] = int(f.read().strip() or 0)
            if os.path.exists(ktap):
                with open(ktap, errors="replace") as f:
                    for line in f:
                        line = line.rstrip("\n")
                        m = re.search(r"S61BENCH (\{.*\})\s*$", line)
                        if m:
                            try:
                                smp = json.loads(m.group(1))
                                if phase:
                                    smp["w"] = phase
                                run["samples"].append(smp)
                            except ValueError:
                                print(f"{PROG}: warning: bad sample in {ktap}: {line}",
                                      file=sys.stderr)
                            continue
                        m = re.match(r"# kernel (\S+)", line)
                        if m and not run["uname"]:
                            run["uname"] = m.group(1)
                        m = re.match(r"(not ok|ok) \d+ (\S+)(.*)", line)
                        if m:
                            run["tests"][m.group(2)] = (m.group(1) + m.group(3)).strip()
            derive(run)
            runs.append(run)
    return meta, runs


def derive(run):
    """Samples computed from a run's raw ones, marked "derived": P3's
    memory.reclaim time per dentry it freed (each memcg reclaim's latency
    over its freed count): the series frees several times as many dentries
    per reclaim as base, so the latency alone does not compare the cost."""
    p3 = [s for s in run["samples"] if s.get("w") == "p3"]
    ms = {(s.get("pass"), s.get("memcg")): s["v"] for s in p3 if s.get("m") == "memcg_reclaim_ms"}
    for s in p3:
        if s.get("m") != "memcg_freed_dentries" or not s["v"]:
            continue
        k = (s.get("pass"), s.get("memcg"))
        if k in ms:
            run["samples"].append({"w": "p3", "m": "us_per_freed_dentry", "v": 1000.0 * ms[k] / s["v"],
                                   "pass": k[0], "memcg": k[1], "derived": True})


def med(xs):
    return statistics.median(xs) if xs else None


def run_value(run, w, m, how="median"):
    xs = [s["v"] for s in run["samples"] if s.get("w") == w and s.get("m") == m]
    if not xs:
        return None
    if how == "sum":
        return sum(xs)
    if how == "max":
        return max(xs)
    return statistics.median(xs)


class Stats:
    """One metric on both kernels over the rounds."""

    def __init__(self, meta, runs, w, m, how="median"):
        self.w, self.m = w, m
        ka, kb = meta["kernel_a"], meta["kernel_b"]
        self.a, self.b, self.ratios = [], [], []
        self.all_a, self.all_b = [], []
        phase = "p2par" if w == "p2par" else "rounds"
        runs = [r for r in runs if r.get("phase", "rounds") == phase]
        rounds = sorted({r["round"] for r in runs})
        for rnd in rounds:
            ra = next((r for r in runs if r["round"] == rnd and r["kernel"] == ka), None)
            rb = next((r for r in runs if r["round"] == rnd and r["kernel"] == kb), None)
            va = run_value(ra, w, m, how) if ra else None
            vb = run_value(rb, w, m, how) if rb else None
            if va is not None:
                self.a.append(va)
            if vb is not None:
                self.b.append(vb)
            if va is not None and vb is not None and va != 0:
                self.ratios.append(vb / va)
            for run, acc in ((ra, self.all_a), (rb, self.all_b)):
                if run:
                    acc.extend(s["v"] for s in run["samples"]
                               if s.get("w") == w and s.get("m") == m)

    def ma(self):
        return med(self.a)

    def mb(self):
        return med(self.b)

    def ratio(self):
        return med(self.ratios)


def fmt(v, digits=None):
    if v is None:
        return "–"
    if digits is None:
        a = abs(v)
        digits = 0 if a >= 100 else (1 if a >= 10 else (2 if a >= 0.1 else 3))
    return f"{v:,.{digits}f}".replace(",", " ")


def cell(xs):
    if not xs:
        return "–"
    return f"{fmt(med(xs))} ({fmt(min(xs))}–{fmt(max(xs))})"


def rcell(st):
    if not st.ratios:
        return "–"
    return f"{st.ratio():.3f} ({min(st.ratios):.3f}–{max(st.ratios):.3f})"


# (workload, metric, how, label, unit)
ROWS = [
    ("p1", "mount_ms", "median", "P1 tmpfs mount while a shrinker is held", "ms"),
    ("p1", "umount_ms", "median", "P1 tmpfs umount while held", "ms"),
    ("p1", "insmod_ms", "median", "P1 insmod of a module with a shrinker while held", "ms"),
    ("p1", "rmmod_ms", "median", "P1 rmmod of it while held", "ms"),
    ("p1", "second_freed", "median", "P1 dentries a second reclaimer freed (of the made ones)", "dentries"),
    ("p2", "ops_per_s", "median", "P2 stress-ng --ramfs", "bogo ops/s"),
    ("p2par", "ops_per_s", "median", "P2 the same, A and B booted at the same time", "bogo ops/s"),
    ("p3", "pass_freed_dentries", "median", "P3 dentries (slab) freed per memcg reclaim pass", "dentries"),
    ("p3", "memcg_reclaim_ms", "median", "P3 memory.reclaim latency under churn", "ms"),
    ("p3", "us_per_freed_dentry", "median", "P3 memory.reclaim time per dentry it freed", "µs"),
    ("p3", "drop_caches_freed_dentries", "median", "P3 dentries freed by drop_caches under churn", "dentries"),
    ("p3", "drop_caches_ms", "median", "P3 drop_caches latency under churn", "ms"),
    ("p3", "skipped", "sum", "P3 memcg reclaims that freed <10% (skipped)", "count"),
    ("p4", "drop_caches_ms", "median", "P4 full pass: drop_caches over all memcgs", "ms"),
    ("p4", "memcg_reclaim_ms", "median", "P4 full pass: memory.reclaim of the parent", "ms"),
    ("p4", "pct_rwsem_in_shrink", "median", "P4 profile: rwsem ops under shrink_slab", "% samples"),
    ("p4", "pct_down_read_trylock", "median", "P4 profile: down_read_trylock (all callers)", "% self"),
    ("p4", "pct_up_read", "median", "P4 profile: up_read (all callers)", "% self"),
    ("p4", "pct_shrink_slab", "median", "P4 profile: shrink_slab", "% self"),
    ("p4", "pct_shrink_slab_memcg", "median", "P4 profile: shrink_slab_memcg", "% self"),
    ("p4", "pct_shrink_on_stack", "median", "P4 profile: samples with shrink_slab* on the stack", "%"),
    ("p4", "setup_ms", "median", "P4 setup of the memcgs (mkdir, mount, 1 MiB file)", "ms"),
    ("p5", "bytes_per_memcg", "median", "P5 memory per memcg for the extra shrinkers", "bytes"),
]


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


def goals(meta, runs, S):
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    out = []

    def add(name, met, text):
        out.append((name, met, text))

    # P1
    mnt, umnt, fr = S[("p1", "mount_ms")], S[("p1", "umount_ms")], S[("p1", "second_freed")]
    made = [s.get("made") for r in runs if r["kernel"] == kb
            for s in r["samples"] if s.get("w") == "p1" and s.get("m") == "second_freed"]
    made = med([x for x in made if x]) if made else None
    if mnt.b and mnt.a and umnt.b and umnt.a:
        rm, ru = mnt.mb() / mnt.ma(), umnt.mb() / umnt.ma()
        ok_lat = rm <= 0.01 and ru <= 0.01
        ok_fr = bool(fr.b) and made and fr.mb() >= 0.8 * made
        add("P1", ok_lat and ok_fr,
            f"median mount {fmt(mnt.mb())} ms vs {fmt(mnt.ma())} ms ({100 * rm:.2f}% of {ka}), "
            f"umount {fmt(umnt.mb())} vs {fmt(umnt.ma())} ms ({100 * ru:.2f}%), goal <= 1%; "
            f"second reclaimer freed {fmt(fr.mb())} of {fmt(made)} dentries on {kb} "
            f"({fmt(fr.ma())} on {ka})")
    else:
        add("P1", None, "no P1 samples")
    # P2
    p2, pp = S[("p2", "ops_per_s")], S[("p2par", "ops_per_s")]
    if p2.ratios:
        par = ""
        if pp.ratios:
            par = (f"; booted at the same time: ratio {pp.ratio():.3f} (median of {len(pp.ratios)} "
                   f"pairs, {min(pp.ratios):.3f}–{max(pp.ratios):.3f})")
        # Noise: how much the runs of one kernel within one boot differ.
        spreads = []
        for r in runs:
            xs = [x["v"] for x in r["samples"] if x.get("w") in ("p2", "p2par") and x.get("m") == "ops_per_s"]
            if len(xs) > 1 and min(xs) > 0:
                spreads.append(max(xs) / min(xs) - 1)
        noise = ""
        if spreads:
            noise = (f"; noise: the runs of one kernel within one boot differ by "
                     f"{100 * med(spreads):.0f}% (median; up to {100 * max(spreads):.0f}%)")
        add("P2", p2.ratio() >= 1.0,
            f"ops/s ratio {p2.ratio():.3f} (median of {len(p2.ratios)} alternating pairs, "
            f"{min(p2.ratios):.3f}–{max(p2.ratios):.3f}); {fmt(p2.mb())} vs {fmt(p2.ma())} ops/s{par}"
            f"{noise}; goal >= 1.00")
    else:
        add("P2", None, "no P2 samples")
    # P3
    p3, sk = S[("p3", "pass_freed_dentries")], S[("p3", "skipped")]
    if p3.a and p3.b:
        skb = sum(sk.b) if sk.b else 0
        ska = sum(sk.a) if sk.a else 0
        nre = sum(s.get("reclaims", 0) for r in runs if r["kernel"] == kb
                  for s in r["samples"] if s.get("w") == "p3" and s.get("m") == "skipped")
        nra = sum(s.get("reclaims", 0) for r in runs if r["kernel"] == ka
                  for s in r["samples"] if s.get("w") == "p3" and s.get("m") == "skipped")
        add("P3", p3.mb() >= p3.ma() and skb == 0,
            f"dentries freed per pass {fmt(p3.mb())} vs {fmt(p3.ma())} (goal >=); "
            f"skipped reclaims {skb} of {nre} on {kb}, {ska} of {nra} on {ka} (goal 0)")
    else:
        add("P3", None, "no P3 samples")
    # P4: the full pass judged is memory.reclaim of the parent of the M
    # memcgs (reclaim over the whole memcg hierarchy, the cover letter's
    # scenario): its pair ratio must be <= 1. The drop_caches pass (the
    # root's global walk plus every memcg, ~20 ms) must not be slower
    # beyond noise: at least one pair with ratio <= 1.
    rw, dc, mr = S[("p4", "pct_rwsem_in_shrink")], S[("p4", "drop_caches_ms")], S[("p4", "memcg_reclaim_ms")]
    rwd, rwu = S[("p4", "pct_down_read_trylock")], S[("p4", "pct_up_read")]
    if rw.b and mr.b and mr.a:
        absent = max(rw.b) == 0
        mr_r = mr.ratio() if mr.ratios else mr.mb() / mr.ma()
        dc_ok, dc_txt = True, ""
        if dc.b and dc.a:
            dc_r = dc.ratio() if dc.ratios else dc.mb() / dc.ma()
            dc_min = min(dc.ratios) if dc.ratios else dc_r
            dc_ok = dc_min <= 1.0
            dc_txt = (f"; drop_caches pass {fmt(dc.mb())} ms vs {fmt(dc.ma())} ms, pair ratio "
                      f"{fmt(dc_r, 3)}, lowest pair {fmt(dc_min, 3)} (goal: not slower beyond noise, "
                      f"lowest pair <= 1)")
        add("P4", absent and mr_r <= 1.0 and dc_ok,
            f"rwsem ops under shrink_slab: {fmt(max(rw.b), 2)}% of samples at most on {kb} "
            f"(median {fmt(rw.ma(), 2)}% on {ka}); down_read_trylock+up_read self "
            f"{fmt((rwd.mb() or 0) + (rwu.mb() or 0), 2)}% vs {fmt((rwd.ma() or 0) + (rwu.ma() or 0), 2)}%; "
            f"full pass (memory.reclaim of the parent) {fmt(mr.mb())} ms vs {fmt(mr.ma())} ms, "
            f"pair ratio {fmt(mr_r, 3)} (goal <= 1){dc_txt}")
    else:
        add("P4", None, "no P4 samples")
    # P5
    p5 = S[("p5", "bytes_per_memcg")]
    if p5.a and p5.b:
        extra = [s.get("more_shrinkers") for r in runs for s in r["samples"]
                 if s.get("w") == "p5" and s.get("m") == "bytes_per_memcg"]
        add("P5", "stated",
            f"{fmt(p5.mb())} bytes per memcg on {kb} vs {fmt(p5.ma())} on {ka} for "
            f"{extra[0] if extra else '?'} more memcg-aware shrinkers "
            f"({fmt(p5.mb() - p5.ma())} bytes more; see the P5 section)")
    else:
        add("P5", None, "no P5 samples")
    return out


# The goals are judged over at least this many rounds (issue #6); a run
# with fewer (QUICK: 2) gives indicative verdicts only.
MIN_ROUNDS = 5


def verdict(met, indicative=False):
    if met is None:
        return "not measured"
    if met == "stated":
        return "stated"
    v = "met" if met else "NOT met"
    return v + " (indicative)" if indicative else v


def cover_block(meta, G, indicative):
    """The goals as plain text for the mailed cover letter (tools/b4-series
    copies what stands between the cover-letter markers): ASCII, lines under
    75 columns, no thousands separators."""
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
    head = (f"Benchmarks (make bench of the series repository, {meta.get('date', '?')[:10]}): "
            f"{meta.get('kernel_a')} (unpatched) against {meta.get('kernel_b')} (the top of the "
            f"series), both built from the same "
            f"config, QEMU TCG with {meta.get('smp', '?')} vCPUs, {meta.get('rounds')} rounds "
            f"booting A and B in alternating order; per boot the median, ratios pair by pair"
            f"{'; fewer than ' + str(MIN_ROUNDS) + ' rounds, so the verdicts are indicative' if indicative else ''}:")
    out = ["<!-- cover-letter: begin -->"] + textwrap.wrap(plain(head), 72)
    for n, m, t in G:
        t = t.replace("see the P5 section", "see docs/benchmarks.md")
        out += textwrap.wrap(plain(f"{n}, {what.get(n, n)}: {verdict(m, indicative)}; {t}"), 72,
                             initial_indent="- ", subsequent_indent="  ")
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
        print(f"{PROG}: warning: gnuplot missing (tools/deps bench); no {png}", file=sys.stderr)
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


def main():
    ap = argparse.ArgumentParser(prog="tools/bench-report.py", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, help="tools/bench run directory")
    ap.add_argument("--md", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", required=True)
    args = ap.parse_args()
    if not os.path.isdir(args.runs):
        die(f"no run directory {args.runs} (tools/bench prints it)")
    meta, runs = load(args.runs)
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    nsamples = sum(len(r["samples"]) for r in runs)
    if nsamples == 0:
        die(f"no S61BENCH samples in {args.runs}/runs/*/result.ktap: did the guests run the bench suite?")

    S = {(w, m): Stats(meta, runs, w, m, how) for w, m, how, _, _ in ROWS}
    G = goals(meta, runs, S)
    indicative = int(meta.get("rounds", "0") or 0) < MIN_ROUNDS

    for p in (args.md, args.json, args.png):
        os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    raw = {"meta": meta, "runs": runs,
           "summary": {f"{w}.{m}": {"a": S[(w, m)].a, "b": S[(w, m)].b, "ratios_b_over_a": S[(w, m)].ratios}
                       for w, m, _, _, _ in ROWS},
           "goals": [{"workload": n, "verdict": verdict(m, indicative), "text": t} for n, m, t in G]}
    with open(args.json, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=False)
        f.write("\n")
    have_png = plot(meta, S, os.path.abspath(args.png))

    unames = {k: next((r["uname"] for r in runs if r["kernel"] == k and r["uname"]), "?") for k in (ka, kb)}
    quick = meta.get("quick") == "1"
    ok_runs = sum(1 for r in runs if r["rc"] == "0")
    L = []
    L.append("# Benchmarks: lockless slab shrink on 6.1 vs base")
    L.append("")
    L.append(f"Generated by `make bench{' QUICK=1' if quick else ''}` (tools/bench, tools/bench-report.py) "
             f"on {meta.get('date', '?')}. Regenerate with `make bench`; do not edit by hand.")
    L.append("")
    L.append("| | |")
    L.append("| --- | --- |")
    L.append(f"| kernel A | `{ka}` {meta.get('commit_a', '')[:12]} — {unames[ka]} (pristine 6.1.192) |")
    L.append(f"| kernel B | `{kb}` {meta.get('commit_b', '')[:12]} — {unames[kb]} (top of the stack) |")
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
    L.append("| workload | verdict | measured |")
    L.append("| --- | --- | --- |")
    for n, m, t in G:
        L.append(f"| {n} | **{verdict(m, indicative)}** | {t} |")
    L.append("")
    L.append("The same for the cover letter of the mailed series (`tools/b4-series cover`):")
    L.append("")
    L += cover_block(meta, G, indicative)
    L.append("")
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
        L.append(f"![base vs series per workload](bench/{os.path.basename(args.png)})")
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
    L.append("- Both kernels are built by `tools/kbuild --config bench` (same fragment), with the test module "
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
             "the upstream cover letter's scenario); drop_caches must not be slower beyond noise. "
             "Per pass the guest also records vmstat slabs_scanned and pgscan_direct and the parent's "
             "reclaimable slab: in this scenario the shrinkers find nothing to free on either kernel "
             "(slabs_scanned does not move), so the pass time is the cost of the walk itself. "
             "s61.bench_p4_symoff=1 prints the profile's samples by symbol+offset in the walk.")
    L.append("- Under TCG every figure is slower than on hardware, and the host's 2 CPUs are shared with "
             "other jobs (the load average is recorded per boot): compare A and B within a round. "
             "Raw samples: `docs/bench/bench.json`.")
    L.append("")
    with open(args.md, "w") as f:
        f.write("\n".join(L))

    # The table on stdout.
    print(f"\nbenchmarks: {ka} (A) vs {kb} (B), {meta.get('rounds')} rounds{' QUICK' if quick else ''}")
    print(f"{'metric':58} {'A':>12} {'B':>12} {'B/A':>8}")
    for w, m, how, label, unit in ROWS:
        st = S[(w, m)]
        r = f"{st.ratio():.3f}" if st.ratios else "-"
        print(f"{(label + ' [' + unit + ']')[:58]:58} {fmt(st.ma()):>12} {fmt(st.mb()):>12} {r:>8}")
    print()
    for n, m, t in G:
        print(f"{n}: {verdict(m, indicative)}: {t}")
    print(f"\nwrote {args.md}, {args.json}" + (f", {args.png}" if have_png else ""))


if __name__ == "__main__":
    main()
