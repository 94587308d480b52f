#!/usr/bin/env python3
"""A figure without a current record fails: every results page is what its command writes.

Usage: tools/lint/records.py [--root DIR] [--list | --write]
  --root DIR  the project to check (default: this one)
  --list      print each page and its command; check nothing
  --write     run every command in the project itself: each page anew
              from the committed records (make results); then commit them

docs/results/pages.tsv lists every generated page (PAGE, COMMAND,
RECORDS): the results pages of docs/results/ and README.md's timings
block. The check copies the project (without .git and .work: no kernel
checkout, no run) to a temporary directory, runs each COMMAND there (it
rewrites its PAGE from the committed records and today's stack id, the
stack_id of tools/lib/lib.sh) and compares the page it wrote with the
committed one. Any difference fails, naming the page and the command that
regenerates it: a figure typed by hand, a page made from an older record,
or a page made before the stack changed (a record's row of another stack
must read "other stack"). Every .md file of docs/results/ must be listed.
README.md without its timings markers ("<!-- results: timings begin -->"
/ "... end -->") is skipped with a note (the block is not there yet).
Exit: 0 every page is current; 1 a page differs, is missing or is not
listed, or its command failed; 2 bad usage or no pages.tsv.
"""
import difflib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = "docs/results/pages.tsv"
BEGIN = "<!-- results: timings begin -->"


def read_pages(root):
    path = os.path.join(root, PAGES)
    if not os.path.isfile(path):
        print(f"records: no {PAGES} under {root}: the list of generated pages", file=sys.stderr)
        sys.exit(2)
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            f3 = line.split("\t")
            if len(f3) != 3:
                print(f"records: {PAGES}:{n}: want PAGE<TAB>COMMAND<TAB>RECORDS, got: {line}", file=sys.stderr)
                sys.exit(2)
            rows.append(tuple(f3))
    return rows


def copy_tree(root, dest):
    shutil.copytree(root, dest, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".work", "__pycache__", "*.tmp.*"))


def main(argv):
    root, listing, write = ROOT, False, False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__, end="")
            return 0
        if a == "--root" and i + 1 < len(argv):
            root = os.path.abspath(argv[i + 1])
            i += 1
        elif a == "--list":
            listing = True
        elif a == "--write":
            write = True
        else:
            print(f"records: unknown argument {a} (see --help)", file=sys.stderr)
            return 2
        i += 1
    pages = read_pages(root)
    if listing:
        for page, cmd, recs in pages:
            print(f"{page}\t{cmd}\t{recs}")
        return 0
    if write:
        failed = 0
        for page, cmd, recs in pages:
            proc = subprocess.run(shlex.split(cmd), cwd=root, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                print(f"records: {page}: `{cmd}` failed (exit {proc.returncode}):")
                print("".join("  " + x + "\n" for x in proc.stdout.splitlines()[-8:]), end="")
                failed += 1
            else:
                print(f"records: {page}: written by `{cmd}` from {recs}")
        return 1 if failed else 0
    bad = 0
    listed = {p for p, _c, _r in pages}
    rdir = os.path.join(root, "docs/results")
    for name in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
        rel = f"docs/results/{name}"
        if name.endswith(".md") and rel not in listed:
            print(f"records: {rel}: not in {PAGES}: a results page needs the command that writes it")
            bad += 1
    tmp = tempfile.mkdtemp(prefix="s61-records.")
    try:
        copy = os.path.join(tmp, "proj")
        copy_tree(root, copy)
        env = dict(os.environ, S61_WORK=os.path.join(tmp, "work"), PYTHONDONTWRITEBYTECODE="1")
        checked = 0
        # Every command at once (each writes its own page in the copy).
        todo = []
        for page, cmd, recs in pages:
            mine = os.path.join(root, page)
            if not os.path.isfile(mine):
                print(f"records: {page}: missing; `{cmd}` writes it (from {recs})")
                bad += 1
                continue
            with open(mine, encoding="utf-8") as f:
                want = f.read()
            if page == "README.md" and BEGIN not in want:
                print(f"records: {page}: no timings block ({BEGIN}) yet: skipped")
                continue
            proc = subprocess.Popen(shlex.split(cmd), cwd=copy, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            todo.append((page, cmd, recs, want, proc))
        for page, cmd, recs, want, proc in todo:
            out = proc.communicate()[0]
            if proc.returncode != 0:
                print(f"records: {page}: `{cmd}` failed (exit {proc.returncode}):")
                print("".join("  " + x + "\n" for x in out.splitlines()[-8:]), end="")
                bad += 1
                continue
            with open(os.path.join(copy, page), encoding="utf-8") as f:
                got = f.read()
            checked += 1
            if got != want:
                diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                                 f"{page} (committed)", f"{page} (from {recs})", n=0, lineterm=""))
                print(f"records: {page}: not what `{cmd}` writes from {recs} today: "
                      f"a figure edited by hand, a record changed since, or rows of another stack shown "
                      f"unmarked; run `{cmd}` and commit the page (never edit it by hand)")
                for line in diff[:24]:
                    print("  " + line)
                if len(diff) > 24:
                    print(f"  ... {len(diff) - 24} more diff lines")
                bad += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if bad:
        print(f"records: {bad} page(s) not current (tools/lint/records.py --help)")
        return 1
    print(f"records: {checked} page(s) are what their commands write from the committed records")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
