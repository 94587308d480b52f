#!/usr/bin/env bash
# Tests of tools/stack/bisect.sh on a tiny synthetic repository of 12 linear commits:
# commit 7 makes ./check fail, commit 9 breaks ./build (commit 10 fixes it).
# First bad commit found with the unbuildable one skipped, checkout restored
# (branch or detached), no bisect state left, refusals (dirty, bisect or am in
# progress, bad arguments), a hanging step killed by --timeout and counted
# bad, only-skipped-left (exit 2), a test that dirties the tree, and SIGTERM.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
bisect=$here/tools/stack/bisect.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export S61_WORK=$t/work S61_CACHE=$t/cache

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

R=$t/repo
g() { git -C "$R" "$@"; }
c=()
mkdir -p "$R"
g init -q -b main
g config user.name t; g config user.email t@t
printf '#!/bin/sh\nexit 0\n' >"$R/build"
printf '#!/bin/sh\nexit 0\n' >"$R/check"
chmod +x "$R/build" "$R/check"
for i in $(seq 1 12); do
	echo "$i" >"$R/n"
	subject="c$i: step $i"
	case $i in
	7) printf '#!/bin/sh\nexit 1\n' >"$R/check"; subject="c7: the regression" ;;
	9) printf '#!/bin/sh\nexit 1\n' >"$R/build"; subject="c9: break the build" ;;
	10) printf '#!/bin/sh\nexit 0\n' >"$R/build"; subject="c10: fix the build" ;;
	esac
	g add -A; g commit -qm "$subject"
	c[i]=$(g rev-parse HEAD)
done
good=${c[1]} bad=${c[12]}
TEST=(sh -c './build || exit 125; ./check')

state() { echo "$(g symbolic-ref -q HEAD || echo detached) $(g rev-parse HEAD)"; }
no_bisect_left() {
	[ -z "$(g for-each-ref refs/bisect)" ] && [ ! -e "$(g rev-parse --absolute-git-dir)/BISECT_START" ]
}
heads() { g for-each-ref --format='%(refname) %(objectname)' refs/heads; }
no_proc() { ! pgrep -fx "$1" >/dev/null; }

# Arguments.
check "--help" "$bisect" --help
expect "--help shows the usage" out_has "Usage: tools/stack/bisect.sh"
check_fails "GOOD and BAD are required" "$bisect" --repo "$R" "$good" -- true
check_fails "--repo without a TEST-CMD is refused" "$bisect" --repo "$R" "$good" "$bad"
check_fails "--suites with a TEST-CMD is refused" "$bisect" --repo "$R" --suites smoke "$good" "$bad" -- true
check_fails "a TEST-CMD that does not exist is refused" "$bisect" --repo "$R" "$good" "$bad" -- ./no-such-test
check_fails "swapped GOOD and BAD are refused" "$bisect" --repo "$R" "$bad" "$good" -- "${TEST[@]}"
check_fails "a bad --timeout is refused" "$bisect" --repo "$R" --timeout 1x "$good" "$bad" -- "${TEST[@]}"

# The bisection itself.
before=$(state) heads_before=$(heads)
"$bisect" --repo "$R" "$good" "$bad" -- "${TEST[@]}" >"$t/out" 2>"$t/err"
rc=$?
cat "$t/err" >>"$t/out"
expect "bisect exits 0" test $rc = 0
expect "names commit 7 as the first bad commit" out_has "^first bad commit: ${c[7]} c7: the regression"
expect "the unbuildable commit 9 was skipped" out_has "^  git bisect skip ${c[9]}"
expect "stdout has the bisect log" grep -q "^  # first bad commit: \[${c[7]}\]" "$t/out"
expect "branch and HEAD as before" test "$(state)" = "$before"
expect "no refs/bisect or BISECT_START left" no_bisect_left
expect "no branch moved or deleted" test "$(heads)" = "$heads_before"
logs=("$S61_WORK"/logs/bisect-*.log)
expect "log saved in \$S61_WORK/logs" grep -q "^# first bad commit: \[${c[7]}\]" "${logs[0]}"
expect "run output saved next to it" test -s "${logs[0]%.log}.out"

# Started on a detached HEAD: back on the same detached commit.
g checkout -q --detach "${c[11]}"
before=$(state)
check "bisect from a detached HEAD" "$bisect" --repo "$R" "$good" "$bad" -- "${TEST[@]}"
expect "still detached at the same commit" test "$(state)" = "$before"
expect "detached: no bisect state left" no_bisect_left
g checkout -q main

# Refusals: nothing may be started or changed.
echo dirty >>"$R/n"
before=$(state)
check_fails "a dirty checkout is refused" "$bisect" --repo "$R" "$good" "$bad" -- "${TEST[@]}"
expect "dirty: says why" out_has "uncommitted changes"
expect "dirty: nothing started, edit kept" bash -c "[ '$(state)' = '$before' ] && ! [ -e '$R/.git/BISECT_START' ] && grep -q dirty '$R/n'"
g checkout -q -- n
g bisect start "${c[12]}" "${c[1]}" >/dev/null 2>&1
mid=$(g rev-parse HEAD)
check_fails "a bisection in progress is refused" "$bisect" --repo "$R" "$good" "$bad" -- "${TEST[@]}"
expect "in progress: says why" out_has "already in progress"
expect "in progress: the user's bisection is left alone" bash -c "[ -e '$R/.git/BISECT_START' ] && [ \"\$(git -C '$R' rev-parse HEAD)\" = '$mid' ]"
g bisect reset main >/dev/null 2>&1
mkdir "$R/.git/rebase-apply"
check_fails "a git am in progress is refused" "$bisect" --repo "$R" "$good" "$bad" -- "${TEST[@]}"
rmdir "$R/.git/rebase-apply"

# A hanging step (under its own timeout in another process group, like qemu
# under qemu/run) is killed by --timeout, counted bad, and nothing survives.
before=$(state)
t0=$SECONDS
# shellcheck disable=SC2016  # expanded by sh -c
check "bisect with hanging steps" "$bisect" --repo "$R" --timeout 2 "$good" "$bad" -- \
	sh -c 'if [ "$(cat n)" -ge 7 ]; then timeout 900 sleep 987 & wait; fi; exit 0'
expect "hang: commit 7 (first that hangs) is the first bad commit" out_has "^first bad commit: ${c[7]}"
expect "hang: steps reported as timed out" out_has "timed out after 2s"
expect "hang: took seconds, not minutes ($((SECONDS - t0))s)" test $((SECONDS - t0)) -lt 20
expect "hang: no hanging process left behind" no_proc "sleep 987"
expect "hang: branch and HEAD as before" test "$(state)" = "$before"
expect "hang: no bisect state left" no_bisect_left

# Only skipped commits around the regression: exit 2 and the candidates.
# shellcheck disable=SC2016
"$bisect" --repo "$R" "$good" "$bad" -- \
	sh -c 'case $(cat n) in 6|7) exit 125 ;; esac; ./build || exit 125; ./check' >"$t/out" 2>&1
rc=$?
expect "only skipped left: exit 2" test $rc = 2
expect "only skipped left: commit 7 among the candidates" out_has "^  ${c[7]} c7: the regression"
expect "only skipped left: no bisect state left" no_bisect_left

# A test that modifies tracked files stops the run; its changes are stashed.
before=$(state)
check_fails "a test that dirties the checkout stops the bisection" "$bisect" --repo "$R" "$good" "$bad" -- \
	sh -c 'echo scribble >>n; ./check'
expect "dirtying test: says so" out_has "modified tracked files"
expect "dirtying test: branch and HEAD as before, tree clean" bash -c "[ '$(state)' = '$before' ] && [ -z \"\$(git -C '$R' status --porcelain --untracked-files=no)\" ]"
expect "dirtying test: the changes are in the stash" bash -c "git -C '$R' stash list | grep -q 'tools/stack/bisect.sh'"
expect "dirtying test: no bisect state left" no_bisect_left

# SIGTERM in the middle of a step: the step is ended, the checkout restored.
before=$(state)
"$bisect" --repo "$R" --timeout 60 "$good" "$bad" -- sh -c 'sleep 986; exit 0' >"$t/out" 2>&1 &
bpid=$!
for _ in $(seq 50); do
	no_proc "sleep 986" || break
	sleep 0.1
done
kill -TERM "$bpid"
wait "$bpid"
rc=$?
expect "SIGTERM: exits non-zero ($rc)" test "$rc" != 0
expect "SIGTERM: the step's processes are gone" no_proc "sleep 986"
expect "SIGTERM: branch and HEAD as before" test "$(state)" = "$before"
expect "SIGTERM: no bisect state left" no_bisect_left
expect "SIGTERM: the partial log is saved" out_has "bisect log saved to"

echo "bisect-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
