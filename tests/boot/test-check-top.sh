#!/usr/bin/env bash
# Tests of tools/boot/check-top.sh, make check-top's runner, and of its
# data, qemu/check-top.runs: with stub guest-test and control-off in a
# copy of the tools, the 8 runs get exactly the argument vectors the
# Makefile's check-top recipe gave them (written out below from that
# recipe, as make ran it: KASAN_CONTROL and LOCKDEP_CONTROL expanded, make's
# BRANCH and RACE_SECS in their places), in that order; the first run that
# fails stops the rest with its exit status; a bad line of the data or
# bad arguments exit 2 before any run. Nothing is built or booted.
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
cp "$here/qemu/check-top.runs" "$P/qemu/"
ct=$P/tools/boot/check-top.sh
calls=$t/calls
export S61_WORK=$t/work S61_CACHE=$t/cache
# The stubs log "NAME | ARG | ARG ..." (one line a run) and exit with
# $S61_TEST_FAIL_RC when their run is the $S61_TEST_FAIL_AT-th.
for name in guest-test control-off; do
	cat >"$P/tools/boot/$name.sh" <<'STUB'
#!/usr/bin/env bash
n=${0##*/}
line=${n%.sh}
for a; do line="$line | $a"; done
echo "$line" >>"$S61_TEST_CALLS"
[ "$(wc -l <"$S61_TEST_CALLS")" != "${S61_TEST_FAIL_AT:-0}" ] || exit "$S61_TEST_FAIL_RC"
STUB
	chmod +x "$P/tools/boot/$name.sh"
done
export S61_TEST_CALLS=$calls

# The Makefile's check-top recipe (before the runs became data), with
# BRANCH=TOP and RACE_SECS=60: one run a line, its command, then its
# arguments, each after " | ".
cat >"$t/want" <<'ARGV'
guest-test | --config | debug | --suites | smoke,kunit,lockless,races | --timeout | 1800 | --append | s61.race_secs=60 s61.test_timeout=900 | TOP
guest-test | --config | debug | --suites | controls | --only | kmemleak-leak | --timeout | 600 | --expect-splat | unreferenced object 0x[0-9a-f]+ \(size 256\): | --expect-in-splat | \] s61_leak_object(\.[a-z]+\.[0-9]+)?\+0x[0-9a-f]+/0x[0-9a-f]+ \[s61_shrinker_test\] | --expect-splat | kmemleak: 1 new suspected memory leaks | TOP
guest-test | --config | debug | --suites | controls | --only | kasan-uaf | --timeout | 600 | --append | s61.control=kasan | --allow-taint | B | --allow-lockdep-off | --expect-splat | BUG: KASAN: use-after-free in s61_kasan_uaf_write\+0x[0-9a-f]+/0x[0-9a-f]+ \[s61_shrinker_test\] | --expect-in-splat | Read of size 8 at addr [0-9a-f]+ by task  | --expect-in-splat | which belongs to the cache kmalloc-128 of size 128 | TOP
guest-test | --config | debug | --suites | controls | --only | lockdep-abba | --timeout | 600 | --append | s61.control=lockdep | --allow-lockdep-off | --expect-splat | WARNING: possible circular locking dependency detected | --expect-in-splat | \(s61_lock_a\) | --expect-in-splat | \(s61_lock_b\) | --expect-in-splat | at: s61_lockdep_abba_write\+0x | TOP
control-off | --off | CONFIG_KASAN | -- | --config | boot | --suites | controls | --only | kasan-uaf | --timeout | 600 | --append | s61.control=kasan | --allow-taint | B | --allow-lockdep-off | --expect-splat | BUG: KASAN: use-after-free in s61_kasan_uaf_write\+0x[0-9a-f]+/0x[0-9a-f]+ \[s61_shrinker_test\] | --expect-in-splat | Read of size 8 at addr [0-9a-f]+ by task  | --expect-in-splat | which belongs to the cache kmalloc-128 of size 128 | TOP
control-off | --off | CONFIG_LOCKDEP | -- | --config | boot | --suites | controls | --only | lockdep-abba | --timeout | 600 | --append | s61.control=lockdep | --allow-lockdep-off | --expect-splat | WARNING: possible circular locking dependency detected | --expect-in-splat | \(s61_lock_a\) | --expect-in-splat | \(s61_lock_b\) | --expect-in-splat | at: s61_lockdep_abba_write\+0x | TOP
guest-test | --config | boot | --suites | lockless | --only | nokmem-umount | --append | cgroup.memory=nokmem | TOP
guest-test | --config | boot | --suites | lockless | base
ARGV

: >"$calls"
check "the 8 runs pass: exit 0" "$ct" TOP 60
expect "... exactly the Makefile recipe's argument vectors, in its order" diff "$t/want" "$calls"
expect "... each printed before it runs" test "$(grep -c '^tools/boot/\(guest-test\|control-off\)\.sh ' "$t/out")" = 8

# The race seconds and the branch are make's.
: >"$calls"
check "another branch and race time" "$ct" other 7
expect "... the race run gets s61.race_secs=7" grep -qF 'guest-test | --config | debug | --suites | smoke,kunit,lockless,races | --timeout | 1800 | --append | s61.race_secs=7 s61.test_timeout=900 | other' "$calls"
expect "... base stays base" test "$(tail -1 "$calls")" = 'guest-test | --config | boot | --suites | lockless | base'

# --dry-run: the same lines, nothing run; the words as the shell takes them.
: >"$calls"
check "--dry-run: exit 0" "$ct" --dry-run TOP 60
expect "... runs nothing" test ! -s "$calls"
while IFS= read -r l; do
	eval "set -- $l"
	n=${1##*/}
	line=${n%.sh}
	shift
	for a; do line="$line | $a"; done
	echo "$line"
done <"$t/out" >"$t/dry"
expect "... prints each run, quoted so that the shell reads the same vectors" diff "$t/want" "$t/dry"

# The first failure stops the rest, with its exit status (make stopped at
# the first failed line of the recipe).
: >"$calls"
S61_TEST_FAIL_AT=3 S61_TEST_FAIL_RC=5 "$ct" TOP 60 >"$t/out" 2>&1
rc=$?
expect "run 3 failing: exit 5, its status" test "$rc" = 5
expect "... runs 4 to 8 did not run" test "$(wc -l <"$calls")" = 3
expect "... says which run failed" out_has "run 3 (tools/boot/guest-test.sh) failed (exit 5)"

# Bad arguments and bad data: exit 2, nothing run.
: >"$calls"
expect "no arguments: exit 2" rc_is 2 "$ct"
expect "an empty branch: exit 2" rc_is 2 "$ct" '' 60
expect "an unknown option: exit 2" rc_is 2 "$ct" --frob TOP 60
# shellcheck disable=SC2016  # a variable of the data, not of this shell
echo 'guest-test --config boot $NOSUCH' >"$t/bad1"
expect "an unknown variable: exit 2" rc_is 2 "$ct" --runs "$t/bad1" TOP 60
expect "... naming it" out_has "unknown variable in '\$NOSUCH'"
printf 'rm -rf /\n' >"$t/bad2"
expect "a command that is not one of tools/boot/: exit 2" rc_is 2 "$ct" --runs "$t/bad2" TOP 60
printf "guest-test --append 'unclosed\n" >"$t/bad3"
expect "an unclosed quote: exit 2" rc_is 2 "$ct" --runs "$t/bad3" TOP 60
printf '\t--config boot\n' >"$t/bad4"
expect "an indented first line: exit 2" rc_is 2 "$ct" --runs "$t/bad4" TOP 60
expect "... and none of these ran anything" test ! -s "$calls"

# make check-top calls it with BRANCH and RACE_SECS (make -n: no run).
(cd "$here" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -n check-top BRANCH=TOP RACE_SECS=60 2>/dev/null) >"$t/n.out"
expect "make check-top runs tools/boot/check-top.sh TOP 60" grep -qx 'tools/boot/check-top.sh TOP 60' "$t/n.out"

echo "1..$((pass + fail))"
echo "check-top-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
