#!/usr/bin/python3
"""Reject awk that only GNU awk runs, in the scripts that run on the host.

Usage: tools/lint/awk.py [FILE...]   (default: every host-side script)
       tools/lint/awk.py --list-shell [DIR...]   (the shell scripts make lint
                                                  gives shellcheck)

Debian 12's default awk is mawk 1.3.4 (20200120). Its regular expressions
have no {m,n} intervals and no GNU escapes (\\s \\w \\y \\< \\>): such a regex
does not fail there, it silently matches something else. gawk's own
functions and variables do not exist there either. This extracts every awk
program of a shell script (awk '...' including multi-line ones) and prints
each construct that mawk does not run the way gawk does, as FILE:LINE.
The guest's scripts (rootfs-overlay/) are read too: qemu/mkinitramfs puts
the host's mawk into the initramfs as the guest's awk.
Exit: 0 clean, 1 findings, 2 usage.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST_GLOBS = ("tools", "qemu", "tests", ".ci", "rootfs-overlay")

CHECKS = [
    (re.compile(r"[^\s{;(]\{[0-9]+(,[0-9]*)?\}"),
     "regex interval {m,n}: mawk 1.3.4 matches it literally; "
     "repeat the atom or count with length()"),
    (re.compile(r"\\[sSwWyB<>`']"),
     "GNU regex escape: mawk has none; use a bracket expression "
     "such as [[:space:]] or [A-Za-z0-9_]"),
    (re.compile(r"\b(gensub|asorti?|patsplit|isarray|typeof|and|or|xor|"
                r"lshift|rshift|compl|mkbool|bindtextdomain|dcgettext)\s*\("),
     "gawk-only function"),
    (re.compile(r"\b(PROCINFO|IGNORECASE|BEGINFILE|ENDFILE|FPAT|FIELDWIDTHS|"
                r"BINMODE|LINT|TEXTDOMAIN|SYMTAB|FUNCTAB|ARGIND|ERRNO)\b"),
     "gawk-only variable or pattern"),
    (re.compile(r"@(include|load|namespace)\b|\*\*"),
     "gawk-only syntax"),
    (re.compile(r"\bmatch\s*\([^()]*(\([^()]*\)[^()]*)*,[^()]*,"),
     "match() with an array argument is gawk-only"),
]

AWK_CALL = re.compile(r"(?<![\w./-])(?:[gmn]?awk)\b")


def programs(text):
    """(line number, program text) for every awk '...' of a shell text."""
    for m in AWK_CALL.finditer(text):
        i = m.end()
        # skip options: -v x=y, -F x, -- (anything up to the first quote
        # on the same logical command line)
        j = i
        while j < len(text) and text[j] not in "'\n|;&)":
            if text[j] == "\\" and j + 1 < len(text) and text[j + 1] == "\n":
                j += 2
                continue
            j += 1
        if j >= len(text) or text[j] != "'":
            continue
        k = j + 1
        prog = []
        while True:
            e = text.find("'", k)
            if e < 0:
                break
            prog.append(text[k:e])
            # '\'' continues the same program with a quote in it
            if text.startswith("\\''", e + 1):
                prog.append("'")
                k = e + 4
                continue
            break
        yield text.count("\n", 0, j) + 1, "".join(prog)


def strip_strings(line):
    """The awk line without its "..." string literals, where a word like
    'or(' or a brace in a message is text, not code; regexes stay."""
    return re.sub(r'"(\\.|[^"\\])*"', '""', line)


def lint(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        print(f"{path}: cannot read: {e}", file=sys.stderr)
        return 1
    if text.startswith("#!") and "python" in text.split("\n", 1)[0]:
        return 0
    bad = 0
    for start, prog in programs(text):
        for n, line in enumerate(prog.split("\n")):
            code = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
            code = strip_strings(code)
            for rx, why in CHECKS:
                if rx.search(code):
                    rel = os.path.relpath(path, ROOT)
                    print(f"{rel}:{start + n}: {why}: {line.strip()}")
                    bad = 1
    return bad


def is_shell(path):
    """A shell script by its name: FILE.sh (or a guest library FILE.lib);
    any other extension is not; a name without one is if its first line
    says so (#! of sh or bash, or "# shellcheck shell=")."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext or name.startswith("."):
        return ext in (".sh", ".lib")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            first = f.readline()
    except OSError:
        return False
    return bool(re.match(r"#!\S*/(env )?(ba)?sh\b|#!/usr/bin/env (ba)?sh\b|# shellcheck shell=", first))


def shell_files(tops):
    """The shell scripts under the directories (or files) TOPS, fixtures
    and the broken variants' diffs left out."""
    out = []
    for top in tops:
        d = os.path.join(ROOT, top)
        if os.path.isfile(d):
            out += [d] if is_shell(d) else []
            continue
        for dirpath, _, names in os.walk(d):
            if "/fixtures" in dirpath or "/broken" in dirpath or "__pycache__" in dirpath:
                continue
            out += [os.path.join(dirpath, n) for n in names
                    if os.path.isfile(os.path.join(dirpath, n)) and is_shell(os.path.join(dirpath, n))]
    return sorted(out)


def host_files():
    return shell_files(HOST_GLOBS) + [os.path.join(ROOT, "Makefile")]


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    if argv[:1] == ["--list-shell"]:
        for p in shell_files(argv[1:] or HOST_GLOBS):
            print(os.path.relpath(p, ROOT))
        return 0
    files = argv or host_files()
    bad = 0
    for p in files:
        if not os.path.isfile(p):
            print(f"lint-awk: error: no file {p}", file=sys.stderr)
            return 2
        bad |= lint(p)
    if not bad:
        print(f"lint-awk: {len(files)} files, no GNU-only awk")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
