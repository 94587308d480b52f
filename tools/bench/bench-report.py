#!/usr/bin/env python3
"""Report of a tools/bench/bench.sh run: docs/results/benchmarks.md, the raw JSON, a PNG plot.

Usage: tools/bench/bench-report.py --runs DIR --md FILE --json FILE --png FILE
       tools/bench/bench-report.py --page FILE [--dir DIR]

--page writes docs/results/benchmarks.md (FILE) from the report JSONs in DIR
(default: bench/ next to FILE; make bench-page and tools/bench/bench.sh give
docs/bench): the newest full run of each kind (the whole run against
base, the memcg sweep against base, the stack without
the unit map against memcg-empty-units), each judged anew from its raw samples,
then the table of every recorded run. It writes no JSON or plot.

DIR is a tools/bench/bench.sh run directory (meta.env, runs.env, runs/r<N>-<kernel>/
result.ktap). When the run has the P4-at-scale sweep (samples with an "n",
the number of memcgs), the report judges it per N and draws a second plot
next to FILE of --png: its name with "-sweep.png". Every "S61BENCH {json}" line of the guests' KTAP results is a
sample. Per run (one boot of one kernel in one round) a metric's value is the
median of its samples; over the rounds the report gives the median and the
min-max of those values, and the ratio B/A computed round by round (pairs).
Prints the summary table on stdout. Python 3 standard library and gnuplot.

The code is in three parts under tools/bench/benchlib/: parse.py reads the run
directory, judge.py holds the verdict rules, draw.py writes the tables, the
plot and the cover-letter block. This file is the command line only.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/bench/benchlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import draw, judge, parse  # noqa: E402


def judged(meta, runs):
    """Per metric the stats, the goals, the sweep (samples with an "n",
    judged per N) and its goals, and whether the run is too short for a
    verdict: what a report and a page section are drawn from."""
    S = {(w, m): parse.Stats(meta, runs, w, m, how) for w, m, how, _, _ in parse.ROWS}
    G = judge.goals(meta, runs, S)
    SW = parse.Sweep(meta, runs)
    SG = judge.sweep_goals(meta, SW)
    indicative = int(meta.get("rounds", "0") or 0) < judge.MIN_ROUNDS
    return S, G, SW, SG, indicative


def main():
    ap = argparse.ArgumentParser(prog="tools/bench/bench-report.py", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", help="tools/bench/bench.sh run directory")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--page", help="write docs/results/benchmarks.md from the recorded report JSONs")
    ap.add_argument("--dir", help="with --page: the report JSONs' directory (default: bench/ next to it)")
    args = ap.parse_args()
    if args.page:
        if args.runs or args.md or args.json or args.png:
            parse.die("--page takes only --dir (it reads recorded reports, not a run directory)")
        return write_page(args.page, args.dir or os.path.join(os.path.dirname(os.path.abspath(args.page)),
                                                              "bench"))
    missing = [o for o in ("runs", "md", "json", "png") if not getattr(args, o)]
    if missing:
        parse.die("missing " + ", ".join("--" + o for o in missing)
                  + " (a run's report needs all four; or --page FILE for docs/results/benchmarks.md)")
    if not os.path.isdir(args.runs):
        parse.die(f"no run directory {args.runs} (tools/bench/bench.sh prints it)")
    meta, runs = parse.load(args.runs)
    nsamples = sum(len(r["samples"]) for r in runs)
    if nsamples == 0:
        parse.die(f"no S61BENCH samples in {args.runs}/runs/*/result.ktap: did the guests run the bench suite?")

    S, G, SW, SG, indicative = judged(meta, runs)

    for p in (args.md, args.json, args.png):
        os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    draw.write_json(args.json, draw.raw_json(meta, runs, S, G, indicative, SW, SG))
    have_png = draw.plot(meta, S, os.path.abspath(args.png))
    sweep_png = draw.sweep_png_path(os.path.abspath(args.png))
    have_sweep_png = bool(SW) and draw.plot_sweep(meta, SW, sweep_png)
    with open(args.md, "w") as f:
        f.write(draw.markdown(meta, runs, S, G, indicative, args.png, have_png, args.json,
                              SW, SG, have_sweep_png, args.md))
    draw.table(meta, S, G, indicative, SW, SG)
    print(f"\nwrote {args.md}, {args.json}" + (f", {args.png}" if have_png else "")
          + (f", {sweep_png}" if have_sweep_png else ""))


def report_of(path, md_path):
    """The markdown of a recorded report JSON, judged anew, for the page."""
    rec = parse.load_recorded(path)
    meta, runs = rec["meta"], rec["runs"]
    for r in runs:  # derived samples are recomputed from the raw ones
        r["samples"] = [s for s in r["samples"] if not s.get("derived")]
        parse.derive(r)
    S, G, SW, SG, indicative = judged(meta, runs)
    if meta.get("only"):  # a run of some tests only: not the goals it did not run
        G = [g for g in G if g[1] != judge.NOT_MEASURED]
    png = os.path.splitext(path)[0] + ".png"
    return draw.markdown(meta, runs, S, G, indicative, png, os.path.exists(png), path, SW, SG,
                         bool(SW) and os.path.exists(draw.sweep_png_path(png)), md_path, earlier=False)


def write_page(md_path, bench_dir):
    if not os.path.isdir(bench_dir):
        parse.die(f"no report directory {bench_dir} (tools/bench/bench.sh writes docs/bench/; --dir names another)")
    chosen = draw.page_runs(bench_dir)
    sections = {role: report_of(p, md_path) for role, p in chosen.items() if p}
    draw.page(md_path, bench_dir, sections)
    print(f"wrote {md_path}: " + "; ".join(f"{role}: {os.path.basename(p) if p else 'none recorded'}"
                                           for role, p in chosen.items()))


if __name__ == "__main__":
    main()
