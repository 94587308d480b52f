#!/usr/bin/python3
"""Reject work-diary wording and stray dates in the documentation (issue #39).

Usage: tools/lint/docs.py [--root DIR] [FILE...]
       (default: README.md, docs/*.md and docs/results/*.md under the
       project root)

Reference pages are written in the present tense, without the work period
they were written in and without dates: the dated history is in the commit
messages, the figures in committed records. Each finding is printed as
FILE:LINE: what, and the line.

Rejected everywhere, generated pages included:
  - the word "session" or "sessions" (a work period is not a reference);
  - an ordinal opening a parenthesis, "(17th ...": a work period's number;
  - a path of this repository (tools/, tests/ or docs/, ending .sh, .py,
    .md, .tsv, .runs or .txt) that does not exist: a command, test or page
    that moved (the kernel tree's tools/testing/ and globs aside).
Rejected outside what a tool writes from a committed record:
  - a date YYYY-MM-DD standing as a word (not inside a name such as a
    tag "mm-hotfixes-stable-2024-01-05-11-35" or a file "2026-12-06-x.md").
A date may stand
  - in a generated page: each page of docs/results/pages.tsv (the list
    tools/lint/records.py checks, each with the command that writes it
    from its records) but README.md, and docs/results/README.md;
  - between the markers of a generated section, "<!-- NAME: ... begin" and
    "<!-- NAME: ... end -->", NAME one of SECTIONS below (other markers,
    such as "cover-letter", exempt nothing);
  - in a table whose rows come from a committed record: a line
    "<!-- record: PATH -->" followed (blank lines aside) by the table;
    PATH, relative to the root, must be a file (and tracked by git when
    the root is a git work tree).
Exit: 0 clean, 1 findings, 2 usage.
"""
import os
import re
import subprocess
import sys

# Pages that a command writes whole from their records; nobody edits them:
# those of docs/results/pages.tsv (page, command, records), README.md
# aside (only its timings block is written).
PAGES = "docs/results/pages.tsv"


def generated(root):
    """page -> "command, from records" of ROOT's docs/results/pages.tsv."""
    pages = {"docs/results/README.md": "tools/lib/results.py index, from " + PAGES}
    try:
        with open(os.path.join(root, PAGES), encoding="utf-8") as f:
            for line in f:
                f3 = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(f3) != 3 or f3[0] == "README.md":
                    continue
                pages[f3[0]] = f"{f3[1]}, from {f3[2]}"
    except OSError:
        pass
    return pages


# Sections that a tool writes between its markers in a hand-written page.
SECTIONS = {
    "results": "tools/lib/results.py readme-timings (README.md), from docs/records/timings.tsv",
}

SESSION = re.compile(r"\bsessions?\b", re.I)
ORDINAL = re.compile(r"\(\s*\d+(st|nd|rd|th)\b", re.I)
# A date standing as a word: not part of a name such as a tag
# "mm-hotfixes-stable-2024-01-05-11-35" or a file "2026-12-06-x.md".
DATE = re.compile(r"(?<![-\w/.])(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![-\w/]|\.\w)")
BEGIN = re.compile(r"<!--\s*([A-Za-z0-9_-]+):.*\bbegin\b")
END = re.compile(r"<!--\s*([A-Za-z0-9_-]+):.*\bend\b.*-->")
RECORD = re.compile(r"^\s*<!--\s*record:\s*(\S+)\s*-->\s*$")
# A path of this repository that a page names: a command, a test, a page or
# a record (the kernel tree's own tools/testing/... is not one of ours).
PATH = re.compile(r"(?<![\w/.-])((?:tools|tests|docs)/[\w./-]*\.(?:sh|py|md|tsv|runs|txt))(?![\w/-])")


def usage(code):
    (sys.stdout if code == 0 else sys.stderr).write(__doc__)
    sys.exit(code)


def tracked(root, path):
    """Is PATH a file of ROOT, and tracked when ROOT is a git work tree?"""
    if not os.path.isfile(os.path.join(root, path)):
        return False
    git = subprocess.run(["git", "-C", root, "rev-parse", "--is-inside-work-tree"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if git.returncode != 0:
        return True
    ls = subprocess.run(["git", "-C", root, "ls-files", "--error-unmatch", "--", path],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return ls.returncode == 0


def lint(root, rel):
    """Print the findings of ROOT/REL; return how many."""
    found = 0

    def say(n, what, line):
        nonlocal found
        found += 1
        print(f"{rel}:{n}: {what}: {line.rstrip()}")

    with open(os.path.join(root, rel), encoding="utf-8") as f:
        lines = f.readlines()
    is_generated = rel in generated(root)
    section = None      # the generated section we are in
    record = None       # a record marker waiting for its table, or the table's
    in_table = False
    for n, line in enumerate(lines, 1):
        m = SESSION.search(line)
        if m:
            say(n, f'"{m.group(0)}" (a work period; say what is, or name the commit)', line)
        m = ORDINAL.search(line)
        if m:
            say(n, f'"{m.group(0)}" (a numbered work period)', line)
        # Where are we: a generated section, a record's table, plain text?
        m = BEGIN.search(line)
        if m and section is None and m.group(1) in SECTIONS:
            section = m.group(1)
            continue
        m = END.search(line)
        if m and section is not None and m.group(1) == section:
            section = None
            continue
        m = RECORD.match(line)
        if m:
            if not tracked(root, m.group(1)):
                say(n, f"record {m.group(1)} is no committed file", line)
                record = None
            else:
                record = m.group(1)
            in_table = False
            continue
        if line.lstrip().startswith("|"):
            in_table = True
        else:
            if in_table:
                record = None       # the record's table ended
            in_table = False
            if line.strip() and record is not None:
                say(n, f"record marker of {record} is not directly above a table", line)
                record = None
        for m in PATH.finditer(line):
            path = m.group(1)
            if not path.startswith("tools/testing/") and "*" not in path \
                    and not os.path.exists(os.path.join(root, path)):
                say(n, f"{path}: no such file in the repository (moved or renamed?)", line)
        if is_generated or section is not None or (in_table and record is not None):
            continue
        m = DATE.search(line)
        if m:
            say(n, f"date {m.group(0)} outside a generated page or a record's table "
                   "(dated history is in the commit messages)", line)
    if section is not None:
        print(f"{rel}: section {section} has no end marker")
        found += 1
    return found


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            usage(0)
        elif a == "--root":
            if i + 1 >= len(argv):
                usage(2)
            root = argv[i + 1]
            i += 1
        elif a.startswith("-"):
            usage(2)
        else:
            files.append(a)
        i += 1
    if not files:
        files = ["README.md"] + sorted(
            "docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
        rdir = os.path.join(root, "docs", "results")
        if os.path.isdir(rdir):
            files += sorted("docs/results/" + f for f in os.listdir(rdir) if f.endswith(".md"))
        files = [f for f in files if os.path.isfile(os.path.join(root, f))]
    found = 0
    for rel in files:
        if not os.path.isfile(os.path.join(root, rel)):
            print(f"tools/lint/docs.py: {rel}: no such file under {root}", file=sys.stderr)
            return 2
        found += lint(root, rel)
    if found:
        print(f"lint-docs: {found} finding(s): reference docs are present tense, "
              "without work periods or dates (tools/lint/docs.py --help)")
        return 1
    print(f"lint-docs: {len(files)} page(s) without work-diary wording, stray dates or paths that do not exist")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
