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

from .parse import PROG, ROWS, fmt, host_loads, load_recorded, med
from .judge import MIN_PAIRS, MIN_ROUNDS, NO_DIFF, HEADLINE, headline, spread, unresolved


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
            f"booting A and B in alternating order; per boot the median, ratios B/A pair by pair; "
            f"a verdict is '{NO_DIFF}' when the pair ratios' min-max includes 1.00 and "
            f"'faster' or 'slower' only when every pair agrees"
            f"{'; fewer than ' + str(MIN_ROUNDS) + ' rounds, so the verdicts are indicative' if indicative else ''}:")
    out = ["<!-- cover-letter: begin -->"] + textwrap.wrap(plain(head), 72)
    for n, v, t in G:
        t = t.replace("see the P5 section", "see docs/benchmarks.md")
        out += textwrap.wrap(plain(f"{n}, {what.get(n, n)}: {v}; {t}"), 72,
                             initial_indent="- ", subsequent_indent="  ")
    nd = unresolved(G)
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


def raw_json(meta, runs, S, G, indicative):
    """The JSON written next to the report: every run with its raw (and
    derived) samples, per metric the values per kernel and the pair ratios
    B/A, the goals with their verdicts."""
    return {"meta": meta, "runs": runs,
            "summary": {f"{w}.{m}": {"a": S[(w, m)].a, "b": S[(w, m)].b, "ratios_b_over_a": S[(w, m)].ratios}
                        for w, m, _, _, _ in ROWS},
            "goals": [{"workload": n, "verdict": v, "text": t} for n, v, t in G]}


def write_json(path, raw):
    with open(path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=False)
        f.write("\n")


def markdown(meta, runs, S, G, indicative, png, have_png, json_path):
    """docs/benchmarks.md: the run, the goals, the cover-letter block, every
    metric, the P4 profile, the P5 model and the method."""
    ka, kb = meta["kernel_a"], meta["kernel_b"]
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
    L.append("")
    L.append("The same for the cover letter of the mailed series (`tools/b4-series cover`):")
    L.append("")
    L += cover_block(meta, G, indicative)
    L.append("")
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
        L.append(f"![base vs series per workload](bench/{os.path.basename(png)})")
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
             "the upstream cover letter's scenario); the drop_caches pass is judged by the same rule, in the text. "
             "Per pass the guest also records vmstat slabs_scanned and pgscan_direct and the parent's "
             "reclaimable slab: in this scenario the shrinkers find nothing to free on either kernel "
             "(slabs_scanned does not move), so the pass time is the cost of the walk itself. "
             "s61.bench_p4_symoff=1 prints the profile's samples by symbol+offset in the walk.")
    L.append("- Under TCG every figure is slower than on hardware, and the host's 2 CPUs are shared with "
             "other jobs (the load average is recorded per boot): compare A and B within a round. "
             "Raw samples: `docs/bench/bench.json`.")
    L.append("")
    return "\n".join(L)


def table(meta, S, G, indicative):
    """The summary table and the verdicts on stdout."""
    ka, kb = meta["kernel_a"], meta["kernel_b"]
    quick = meta.get("quick") == "1"
    print(f"\nbenchmarks: {ka} (A) vs {kb} (B), {meta.get('rounds')} rounds{' QUICK' if quick else ''}")
    print(f"{'metric':58} {'A':>12} {'B':>12} {'B/A':>8}")
    for w, m, how, label, unit in ROWS:
        st = S[(w, m)]
        r = f"{st.ratio():.3f}" if st.ratios else "-"
        print(f"{(label + ' [' + unit + ']')[:58]:58} {fmt(st.ma()):>12} {fmt(st.mb()):>12} {r:>8}")
    print()
    for n, v, t in G:
        print(f"{n}: {v}: {t}")


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
    L.append("| report | date | run | A vs B | host | " + " | ".join(what[g] for g in heads) + " |")
    L.append("| --- " * (5 + len(heads)) + "|")
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
        L.append(f"| `{name}`{' (this report)' if is_this else ''} | {date[:16].replace('T', ' ')} | {kind} "
                 f"| `{m.get('kernel_a')}` vs `{m.get('kernel_b')}` "
                 f"| {m.get('host_cpus', '?')} CPUs, {m.get('smp', '?')} vCPUs {m.get('accel', '?')}; {load} | "
                 + " | ".join(cells) + " |")
    L.append("")
    return L
