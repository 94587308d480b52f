#!/usr/bin/env bash
# Tests of tools/debian/broken.sh (a broken kernel as a Debian package, seen
# failing the Debian suites): the line of debian-system/broken-variants,
# the verdict from tools/debian/boot.sh's exit and the run's result.ktap (each
# named test failed by its own assertion), the record (what caught it, the
# stack id: the checkout must be the stack of patches/, tools/stack/stack.sh
# status, a stub here), and bad input. tools/debian/deb.sh, tools/debian/image.sh and
# tools/debian/boot.sh are stubs (nothing is built or booted); the packages are
# real .debs with nothing in them but their control fields.
#
# Each check was seen to fail on a deliberately broken variant of the tool,
# named in a comment above it as "broken on: ..." (a comment covers the
# checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
cp "$here/branch-stack.txt" "$P/"
export S61_CACHE=$t/cache S61_WORK=$P/.work
mkdir -p "$P/tests/broken" "$P/debian-system" "$P/docs" "$t/debs"
echo '# s61-broken: planted.' >"$P/tests/broken/v-one.diff"
echo '# s61-broken: planted.' >"$P/tests/broken/v-two.diff"
cat >"$P/debian-system/broken-variants" <<'EOF'
# NAME TESTS OPTIONS
v-one  debian-subsys.binder  --suites debian-subsys --only binder
v-two  debian-subsys.binder,debian-bench.dp1  --suites debian-subsys,debian-bench
v-bad  binder  --suites debian-subsys
v-quote  debian-subsys.binder  --append "a b"
v-noopt  debian-subsys.binder
v-nosuites  debian-subsys.binder  --only binder
EOF
calls=$t/calls
# mkdeb PACKAGE VERSION: a .deb of that name and version in $t/debs.
mkdeb() {
	local r=$t/pkg/$1
	mkdir -p "$r/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' "$1" "$2" >"$r/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$r" "$t/debs/${1}_${2}_amd64.deb" >/dev/null
}
V=6.1.192-3+s61brk.0123abcd.v.one
mkdeb linux-image-6.1.192-s61brk "$V"
mkdeb s61-testmod-6.1.192-s61brk "$V"
mkdeb linux-headers-6.1.192-s61brk "$V"
KDEB=$t/debs/linux-image-6.1.192-s61brk_${V}_amd64.deb
TDEB=$t/debs/s61-testmod-6.1.192-s61brk_${V}_amd64.deb
# The stubs: each logs its arguments. debian-deb prints STUB_DEBS (default:
# the three packages); debian-image prints an image; debian-boot writes
# STUB_KTAP (printf %b) as the run's result.ktap and exits STUB_RC.
cat >"$P/tools/debian/deb.sh" <<EOF
#!/usr/bin/env bash
echo "debian-deb \$*" >>"$calls"
echo "debian-deb: building" >&2
printf '%s\n' \${STUB_DEBS-$t/debs/*.deb}
EOF
stub_debian_image
cat >"$P/tools/debian/boot.sh" <<EOF
#!/usr/bin/env bash
echo "debian-boot \$*" >>"$calls"
out=
while [ \$# -gt 0 ]; do [ "\$1" != --out ] || out=\$2; shift; done
mkdir -p "\$out"
[ -z "\${STUB_KTAP:-}" ] || printf '%b\n' "\$STUB_KTAP" >"\$out/result.ktap"
exit \${STUB_RC:-0}
EOF
# tools/stack/stack.sh: "status" prints STUB_STATUS (default: every branch
# exported) and exits STUB_STATUS_RC (default 0).
cat >"$P/tools/stack/stack.sh" <<'EOF'
#!/usr/bin/env bash
[ "$1" = status ] || { echo "stub tools/stack/stack.sh: only status" >&2; exit 2; }
printf '%b\n' "${STUB_STATUS:-BRANCH COMMITS STATE\nprep 1 exported}"
exit "${STUB_STATUS_RC:-0}"
EOF
chmod +x "$P/tools/debian/deb.sh" "$P/tools/debian/boot.sh" "$P/tools/stack/stack.sh"
sid=$(cd "$P" && bash -c '. tools/lib/lib.sh && stack_id')
db=$P/tools/debian/broken.sh
rec=$P/docs/debian-broken.tsv
verdict() { awk -F'\t' -v n="$1" '$1 == n { print $4 }' "$rec"; }
# field NAME N: field N of NAME's record line.
field() { awk -F'\t' -v n="$1" -v i="$2" '$1 == n { print $i }' "$rec"; }
run() {
	: >"$calls"
	"$db" "$@" >"$t/o" 2>&1
	echo $? >"$t/rc"
}
rc() { [ "$(cat "$t/rc")" = "$1" ]; }
KTAP_FAIL='KTAP version 1\n1..1\n# FAIL: no binder page off the LRU\nnot ok 1 debian-subsys.binder\ns61-exit: 1'
KTAP_PASS='KTAP version 1\n1..1\nok 1 debian-subsys.binder\ns61-exit: 0'

# --- bad input: exit 2, nothing built or booted -----------------------------
# broken on: each refusal below removed (the run went on to build; exit 0/1).
run
check "no variant: exit 2, the way out named" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'debian-system/broken-variants' '$t/o'"
run v-none
check "a variant without its diff: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'no tests/broken/v-none.diff' '$t/o'"
echo '# s61-broken: planted.' >"$P/tests/broken/v-three.diff"
run v-three
check "a diff without a line: exit 2, the lines there named" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'v-three has no line.*v-one v-two' '$t/o'"
for v in v-bad v-quote v-noopt v-nosuites; do echo '# s61-broken: planted.' >"$P/tests/broken/$v.diff"; done
run v-bad
check "a test that is not SUITE.NAME: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q \"'binder' of v-bad is not a Debian test\" '$t/o'"
run v-quote
check "a quote in the options: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'has a quote' '$t/o'"
run v-noopt
check "a line without options: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'has no tools/debian/boot.sh options' '$t/o'"
run v-nosuites
# broken on: a line without --suites taken (debian-smoke would then be the
# only suite asked for, and the line's own tests would not run).
check "a line without --suites: exit 2, nothing booted" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'has no --suites' '$t/o' && ! grep -q '^debian-boot' '$calls'"
run --deb "$t/none.deb" v-one
check "--deb of a missing file: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'no such file' '$t/o'"
run v-one v-two
check "two variants: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'one variant at a time' '$t/o'"
check "... nothing built, imaged or booted by any refusal" test ! -s "$calls"
check "... and nothing recorded" test ! -e "$rec"

# --- caught -------------------------------------------------------------------
STUB_RC=1 STUB_KTAP=$KTAP_FAIL run v-one
expect "the run failed with the named test: exit 0, caught" rc 0
check "... recorded caught, with the stack, what caught it, the failed test and the version" \
	bash -c "grep -q \$'^v-one\t[0-9a-f]\{12\}\t$sid\tcaught\tassertion: debian-subsys.binder: no binder page off the LRU\tdebian-subsys.binder\t$V\t' '$rec'"
check "... built with debian-deb --broken v-one" grep -qx 'debian-deb --broken v-one' "$calls"
# broken on: the testmod package left out of the image.
check "... the image holds the kernel and its test-module package only" \
	grep -qx "debian-image --deb $KDEB $TDEB" "$calls"
# broken on: --target top dropped (judged as Debian's own kernel, whose
# manifest accepts dp1's SKIP); on debian-smoke not added (with_debian_smoke
# not called: the run never looks at the shrinker debugfs).
check "... booted as the top under config debian-s61, its kernel, the line's options" \
	bash -c "grep -q -- '^debian-boot --image $t/disk.img --kver 6.1.192-s61brk --target top --config debian-s61 .* --suites debian-subsys,debian-smoke --only binder,shrinker-debugfs\$' '$calls'"

# --- missed and error -----------------------------------------------------------
STUB_RC=0 STUB_KTAP=$KTAP_PASS run v-one
expect "the run passed: exit 1, MISSED" rc 1
# broken on: debian-boot's exit 0 not looked at (the result alone judged).
STUB_RC=0 STUB_KTAP=$KTAP_FAIL run v-one
expect "debian-boot passed the run, whatever its result file says: exit 1" rc 1
check "... MISSED: the run passed" grep -q 'MISSED: the run passed' "$t/o"
STUB_RC=0 STUB_KTAP=$KTAP_PASS run v-one
# broken on: the record appended to, not the variant's line replaced.
check "... recorded MISSED, one line per variant" \
	bash -c "[ \"\$(grep -c '^v-one' '$rec')\" = 1 ] && [ \"\$(awk -F'\t' '\$1 == \"v-one\" { print \$4 }' '$rec')\" = MISSED ]"
# broken on: the named tests not looked for (any failed run was caught).
# broken on: only the first named test looked for.
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..2\n# FAIL: no page\nnot ok 1 debian-subsys.binder\nok 2 debian-bench.dp1\ns61-exit: 1' run v-two
expect "failed, but one named test passed: exit 1" rc 1
check "... MISSED, naming the test that did not fail" \
	bash -c "[ \"\$(awk -F'\t' '\$1 == \"v-two\" { print \$4 }' '$rec')\" = MISSED ] && grep -q 'debian-bench.dp1 is not among its failures' '$t/o'"
# broken on: any non-zero exit of debian-boot counted as a judged failure.
STUB_RC=2 STUB_KTAP=$KTAP_FAIL run v-one
expect "a hang or crash (debian-boot exit 2): exit 1" rc 1
check "... recorded error, not caught" test "$(verdict v-one)" = error
# broken on: the kernel package looked for by "linux-image-*" (the headers
# package is not it: here there is none of the kernel).
STUB_DEBS="$TDEB $t/debs/linux-headers-6.1.192-s61brk_${V}_amd64.deb" run v-one
expect "no kernel package built: exit 1" rc 1
check "... error naming it, nothing booted" \
	bash -c "[ \"\$(awk -F'\t' '\$1 == \"v-one\" { print \$4 }' '$rec')\" = error ] && grep -q 'no linux-image-\*-s61brk' '$t/o' && ! grep -q '^debian-boot' '$calls'"
STUB_DEBS=$KDEB run v-one
expect "no test-module package beside it: exit 1" rc 1
check "... error, nothing booted" bash -c "grep -q 'no s61-testmod-6.1.192-s61brk' '$t/o' && ! grep -q '^debian-boot' '$calls'"

# --- given packages -----------------------------------------------------------
STUB_RC=1 STUB_KTAP=$KTAP_FAIL run --deb "$KDEB" "$TDEB" v-one
expect "--deb: caught" rc 0
check "... nothing built" bash -c "! grep -q '^debian-deb' '$calls'"
check "... the record keeps one line per variant" \
	bash -c "[ \"\$(grep -c '^v-one' '$rec')\" = 1 ] && [ \"\$(grep -c '^v-two' '$rec')\" = 1 ] && head -1 '$rec' | grep -q '^# name'"

# --- what caught it ------------------------------------------------------------
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..1\n# FAIL: late\n# timed out after 1800s\nnot ok 1 debian-subsys.binder\ns61-exit: 1' run v-one
# broken on: a named test's "not ok" taken as its catch whatever failed it
# (the timeout branch judged like an assertion).
check "a named test not ok by a timeout: exit 1, MISSED" \
	bash -c "[ \$(cat '$t/rc') = 1 ] && [ '$(verdict v-one)' = MISSED ] && grep -q 'by no assertion of its own: debian-subsys.binder (timeout' '$t/o'"
check "... recorded as caught by the timeout" test "$(field v-one 5)" = 'timeout: debian-subsys.binder: timed out after 1800s'
STUB_RC=1 STUB_KTAP='KTAP version 1\n1..2\n# FAIL: no page\nnot ok 1 debian-subsys.binder\n# exit 139\nnot ok 2 debian-bench.dp1\ns61-exit: 1' run v-two
# broken on: caught_by of the first named test only.
check "two named tests: what caught each, '; '-separated" \
	bash -c "[ \$(cat '$t/rc') = 1 ] && [ '$(field v-two 5)' = 'assertion: debian-subsys.binder: no page; exit: debian-bench.dp1: exit 139' ]"

# --- the stack the record names ---------------------------------------------------
STUB_STATUS_RC=1 STUB_STATUS='BRANCH COMMITS STATE\nprep 2 NOT EXPORTED (tools/stack/stack.sh export)' run v-one
# broken on: the tools/stack/stack.sh status check removed (a build of a checkout
# that is not patches/ recorded with their stack id).
check "a build from a checkout that is not the stack of patches/: exit 2, nothing built" \
	bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'not the stack of patches/' '$t/o' && [ ! -s '$calls' ]"
STUB_STATUS='BRANCH COMMITS STATE\nprep 1 behind patches/ (tools/stack/stack.sh apply)' run v-one
# broken on: only status's exit read (behind is exit 0).
check "... or behind patches/: exit 2 too" bash -c "[ \$(cat '$t/rc') = 2 ] && [ ! -s '$calls' ]"
STUB_RC=1 STUB_KTAP=$KTAP_FAIL run --deb "$KDEB" "$TDEB" v-one
# broken on: given .debs recorded with today's stack id, unchecked.
check "--deb of a commit that is no checkout's top: the record names no stack, with a warning" \
	bash -c "[ '$(field v-one 3)' = - ] && grep -q 'not known to be of today.s stack' '$t/o'"
mkdir -p "$S61_WORK/linux"
git -C "$S61_WORK/linux" init -q
git -C "$S61_WORK/linux" -c user.name=t -c user.email=t@t commit -q --allow-empty -m top
top=$(cd "$P" && bash -c '. tools/lib/lib.sh && stack_top')
git -C "$S61_WORK/linux" branch -q "$top"
V2=6.1.192-3+s61brk.$(git -C "$S61_WORK/linux" rev-parse --short=8 HEAD).v.one
mkdeb linux-image-6.1.192-s61brk "$V2"
mkdeb s61-testmod-6.1.192-s61brk "$V2"
STUB_RC=1 STUB_KTAP=$KTAP_FAIL run --deb "$t/debs/linux-image-6.1.192-s61brk_${V2}_amd64.deb" "$t/debs/s61-testmod-6.1.192-s61brk_${V2}_amd64.deb" v-one
# broken on: given .debs never recorded with a stack id.
check "--deb of the top's commit, the checkout the stack of patches/: today's stack id" \
	bash -c "[ \$(cat '$t/rc') = 0 ] && [ '$(field v-one 3)' = '$sid' ]"
STUB_STATUS_RC=1 STUB_RC=1 STUB_KTAP=$KTAP_FAIL run --deb "$t/debs/linux-image-6.1.192-s61brk_${V2}_amd64.deb" "$t/debs/s61-testmod-6.1.192-s61brk_${V2}_amd64.deb" v-one
# broken on: the checkout's state not asked for given .debs.
check "... but not while the checkout is not patches/" test "$(field v-one 3)" = -

echo "1..$((pass + fail))"
echo "# debian-broken: $pass passed, $fail failed"
[ "$fail" = 0 ]
