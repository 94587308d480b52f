#!/usr/bin/env python3
"""The converted shrinkers' evidence of debian-subsys runs, side by side.

Usage: tools/debian/evidence.py [--registered-only FILE] KERNEL=RESULT.ktap [KERNEL=RESULT.ktap ...]

Reads the "# shrinker NAME: K registered; count A -> B (memory.reclaim)
-> C (drop_caches)[: freed N]" lines that debian-subsys writes for every
shrinker it looks for (debian-system/overlay/s61/subsys.sh), and the test
each belongs to, from the result files of tools/debian/boot.sh, and prints
one Markdown table: a row per test and shrinker, a column per kernel with
"K reg., A -> B -> C, freed N" (a UUID in a name, bcache's cache set,
as <uuid>). A kernel without the shrinker debugfs
(Debian's stock kernel: CONFIG_SHRINKER_DEBUG off) has no such lines; its
column says so. A shrinker missing from one kernel's run while another
has it is marked "not seen".

A row whose count does not fall (after the work -> after drop_caches) is
no evidence that its shrinker frees. The rows that are known to be so,
with the reason, are listed in debian-system/registered-only
(--registered-only FILE): their cells say "registered only", and the
reasons follow the table. Any other such row is refused: its cell says
"**freed nothing**", and the tool names it and exits 1.

Exit: 0 table printed; 1 a result file has no debian-subsys test at all,
or a row freed nothing on a kernel and is not registered-only; 2 bad
usage, an unreadable file or a bad line of the registered-only list.
"""
import os
import re
import sys

REGISTERED_ONLY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))),
                               "debian-system", "registered-only")

LINE = re.compile(
    r"^# shrinker (?P<name>\S+): (?P<reg>\d+) registered; count (?P<a>\d+) -> "
    r"(?P<b>\d+) \(memory\.reclaim\) -> (?P<c>\d+) \(drop_caches\)(?:: freed (?P<freed>\d+))?\s*$")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RESULT = re.compile(r"^(?:not )?ok \d+ (?P<test>debian-subsys\.\S+)")


def read(path):
    """Return ({(test, name): text}, [tests]) of one result file."""
    rows, pending, tests = {}, [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = LINE.match(line)
            if m:
                text = "%s reg., %s -> %s -> %s" % (m["reg"], m["a"], m["b"], m["c"])
                if m["freed"]:
                    text += ", freed " + m["freed"]
                # bcache names its shrinker by the cache set's UUID, new
                # with every mkfs: the same row on every kernel.
                pending.append((UUID.sub("<uuid>", m["name"]), (text, bool(m["freed"]))))
                continue
            m = RESULT.match(line)
            if m:
                tests.append(m["test"])
                for name, text in pending:
                    rows[(m["test"], name)] = text
                pending = []
            elif re.match(r"^(?:not )?ok \d+ ", line):
                pending = []
    return rows, tests


def registered_only(path):
    """{(test, shrinker): why} of the registered-only list at PATH."""
    marks = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = "" if raw.lstrip().startswith("#") else raw.strip()
            if not line:
                continue
            words = line.split(None, 2)
            if len(words) < 3:
                raise ValueError("%s line %d: want TEST SHRINKER WHY (the reason is required), not: %s"
                                 % (path, n, line))
            if (words[0], words[1]) in marks:
                raise ValueError("%s line %d: %s %s listed twice" % (path, n, words[0], words[1]))
            marks[(words[0], words[1])] = words[2]
    return marks


def main(argv):
    marks_path = REGISTERED_ONLY
    if argv and argv[0] == "--registered-only":
        if len(argv) < 2:
            print("debian-evidence: --registered-only needs a file (debian-system/registered-only)",
                  file=sys.stderr)
            return 2
        marks_path, argv = argv[1], argv[2:]
    if not argv or any("=" not in a for a in argv) or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if argv and argv[0] not in ("-h", "--help") else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        marks = registered_only(marks_path)
    except OSError as e:
        print("debian-evidence: cannot read the registered-only list %s: %s" % (marks_path, e), file=sys.stderr)
        return 2
    except ValueError as e:
        print("debian-evidence: %s" % e, file=sys.stderr)
        return 2
    kernels, data = [], {}
    for arg in argv:
        k, path = arg.split("=", 1)
        if not k or k in data:
            print("debian-evidence: kernel name '%s' empty or given twice" % k, file=sys.stderr)
            return 2
        try:
            data[k] = read(path)
        except OSError as e:
            print("debian-evidence: cannot read %s: %s" % (path, e), file=sys.stderr)
            return 2
        if not data[k][1]:
            print("debian-evidence: %s (%s) has no debian-subsys test result" % (path, k), file=sys.stderr)
            return 1
        kernels.append(k)
    order = []
    for k in kernels:
        for key in data[k][0]:
            if key not in order:
                order.append(key)
    tests = []
    for k in kernels:
        for t in data[k][1]:
            if t not in tests:
                tests.append(t)
    first = {key: i for i, key in enumerate(order)}
    order.sort(key=lambda key: (tests.index(key[0]), first[key]))
    print("| test | shrinker | " + " | ".join(kernels) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in kernels) + " |")
    refused, shown = [], []
    for test, name in order:
        short = test.split(".", 1)[1]
        why = marks.get((short, name))
        if why is not None:
            shown.append((short, name, why))
        cells = []
        for k in kernels:
            rows, ktests = data[k]
            if (test, name) in rows:
                text, freed = rows[(test, name)]
                if freed:
                    cells.append(text)
                elif why is not None:
                    cells.append(text + ", registered only")
                else:
                    cells.append(text + ", **freed nothing**")
                    refused.append("%s %s on %s (%s)" % (short, name, k, text))
            elif not rows:
                cells.append("no shrinker debugfs")
            elif test not in ktests:
                cells.append("test not run")
            else:
                cells.append("**not seen**")
        print("| %s | `%s` | %s |" % (short, name, " | ".join(cells)))
    if shown:
        print("\nRegistered only (%s): the test shows these registered, not freeing:\n" % os.path.relpath(marks_path))
        for short, name, why in shown:
            print("- %s `%s`: %s" % (short, name, why))
    for r in refused:
        print("debian-evidence: %s: freed nothing, and %s does not mark it registered only: "
              "drive the shrinker until it frees, or mark the row with the reason" % (r, marks_path),
              file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
