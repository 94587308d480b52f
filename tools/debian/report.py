#!/usr/bin/env python3
"""Report of a tools/debian/compare.sh run: stock, base and top on one Debian image.

Usage: tools/debian/report.py --runs DIR --md FILE --json FILE --png FILE
       tools/debian/report.py --page docs/results/debian-compare.md [--dir DIR]

DIR is a tools/debian/compare.sh run directory (meta.env, runs.env,
runs/r<N>-<kernel>/result.ktap). Every "S61BENCH {json}" line of the guests'
results is a sample (the suite debian-bench: dcont, dp1, dp2, dboot; rows in
tools/bench/benchlib/parse.py DEBIAN_ROWS). Per kernel the median (min-max) over
the rounds, per pair (top/base, base/stock, top/stock) the ratio round by
round, judged by tools/bench/benchlib/judge.py's rule: no verdict while the
spread includes 1.0. Runs that failed are named and left out of the
figures; a kernel not in the comparison is named with the reason.
--page writes the page FILE, all of it, from the newest report JSON of DIR
(default: debian-bench/ next to FILE) and lists all, each with the run,
commit, stack and machine kind it names (make check-records regenerates
docs/results/debian-compare.md with --dir docs/debian-bench). A report
names no path of the machine it ran on: the run by its stamp.
Exit: 0 written; 1 bad input (named) or nothing to write; 2 bad usage.
Python 3 standard library and gnuplot (no plot without it).
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/bench/benchlib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchlib import debian  # noqa: E402


def main():
    ap = argparse.ArgumentParser(prog="tools/debian/report.py", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", help="tools/debian/compare.sh run directory")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--page", help="write this results page (docs/results/debian-compare.md)")
    ap.add_argument("--dir", help="with --page: the report JSONs (default: debian-bench/ next to it)")
    a = ap.parse_args()
    if a.page:
        if a.runs or a.md or a.json or a.png:
            ap.error("--page takes only --dir (it reads recorded reports, not a run directory)")
        debian.page(a.page, a.dir or os.path.join(os.path.dirname(os.path.abspath(a.page)), "debian-bench"))
        return
    miss = [o for o in ("runs", "md", "json", "png") if not getattr(a, o)]
    if miss:
        ap.error("missing " + ", ".join("--" + o for o in miss) + " (or --page FILE)")
    if not os.path.isdir(a.runs):
        debian.die(f"no run directory {a.runs} (tools/debian/compare.sh prints it)")
    debian.report(a.runs, a.md, a.json, a.png)


if __name__ == "__main__":
    main()
