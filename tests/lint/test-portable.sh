#!/usr/bin/env bash
# The tools on the awk a fresh Debian 12 has: mawk 1.3.4 (no regex
# intervals, no GNU escapes), not the gawk that earlier work may have left
# on a machine (issue #25: tools/stack/checkpatch.sh failed 48 of 53 patches there).
# 1. tools/lint/awk.py finds no GNU-only awk in the host's or the guest's
#    scripts, and finds it in tools/stack/checkpatch.sh as of b390922;
# 2. checkpatch's long-line exception, run under mawk itself (and gawk when
#    this machine has it), accepts exactly the one-line upstream reference;
#    the b390922 version fails here under mawk.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
fx=$here/tests/fixtures/portable
old=$fx/checkpatch-b390922.sh

check "lint-awk: no GNU-only awk in tools/, qemu/, tests/, .ci/, rootfs-overlay/" "$here/tools/lint/awk.py"
check_fails "lint-awk: flags the b390922 checkpatch (broken variant: checkpatch-b390922)" "$here/tools/lint/awk.py" "$old"
expect "  ... naming the interval" out_has "regex interval"
check_fails "lint-awk: flags an interval, a GNU escape and a gawk function" "$here/tools/lint/awk.py" "$fx/gnu-awk.sh"
expect "  ... each of the three lines" bash -c "[ \$(grep -c '^' '$t/out') = 3 ]"
check "lint-awk: passes POSIX awk (blocks, strings, bracket expressions)" "$here/tools/lint/awk.py" "$fx/posix-awk.sh"
check_fails "lint-awk: a missing file is a usage error" "$here/tools/lint/awk.py" "$t/none"

# Patches whose messages hold long lines of each kind.
mkpatch() { # NAME LONG-LINE
	printf 'From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] mm: x\n\nWhy.\n\n%s\n\nSigned-off-by: A <a@b>\n---\n %s\n' \
		"$2" "$(printf 'x%.0s' $(seq 1 90))" >"$t/$1.patch"
}
title='("mm: shrinker: add a secondary array for shrinker_info::{map, nr_deferred}"),'
mkpatch ref "Upstream commit 307bececcd12 $title"
mkpatch ref40 "Upstream commit 307bececcd1204d1d4d0fa0bdbb8e87c7e6f7b5e $title"
mkpatch short "Upstream commit 307bececcd1 $title"
mkpatch long41 "Upstream commit 307bececcd1204d1d4d0fa0bdbb8e87c7e6f7b5e0 $title"
mkpatch prose "This sentence is simply too long for a commit message body and checkpatch is right."
mkpatch short-ok "Upstream commit 307bececcd12 (\"mm: x\"),"

fn() { sed -n '/^only_upstream_long() {/,/^}/p' "$1"; }
# run_with AWK FUNCTION-FILE PATCH: the function from that file, with "awk" being AWK
run_with() {
	bash -c 'awk() { "$AWK_BIN" "$@"; }; eval "$(cat "$1")"; only_upstream_long "$2"' \
		run "$2" "$3"
}
fn "$here/tools/stack/checkpatch.sh" >"$t/new.fn"
fn "$old" >"$t/old.fn"
check "the function is found in tools/stack/checkpatch.sh" test -s "$t/new.fn"
awks=(mawk)
if command -v gawk >/dev/null; then awks+=(gawk); fi
for a in "${awks[@]}"; do
	export AWK_BIN=$a
	check "$a: a 12-digit one-line upstream reference is accepted" run_with "$a" "$t/new.fn" "$t/ref.patch"
	check "$a: a 40-digit reference is accepted" run_with "$a" "$t/new.fn" "$t/ref40.patch"
	check_fails "$a: an 11-digit id is not a reference" run_with "$a" "$t/new.fn" "$t/short.patch"
	check_fails "$a: a 41-digit id is not a reference" run_with "$a" "$t/new.fn" "$t/long41.patch"
	check_fails "$a: any other long line fails" run_with "$a" "$t/new.fn" "$t/prose.patch"
	check "$a: long lines below --- do not count" run_with "$a" "$t/new.fn" "$t/short-ok.patch"
done
export AWK_BIN=mawk
check_fails "mawk: the b390922 function rejects a good reference (broken variant: checkpatch-b390922)" \
	run_with mawk "$t/old.fn" "$t/ref.patch"

echo "1..$((pass + fail))"
echo "portable-tests: $pass passed, $fail failed"
[ $fail = 0 ]
