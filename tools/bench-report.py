#!/usr/bin/env python3
"""Report of a tools/bench run: docs/benchmarks.md, the raw JSON, a PNG plot.

Usage: tools/bench-report.py --runs DIR --md FILE --json FILE --png FILE

DIR is a tools/bench run directory (meta.env, runs.env, runs/r<N>-<kernel>/
result.ktap). When the run has the P4-at-scale sweep (samples with an "n",
the number of memcgs), the report judges it per N and draws a second plot
next to FILE of --png: its name with "-sweep.png". Every "S61BENCH {json}" line of the guests' KTAP results is a
sample. Per run (one boot of one kernel in one round) a metric's value is the
median of its samples; over the rounds the report gives the median and the
min-max of those values, and the ratio B/A computed round by round (pairs).
Prints the summary table on stdout. Python 3 standard library and gnuplot.

The code is in three parts under tools/benchlib/: parse.py reads the run
directory, judge.py holds the verdict rules, draw.py writes the tables, the
plot and the cover-letter block. This file is the command line only.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/benchlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import draw, judge, parse  # noqa: E402


def main():
    ap = argparse.ArgumentParser(prog="tools/bench-report.py", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", required=True, help="tools/bench run directory")
    ap.add_argument("--md", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", required=True)
    args = ap.parse_args()
    if not os.path.isdir(args.runs):
        parse.die(f"no run directory {args.runs} (tools/bench prints it)")
    meta, runs = parse.load(args.runs)
    nsamples = sum(len(r["samples"]) for r in runs)
    if nsamples == 0:
        parse.die(f"no S61BENCH samples in {args.runs}/runs/*/result.ktap: did the guests run the bench suite?")

    S = {(w, m): parse.Stats(meta, runs, w, m, how) for w, m, how, _, _ in parse.ROWS}
    G = judge.goals(meta, runs, S)
    # The P4-at-scale sweep and P6 (samples with an "n"): judged per N.
    SW = parse.Sweep(meta, runs)
    SG = judge.sweep_goals(meta, SW)
    indicative = int(meta.get("rounds", "0") or 0) < judge.MIN_ROUNDS

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


if __name__ == "__main__":
    main()
