"""The code of tools/bench/bench-report.py, in three parts:

parse.py  reads a tools/bench/bench.sh run directory (meta.env, runs.env, the guests'
          KTAP results) and the recorded reports under docs/bench/;
judge.py  the verdict rule on the pair ratios, the goals P1..P5 and, per
          N memcgs, P4 at scale and P6;
draw.py   the outputs: raw JSON, docs/results/benchmarks.md (tables, earlier runs,
          cover-letter block), the gnuplot PNGs (the main one and, with
          the sweep, <name>-sweep.png), the table on stdout.

Python 3 standard library only.
"""
