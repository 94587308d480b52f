#!/usr/bin/env bash
# Tests of .ci/run and of the Makefile's guard of check-top (issue #29), in a
# copy of the project: .ci/run with a stub make on PATH that prints a
# recorded make check output and exits as told, for its closing count
# (tools/lib/tally.sh) and the BRANCH and RACE_SECS it pins; then the real make on
# the copied Makefile with stub tools/build/deps.sh, tools/stack/stack.sh and tools/boot/guest-test.sh
# for check-top's refusal of a BRANCH that is not the top. Nothing is built
# or booted. Each check names the broken variant it was seen failing on
# ("old": .ci/run and the Makefile before issue #29).
set -u
# Run from 'make check' (under .ci/run, which pins BRANCH on make's command
# line), this test inherits that make's variables through MAKEFLAGS; the
# makes it runs on the copied project must see only what each check sets.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES BRANCH RACE_SECS
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
real_make=$(command -v make) || { echo "1..0 # SKIP no make"; exit 0; }
new_project
mkdir -p "$P/.ci" "$t/bin"
cp "$here/.ci/run" "$P/.ci/run"
cp "$here/Makefile" "$P/Makefile"
cp "$here/qemu/check-top.runs" "$P/qemu/"
printf 'base linux-source-6.1 1.0-1\none\ntwo core\n' >"$P/branch-stack.txt"
calls=$t/make.calls
cat >"$t/bin/make" <<EOF
#!/usr/bin/env bash
echo "args: \$*" >>"$calls"
echo "env: BRANCH=\${BRANCH-unset} RACE_SECS=\${RACE_SECS-unset}" >>"$calls"
cat "$t/make.out"
exit "\${MAKE_RC:-0}"
EOF
chmod +x "$t/bin/make"
# ci [MAKE_RC]: .ci/run with make's output from stdin; its output in
# $t/ci.out, its exit status in $ci_rc.
ci() {
	cat >"$t/make.out"
	: >"$calls"
	PATH=$t/bin:$PATH MAKE_RC=${1:-0} S61_CI_MINUTES=0 "$P/.ci/run" >"$t/ci.out" 2>&1
	ci_rc=$?
}
closing() { test "$(tail -1 "$t/ci.out")" = "$1"; }

# A recorded passing make check (formats as the tools print them: a test
# script's line, checkpatch's, the boot test's, a guest run's with its
# XFAIL row, a quoted log tail that is not counted).
ci <<'EOF'
stack-tests: 39 passed, 0 failed
checkpatch: 53 passed, 0 failed (53 patches, 4 findings excused by tools/stack/checkpatch-exceptions.txt)
boot-test: skipped (CI time limit, not in the kernel cache; make boot-test tests them): conv-fs
boot-test: 64 passed, 0 failed, 1 skipped, 0 xfail
    5 passed, 0 failed, 0 skipped
10 passed, 0 failed, 1 skipped
  XFAIL   2 lockless.blocked-shrinker-mount  (the scan blocks every mount: 30 s)
1 passed, 0 failed, 1 skipped, 1 xfail
make check: all passed
EOF
check "a passing run exits 0" test $ci_rc = 0
check "... every count line added up, the quoted tail not" closing "167 passed, 0 failed, 3 skipped"
# Broken on: old (it printed "(the old stall, expected on base)" for any).
check "... the xfail line gives the run's own reason" \
	grep -qx "ci:   XFAIL   2 lockless.blocked-shrinker-mount  (the scan blocks every mount: 30 s)" "$t/ci.out"
check "... and the count" grep -qx "ci: 1 xfail" "$t/ci.out"
check_fails "... no reason of its own" grep -q "old stall" "$t/ci.out"

# A label with spaces. Broken on: old (dropped the line: 0 passed, 0 failed).
ci 1 <<'EOF'
coverage tool tests: 8 passed, 3 failed
EOF
check "a label with spaces is counted" closing "8 passed, 3 failed, 0 skipped"

# A result not as expected is a failure, not a skip. Broken on: old
# ("4 passed, 0 failed, 1 skipped").
ci 1 <<'EOF'
4 passed, 0 failed, 1 skipped, 1 not as expected
EOF
check "a result not as expected counts as failed" closing "4 passed, 1 failed, 0 skipped"
# A failed test is among those not as expected too: counted once.
ci 1 <<'EOF'
3 passed, 1 failed, 1 skipped, 1 xfail, 2 not as expected
EOF
check "... a failed test among them once" closing "3 passed, 2 failed, 0 skipped"
check "... the xfail kept" grep -qx "ci: 1 xfail" "$t/ci.out"

# A failed make check whose output counts no failure (a build that broke
# before any test ran). Broken on: old ("0 failed" with exit 2).
ci 2 <<'EOF'
stack-tests: 39 passed, 0 failed
kbuild: error: build failed for base
make: *** [Makefile:140: boot-test] Error 1
EOF
check "a failed run with no failure counted exits as make did" test $ci_rc = 2
check "... and counts one failure" closing "39 passed, 1 failed, 0 skipped"
check "... says why" grep -q "^ci: make check failed (exit 2) with no failed test counted" "$t/ci.out"

# .ci/run pins BRANCH and RACE_SECS on make's command line, whatever the
# environment says. Broken on: old (make check with no arguments).
: >"$t/make.out"
: >"$calls"
PATH=$t/bin:$PATH BRANCH=base RACE_SECS=1 S61_CI_MINUTES=0 "$P/.ci/run" >"$t/ci.out" 2>&1
check "CI passes the top and 60 s to make" grep -qx "args: check BRANCH=two RACE_SECS=60" "$calls"
# ... and make takes them over the environment: the recipes check-top runs.
args=$(sed -n 's/^args: //p' "$calls")
read -r -a args <<<"$args"
(cd "$P" && BRANCH=base RACE_SECS=1 "$real_make" -n "${args[@]/#check/check-top}") >"$t/n.out" 2>&1
check "... check-top's runs get the top and 60 s" grep -qx 'tools/boot/check-top.sh two 60' "$t/n.out"
"$P/tools/boot/check-top.sh" --dry-run two 60 >"$t/n.out" 2>&1
check "... its race run boots the top for 60 s" \
	grep -q " --append 's61.race_secs=60 s61.test_timeout=900' two$" "$t/n.out"
check "... its kmemleak control the top" grep -q "new suspected memory leaks' two$" "$t/n.out"

# check-top (and check) refuse a BRANCH that is not the top, before any
# work. Stub tools log their calls. Broken on: old (check-top ran on base).
for tool in tools/build/deps.sh tools/stack/stack.sh tools/boot/guest-test.sh tools/boot/control-off.sh; do
	name=${tool##*/}
	printf '#!/usr/bin/env bash\necho "%s $*" >>"%s"\n' "${name%.sh}" "$t/tool.calls" >"$P/$tool"
done
: >"$t/tool.calls"
check_fails "check-top refuses BRANCH=base from the environment" \
	env -C "$P" BRANCH=base "$real_make" check-top
expect "... says what it tests" out_has "check-top tests the top of the stack (two), not BRANCH=base"
expect "... and boots nothing" test ! -s "$t/tool.calls"
check_fails "make check refuses it before any other work" env -C "$P" "$real_make" check BRANCH=one
expect "... nothing ran" test ! -s "$t/tool.calls"
: >"$t/tool.calls"
check "check-top runs on the top" env -C "$P" "$real_make" check-top
expect "... the debug run, the three controls and nokmem on the top, base last" \
	test "$(grep '^guest-test' "$t/tool.calls" | awk '{ print $NF }' | tr '\n' ' ')" = "two two two two two base "
# Broken on: a Makefile whose control-off runs went to the debug config.
expect "... the KASAN and lockdep controls again on the boot kernel of the top, off" \
	test "$(grep '^control-off' "$t/tool.calls" | awk '{ print $2, $3, $5, $6, $NF }' | tr '\n' ' ')" = \
	"--off CONFIG_KASAN --config boot two --off CONFIG_LOCKDEP --config boot two "

echo "1..$((pass + fail))"
echo "ci-run-tests: $pass passed, $fail failed"
[ $fail = 0 ]
