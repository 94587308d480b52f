#!/usr/bin/env bash
# Tests of tools/debian/debug-run.sh (the debug flavour's run on the Debian
# system, without the tests of debian-system/debug-left-out): the list and
# its refusals, the tests it runs, the package it picks, the target, the
# exit and the record. tools/debian/image.sh and tools/debian/boot.sh are stubs
# (nothing is booted); the packages are real .debs with nothing in them but
# their control fields; the suites' test files are the repository's.
#
# Each check was seen to fail on a deliberately broken variant of the tool,
# named in a comment above it as "broken on: ..." (a comment covers the
# checks up to the next one).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
export S61_CACHE=$t/cache S61_WORK=$P/.work
mkdir -p "$P/debian-system/overlay/s61" "$P/docs" "$t/debs" "$t/old"
cp -r "$here/debian-system/overlay/s61/tests" "$P/debian-system/overlay/s61/"
calls=$t/calls
mkdeb() { # PACKAGE VERSION DIR
	local r=$t/pkg/$1-$2
	mkdir -p "$r/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' "$1" "$2" >"$r/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$r" "$3/${1}_${2}_amd64.deb" >/dev/null
}
OLD=6.1.192-3+s61dbg.00000000
V=6.1.192-3+s61dbg.0123abcd
BV=6.1.192-3+s61basedbg
mkdeb linux-image-6.1.192-s61dbg "$OLD" "$t/debs"
mkdeb s61-testmod-6.1.192-s61dbg "$OLD" "$t/debs"
sleep 1
mkdeb linux-image-6.1.192-s61dbg "$V" "$t/debs"
mkdeb s61-testmod-6.1.192-s61dbg "$V" "$t/debs"
mkdeb linux-image-6.1.192-s61 6.1.192-3+s61.0123abcd "$t/debs"
mkdeb linux-image-6.1.192-s61basedbg "$BV" "$t/debs"
mkdeb s61-testmod-6.1.192-s61basedbg "$BV" "$t/debs"
# a test module of the kernel's name but of another version, the newest file
mkdeb s61-testmod-6.1.192-s61dbg 6.1.192-3+s61dbg.ffffffff "$t/debs"
touch -d '+1 min' "$t/debs/s61-testmod-6.1.192-s61dbg_6.1.192-3+s61dbg.ffffffff_amd64.deb"
KDEB=$t/debs/linux-image-6.1.192-s61dbg_${V}_amd64.deb
TDEB=$t/debs/s61-testmod-6.1.192-s61dbg_${V}_amd64.deb
stub_debian_image
# The stub writes STUB_KNOWN (unless unset) as OUT/known-splats, as
# tools/debian/boot.sh records the known splats and reports a run carried.
cat >"$P/tools/debian/boot.sh" <<EOF
#!/usr/bin/env bash
echo "debian-boot \$*" >>"$calls"
while [ \$# -gt 0 ]; do [ "\$1" != --out ] || o=\$2; shift; done
[ -z "\${STUB_KNOWN+x}" ] || { mkdir -p "\$o"; printf '%s' "\$STUB_KNOWN" >"\$o/known-splats"; }
exit \${STUB_RC:-0}
EOF
chmod +x "$P/tools/debian/boot.sh"
L=$P/debian-system/debug-left-out
GOOD='debian-subsys.gfs2  ae9f3bd8259a  "gfs2: replace sd_aspace with sd_inode"  its reason'
printf '# comment\n%s\n' "$GOOD" >"$L"
rec=$P/docs/debian-debug.tsv
run() {
	: >"$calls"
	"$P/tools/debian/debug-run.sh" "$@" >"$t/o" 2>&1
	echo $? >"$t/rc"
}
rc() { [ "$(cat "$t/rc")" = "$1" ]; }
only() { sed -n 's/^debian-boot .* --only \([^ ]*\) .*/\1/p' "$calls"; }

# --- the run of all but the left-out tests ------------------------------------
STUB_RC=0 run --debs "$t/debs"
expect "a passing run: exit 0" rc 0
# broken on: the left-out test kept in --only (its skip and the name check removed).
check "... gfs2 not among the tests it runs" bash -c "[[ ,\$(sed -n 's/.* --only \([^ ]*\) .*/\1/p' '$calls'), != *,gfs2,* ]]"
# broken on: only debian-subsys's tests listed (the loop over one suite).
check "... every other test of the three suites runs" \
	bash -c "o=,\$(sed -n 's/.* --only \([^ ]*\) .*/\1/p' '$calls'),; for n in systemd kernel shrinker-debugfs memcg-scopes tainted ext4 xfs f2fs erofs nfs dm-verity md-raid5 bcache zram binder virtio-balloon kvm-mmu dboot dp1 dp2 dcont; do [[ \$o == *,\$n,* ]] || { echo missing \$n; exit 1; }; done"
# broken on: the oldest package picked (sort order reversed); the test
# module of another version picked (deb_testmod's VERSION ignored).
check "... the newest debug kernel and its test module in the image" grep -qx "debian-image --deb $KDEB $TDEB" "$calls"
# broken on: --target top dropped (judged as Debian's own kernel).
check "... booted as the top under config debian-s61, the three suites" \
	bash -c "grep -q -- '^debian-boot --machine q35 --image $t/disk.img --kver 6.1.192-s61dbg --target top --config debian-s61 --suites debian-smoke,debian-subsys,debian-bench --only ' '$calls'"
check "... recorded: version, what ran, what was left out, exit" \
	bash -c "grep -q \$'\t$V\tall-but-left-out\tdebian-subsys.gfs2\t0\t' '$rec'"
# broken on: s61.test_timeout not appended (the runner's 600 s, which
# memcg-scopes overran on the debug flavour).
check "... each test's limit raised to 1800 s on the kernel command line" grep -q -- " --append s61.test_timeout=1800 " "$calls"
# broken on: the machine left out of the record (or of its header).
check "... recorded: the machine, q35 by default, under a header that names it" \
	bash -c "tail -n 1 '$rec' | grep -q \$'\tq35\t[^\t]*\t[0-9a-f-]*\t[0-9a-f-]*\$' && head -n 1 '$rec' | grep -q \$'\tmachine\tallowed\tstack_id\tcommit\$'"
# broken on: results_pages not called after the record (the page left behind).
check "... and docs/results/debian-debug.md made anew with the run's row" \
	bash -c "grep -q \"^| [0-9-]* | $V | all-but-left-out | debian-subsys.gfs2 | 0 | \" '$P/docs/results/debian-debug.md'"
# broken on: debian-boot's exit not passed on (always 0).
STUB_RC=1 run --debs "$t/debs"
expect "a failing run: its exit 1" rc 1
# broken on: the record rewritten by each run (every run is kept).
check "... both runs kept in the record, under one header" \
	bash -c "[ \$(grep -c 'all-but-left-out' '$rec') = 2 ] && [ \$(grep -c '^#' '$rec') = 1 ]"
STUB_RC=3 run --debs "$t/debs"
expect "a harness error of debian-boot: its exit 3" rc 3
# broken on: --machine not passed on to debian-boot (fixed to q35).
run --debs "$t/debs" --machine pc
check "--machine pc: passed to debian-boot and recorded" \
	bash -c "grep -q -- '^debian-boot --machine pc ' '$calls' && tail -n 1 '$rec' | grep -q \$'\tpc\t[^\t]*\t[^\t]*\t[^\t]*\$'"
# broken on: --test-timeout ignored (1800 always).
run --debs "$t/debs" --test-timeout 900
check "--test-timeout 900: s61.test_timeout=900" grep -q -- " --append s61.test_timeout=900 " "$calls"
run --debs "$t/debs" --test-timeout 0
check "--test-timeout 0: exit 2, nothing booted" bash -c "[ \$(cat '$t/rc') = 2 ] && ! grep -q '^debian-boot' '$calls'"
# broken on: the --machine check removed (virt passed to debian-boot).
run --debs "$t/debs" --machine virt
check "--machine virt: exit 2, nothing booted" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q \"want q35 or pc\" '$t/o' && ! grep -q '^debian-boot' '$calls'"

# The known splats and reports the run carried (issue 38 §2: gfs2 stays
# in the run, its WARNINGs a known report of debian-system/known-splats).
# broken on: the allowed column left out (the record's last field the
# machine); entries with count 0 recorded too.
STUB_KNOWN=$'0\t26e239b37ebd\tmm: shrinkers: fix race condition on debugfs cleanup\n3\tae9f3bd8259a\tgfs2: replace sd_aspace with sd_inode\n' run --debs "$t/debs"
check "the known report a run carried is recorded (UPSTREAM-ID:COUNT), and said" \
	bash -c "tail -n 1 '$rec' | grep -q \$'\tq35\tae9f3bd8259a:3\t[^\t]*\t[^\t]*\$' && grep -q 'carried: ae9f3bd8259a:3;' '$t/o'"
STUB_KNOWN=$'0\t26e239b37ebd\tt\n' run --debs "$t/debs"
check "... none carried is '-'" bash -c "tail -n 1 '$rec' | grep -q \$'\tq35\t-\t[^\t]*\t[^\t]*\$'"
# broken on: a missing known-splats file recorded as none ("-").
run --debs "$t/debs"
check "... no known-splats file (the boot ended before its scan) is '?'" bash -c "tail -n 1 '$rec' | grep -q \$'\tq35\t?\t[^\t]*\t[^\t]*\$'"
# broken on: the header's sed removed (an old record keeps eight names
# over nine fields).
printf '# date\tversion\tran\tleft_out\trc\tseconds\trun\tmachine\nold\trow\n' >"$rec"
run --debs "$t/debs"
check "... a record whose header lacks the column gets it, its rows kept" \
	bash -c "head -n 1 '$rec' | grep -q \$'\tmachine\tallowed\tstack_id\tcommit\$' && grep -qx \$'old\trow' '$rec'"

# --- --left-out, --base, --deb --------------------------------------------------
# broken on: --left-out running the kept tests.
run --debs "$t/debs" --left-out
expect "--left-out: runs" rc 0
check "... only the left-out tests" test "$(only)" = gfs2
check "... recorded as left-out" bash -c "grep -q \$'\tleft-out\tdebian-subsys.gfs2\t' '$rec'"
# broken on: --base ignored (the top's kernel booted as base).
run --debs "$t/debs" --base
check "--base: base's debug kernel, judged as base" \
	bash -c "grep -q -- '^debian-boot .* --kver 6.1.192-s61basedbg --target base --config debian-s61 ' '$calls'"
run --deb "$KDEB" "$TDEB"
check "--deb: the given packages" bash -c "[ \$(cat '$t/rc') = 0 ] && grep -qx 'debian-image --deb $KDEB $TDEB' '$calls'"

# --- bad input: exit 2, nothing booted ------------------------------------------
# broken on: each refusal below removed (the run went on and booted).
run --deb "$t/debs/linux-image-6.1.192-s61_6.1.192-3+s61.0123abcd_amd64.deb" "$TDEB"
check "--deb of the plain kernel: exit 2, the flavour named" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'not a linux-image-\*-s61dbg' '$t/o'"
run --deb "$KDEB" "$t/debs/s61-testmod-6.1.192-s61basedbg_${BV}_amd64.deb"
check "--deb with another kernel's test module: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'is not s61-testmod-6.1.192-s61dbg' '$t/o'"
run --debs "$t/old"
check "no debug kernel in --debs: exit 2, the way out named" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'tools/debian/deb.sh --flavour debug' '$t/o'"
mkdeb linux-image-6.1.192-s61dbg "$V" "$t/old"
run --debs "$t/old"
check "a kernel without its test module: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'no s61-testmod-6.1.192-s61dbg_' '$t/o'"
run --debs "$t/debs" --timeout 0
check "--timeout 0: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'want a whole number' '$t/o'"
run --debs "$t/debs" --only gfs2
check "an unknown option: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q \"unknown argument '--only'\" '$t/o'"
bad() { # NAME LINE TEXT: the list holding LINE is refused, naming TEXT
	printf '# comment\n%s\n' "$2" >"$L"
	run --debs "$t/debs"
	check "$1: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q -- \"$3\" '$t/o'"
}
bad "a line without a reason" 'debian-subsys.gfs2  ae9f3bd8259a  "gfs2: replace sd_aspace with sd_inode"' 'line 2 does not parse'
bad "a short id" 'debian-subsys.gfs2  ae9f3bd  "t"  r' 'line 2 does not parse'
bad "a title without quotes" 'debian-subsys.gfs2  ae9f3bd8259a  t  r' 'line 2 does not parse'
bad "a test without its suite" 'gfs2  ae9f3bd8259a  "t"  r' 'line 2 does not parse'
bad "a test that does not exist" 'debian-subsys.gfs3  ae9f3bd8259a  "t"  r' 'no test debian-subsys.gfs3'
bad "a suite the run does not have" 'debian-other.gfs2  ae9f3bd8259a  "t"  r' 'suite debian-other is not one'
bad "a name a kept test has too" 'debian-subsys.tainted  ae9f3bd8259a  "t"  r' 'debian-smoke.tainted is kept but has the name'
printf '%s\n%s\n' "$GOOD" "$GOOD" >"$L"
run --debs "$t/debs"
check "a test listed twice: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'is there twice' '$t/o'"
printf '# only comments\n' >"$L"
# broken on: --left-out running the kept tests.
run --debs "$t/debs" --left-out
check "--left-out with nothing left out: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'names no test' '$t/o'"
rm -f "$L"
run --debs "$t/debs"
check "no list: exit 2" bash -c "[ \$(cat '$t/rc') = 2 ] && grep -q 'no debian-system/debug-left-out' '$t/o'"
check "... nothing imaged or booted by any refusal" test ! -s "$calls"
printf '# only comments\n' >"$L"
run --debs "$t/debs"
check "an empty list: runs every test" bash -c "[ \$(cat '$t/rc') = 0 ] && [[ ,\$(sed -n 's/.* --only \([^ ]*\) .*/\1/p' '$calls'), == *,gfs2,* ]]"

echo "1..$((pass + fail))"
echo "# debian-debug-run: $pass passed, $fail failed"
[ "$fail" = 0 ]
