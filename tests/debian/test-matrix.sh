#!/usr/bin/env bash
# Tests of tools/debian/matrix.sh (issue 26, section 2) on synthetic uploads
# as tests/stack/test-stack-move.sh makes them: 1.0-1 "installed" (the stack's
# own), 2.0-1 (every patch goes on: offset, fuzz) and 3.0-1 (a conflict in
# lib/b.c), a fake 'apt-cache madison' (S61_MADISON) and a fake guest test
# (S61_GUEST_TEST) that logs its calls and the upload of the checkout it
# was run on; nothing is built or booted. Checked: the matrix of both
# uploads, --no-boot runs no build, --dry-run runs and writes nothing, a
# recorded upload is not redone, a failing boot and a failing build are
# recorded as such, a recorded resolution lets a conflicting upload move,
# build and boot, the page is made again between its markers and the rest
# kept, bad input is refused with nothing changed, Ctrl-C leaves no
# half-written page and the next run resumes; this clone's checkout,
# branch-stack.txt and patches/ are never touched.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

mkdir -p "$t/archive" "$t/bin"
make_source 1.0-1 :
make_source 2.0-1 "sed -i '1i /* 2.0 */' lib/a.c && sed -i 's/^10\$/10 (2.0)/' lib/b.c"
make_source 3.0-1 "sed -i 's/^7\$/7 (3.0)/' lib/b.c"
make_deb 2.0-1
make_deb 3.0-1
fake_apt_get
export PATH=$t/bin:$PATH
for v in 3.0-1 2.0-1 1.0-1; do
	printf ' linux-source-6.1 | %10s | http://deb.debian.org/debian bookworm/main amd64 Packages\n' "$v"
done >"$t/madison"

# The fake guest test: a line per call (S61_WORK, the upload of the
# checkout's base, the arguments); FAIL_ON=VERSION fails the boot there,
# NOBUILD_ON=VERSION the build (exit 125), SIGNAL_ON=VERSION sends SIGINT
# to its process group (Ctrl-C).
cat >"$t/bin/fake-guest-test" <<EOF
#!/usr/bin/env bash
v=\$(git -C "\$S61_WORK/linux" log -1 --format=%B base | sed -n 's/^Debian-Version: //p')
echo "\${S61_WORK#$t/proj/} \$v \$*" >>"$t/calls"
git -C "\$S61_WORK/linux" rev-parse -q --verify "\${*: -1}" >/dev/null || { echo "no branch \${*: -1}"; exit 3; }
[ "\$v" != "\${SIGNAL_ON:-}" ] || { kill -s INT -- -\$(ps -o pgid= -p \$\$ | tr -d ' '); sleep 5; }
[ "\$v" != "\${NOBUILD_ON:-}" ] || { echo "kbuild: error: build failed"; exit 125; }
echo "kbuild: built \${*: -1} [boot] in 42 s"
echo "run: $t/runs/x"
if [ "\$v" = "\${FAIL_ON:-}" ]; then echo "3 passed, 1 failed, 0 skipped, 0 xfail"; exit 1; fi
echo "4 passed, 0 failed, 0 skipped, 0 xfail"
EOF
chmod +x "$t/bin/fake-guest-test"

# This clone: the tools, a two-branch stack on 1.0-1, its checkout, a page
# with hand-written parts around the two regions the tool writes.
P=$t/proj
mkdir -p "$P/patches/one" "$P/patches/two" "$P/docs"
cp -r "$here/tools" "$P/"
printf '# the stack\nbase linux-source-6.1 1.0-1\none\ntwo\n' >"$P/branch-stack.txt"
touch "$P/patches/one/.keep" "$P/patches/two/.keep"
export S61_CACHE=$t/cache S61_WORK=$P/.work S61_SRC_TARBALL=$t/src-1.0-1.tar.xz S61_SRC_VERSION=1.0-1
export S61_MADISON=$t/madison S61_GUEST_TEST=$t/bin/fake-guest-test
K=$P/.work/linux
g() { git -C "$K" "$@"; }
"$P/tools/stack/stack.sh" init >/dev/null 2>&1
g checkout -q -b one base
sed -i 's/^3$/three/' "$K/lib/a.c"; g commit -qam "lib: a: spell three"
sed -i 's/^15$/fifteen/' "$K/lib/a.c"; g commit -qam "lib: a: spell fifteen"
g checkout -q -b two one
sed -i 's/^7$/seven/' "$K/lib/b.c"; g commit -qam "lib: b: spell seven"
"$P/tools/stack/stack.sh" export >/dev/null 2>&1
cat >"$P/docs/debian-versions.md" <<'EOF'
# The stack on every upload

Hand-written introduction.

## Per version

<!-- debian-matrix: per-version begin -->
| upload | hand-made table |
<!-- debian-matrix: per-version end -->

Hand-written notes between the regions.

## Patch by patch

<!-- debian-matrix: patches begin -->
| patch | old |
<!-- debian-matrix: patches end -->

## Hand-written tail
EOF
dm=$P/tools/debian/matrix.sh
D=$P/docs/debian-versions.md
TSV=$P/docs/debian-versions.tsv
M=$P/.work/matrix
# The page without what lies between the markers: the hand-written parts.
hand() { awk '/^<!-- debian-matrix: .* end -->$/ { s = 0 } !s { print } /^<!-- debian-matrix: .* begin -->$/ { s = 1 }' "$D"; }
hand0=$(hand)
start=$(snapshot)
# Everything of this clone the matrix must never change.
untouched() {
	if [ "$(snapshot 2>&1)" = "$start" ]; then ok "$1"; else ko "$1" "$(diff <(echo "$start") <(snapshot 2>&1) | tr '\n' ' ')"; fi
}
calls() { cat "$t/calls" 2>/dev/null; }
ncalls() { calls | wc -l; }
region() { reg "$@" | tee "$t/reg"; }
reg() { awk -v r="$1" '$0 == "<!-- debian-matrix: " r " end -->" { s = 0 } s { print } $0 == "<!-- debian-matrix: " r " begin -->" { s = 1 }' "$D"; }
state() { cat "$D" "$TSV" 2>/dev/null | sha256sum; }

check "--help names the options" "$dm" --help
says "  ... and the inputs" "--versions" "--no-boot" "--dry-run" "--force" "--resolve" "--save-resolutions" "S61_GUEST_TEST" "S61_MADISON"
check "the real docs/debian-versions.md has both regions' markers" bash -c "
	for r in per-version patches; do
		grep -qx \"<!-- debian-matrix: \$r begin -->\" '$here/docs/debian-versions.md' &&
		grep -qx \"<!-- debian-matrix: \$r end -->\" '$here/docs/debian-versions.md' || exit 1
	done"

# --dry-run: what would run, nothing run or written.
s0=$(state)
check "--dry-run" "$dm" --dry-run
says "  ... names the dry runs, the moves and the guest test" "tools/stack/stack.sh move 2.0-1 --dry-run" "tools/stack/stack.sh move 3.0-1' in the scratch copy .work/matrix/3.0-1" "fake-guest-test --config boot --suites smoke,lockless two" "3 upload(s) to do: 1.0-1 3.0-1 2.0-1"
check "  ... runs nothing, writes nothing" test "$(ncalls):$(state)" = "0:$s0" -a ! -e "$M"
untouched "  ... this clone's stack untouched"

# --no-boot: the matrix, no move, no build.
check "--no-boot: the matrix of 2.0-1 and 3.0-1" "$dm" --no-boot
check "  ... no build, no boot (no guest test)" test "$(ncalls)" = 0
check "  ... no move: the scratch copies stay on 1.0-1" test ! -e "$M/2.0-1/work" -a ! -e "$M/3.0-1/work"
region patches >"$t/out"
says "  ... a row per patch, a column per upload, oldest first" "| patch | 1.0-1 | 2.0-1 | 3.0-1 |" \
	"| one/0001-lib-a-spell-three.patch | (home) | fuzz | clean |" \
	"| one/0002-lib-a-spell-fifteen.patch | (home) | offset | clean |" \
	"| two/0001-lib-b-spell-seven.patch | (home) | fuzz | \*\*conflict\*\* \`lib/b.c\` |"
region per-version >"$t/out"
says "  ... a line per upload, newest first: dry run, move, build, boot" \
	"| 3.0-1 | exit 1: 2 clean, 1 conflict | not run (--no-boot) | not run (--no-boot) | not run (--no-boot) | dry " \
	"| 2.0-1 | exit 0: 1 offset, 2 fuzz |" "| 1.0-1 | (home) |"
check "  ... with the time of each step" grep -q '^| 3.0-1 .*| dry [0-9]* s; 20[0-9-]* |$' "$t/reg"
check "  ... in that order" bash -c "grep '^| [0-9]' '$t/reg' | cut -d'|' -f2 | tr -d ' \n' | grep -qx '3.0-12.0-11.0-1'"
check "  ... the hand-written parts of the page kept byte for byte" test "$(hand)" = "$hand0"
check "  ... the old content between the markers replaced" bash -c "! grep -q 'hand-made table\|| patch | old |' '$D'"
check "  ... the records in docs/debian-versions.tsv" grep -qP '^3.0-1\tpatch\ttwo/0001-lib-b-spell-seven.patch\tconflict lib/b.c$' "$TSV"
untouched "  ... this clone's stack untouched"
s1=$(state)
check "--no-boot again: nothing redone" "$dm" --no-boot
says "  ... says why" "2.0-1: recorded for this stack already" "nothing to do"
check "  ... page and records unchanged" test "$(state)" = "$s1"

# The full run: the dry runs reused, 2.0-1 moved, built and booted, 3.0-1 not.
check "the full run" "$dm"
says "  ... reuses the dry runs of the same stack" "2.0-1: the dry run is recorded for this stack already; reusing it"
check "  ... the guest test for the stack's upload and 2.0-1 only" test "$(calls | cut -d' ' -f1,2 | tr '\n' ' ')" = ".work/matrix/1.0-1/work 1.0-1 .work/matrix/2.0-1/work 2.0-1 "
check "  ... the top, boot config, smoke and lockless" test "$(calls | cut -d' ' -f3- | sort -u)" = "--config boot --suites smoke,lockless --timeout 600 two"
check "  ... 2.0-1's scratch copy moved there" grep -qx 'base linux-source-6.1 2.0-1' "$M/2.0-1/proj/branch-stack.txt"
region per-version >"$t/out"
says "  ... recorded" "| 2.0-1 | exit 0: 1 offset, 2 fuzz | moved | ok | ok: 4 passed, 0 failed, 0 skipped, 0 xfail | dry " \
	"| 1.0-1 | (home) | (home) | ok | ok: 4 passed" \
	"| 3.0-1 | exit 1: 2 clean, 1 conflict | not moved: two/0001-lib-b-spell-seven.patch without a recorded resolution (tools/debian/matrix.sh --resolve 3.0-1) | not run (not moved) |"
check "  ... with the build's and the boot's time" grep -q '^| 2.0-1 .*| dry [0-9]* s, move [0-9]* s, build 42 s, boot [0-9]* s; ' "$t/reg"
check "  ... the hand-written parts kept" test "$(hand)" = "$hand0"
untouched "  ... this clone's stack untouched"
s2=$(state) n=$(ncalls)
check "the full run again: nothing redone" "$dm"
check "  ... no guest test, page and records unchanged" test "$(ncalls):$(state)" = "$n:$s2"

# A failing boot, a failing build: recorded as such, the other uploads kept.
FAIL_ON=2.0-1 check_fails "a boot that fails: exit 1" "$dm" --force --versions 2.0-1
says "  ... names it" "failed (a build, a boot or the run itself): 2.0-1"
region per-version >"$t/out"
says "  ... recorded as a failure" "| 2.0-1 | exit 0: 1 offset, 2 fuzz | moved | ok | FAIL (exit 1): 3 passed, 1 failed, 0 skipped, 0 xfail (.work/matrix/2.0-1/guest.log) |"
says "  ... the other uploads' lines kept" "| 1.0-1 | (home) | (home) | ok | ok: 4 passed" "| 3.0-1 | exit 1: 2 clean, 1 conflict | not moved"
NOBUILD_ON=2.0-1 check_fails "a build that fails: exit 1" "$dm" --force --versions 2.0-1
region per-version >"$t/out"
says "  ... recorded as a failed build, no boot" "| 2.0-1 | exit 0: 1 offset, 2 fuzz | moved | FAIL (.work/matrix/2.0-1/guest.log) | not run (no kernel) |"
check "a failed upload is done again by the next run" "$dm" --versions 2.0-1
region per-version >"$t/out"
says "  ... and recorded as passed" "| 2.0-1 | exit 0: 1 offset, 2 fuzz | moved | ok | ok: 4 passed"
untouched "  ... this clone's stack untouched"

# A resolution: 3.0-1's conflict resolved once, kept in matrix/3.0-1/, replayed.
check "--resolve 3.0-1: stops at the conflict" "$dm" --resolve 3.0-1
says "  ... names it and the way on" "stopped at two/0001-lib-b-spell-seven.patch: conflict (files: lib/b.c); no recorded resolution" "move --continue" "--save-resolutions 3.0-1"
check "  ... the conflict is in the scratch checkout" grep -q '^<<<<<<<' "$M/3.0-1/work/linux/lib/b.c"
check_fails "--save-resolutions before the move finished refuses" "$dm" --save-resolutions 3.0-1
says "  ... says why" "is not a finished move to 3.0-1"
seq 1 20 | sed 's/^7$/seven (3.0)/' >"$M/3.0-1/work/linux/lib/b.c"
git -C "$M/3.0-1/work/linux" add -f lib/b.c
check "  ... resolved by hand, the printed command continues the move" env S61_WORK="$M/3.0-1/work" "$M/3.0-1/proj/tools/stack/stack.sh" move --continue
check "--save-resolutions 3.0-1" "$dm" --save-resolutions 3.0-1
check "  ... the resolved patch in matrix/3.0-1/patches/" grep -qx '+seven (3.0)' "$P/matrix/3.0-1/patches/two/0001-lib-b-spell-seven.patch"
check "  ... named in matrix/3.0-1/resolved.tsv with the patch it resolves" grep -qP "^two/0001-lib-b-spell-seven.patch\t$(sha256sum <"$P/patches/two/0001-lib-b-spell-seven.patch" | cut -d' ' -f1)\tresolved$" "$P/matrix/3.0-1/resolved.tsv"
: >"$t/calls"
check "the next run does 3.0-1 again (its resolutions changed), only it" "$dm"
check "  ... moved with the recorded resolution, built and booted there" test "$(calls | cut -d' ' -f1,2)" = ".work/matrix/3.0-1/work 3.0-1"
region per-version >"$t/out"
says "  ... recorded" "| 3.0-1 | exit 1: 2 clean, 1 conflict | moved: 1 conflict(s) resolved, 0 patch(es) dropped, as recorded in matrix/3.0-1/ | ok | ok: 4 passed"
region patches >"$t/out"
says "  ... the cell names the resolution" "| two/0001-lib-b-spell-seven.patch | (home) | fuzz | \*\*conflict\*\* \`lib/b.c\`, conflict resolved (matrix/3.0-1) |"
untouched "  ... this clone's stack untouched"
# A resolution of an older version of the patch is not used.
sed -i 's/^seven/SEVEN/' "$P/matrix/3.0-1/patches/two/0001-lib-b-spell-seven.patch"
sed -i "s/\t[0-9a-f]*\tresolved/\t$(printf 0%.0s {1..64})\tresolved/" "$P/matrix/3.0-1/resolved.tsv"
check "a stale resolution (for another version of the patch)" "$dm" --versions 3.0-1
region per-version >"$t/out"
says "  ... is not used, and said so" "| 3.0-1 | exit 1: 2 clean, 1 conflict | not moved: two/0001-lib-b-spell-seven.patch without a recorded resolution"
rm -rf "$P/matrix"
check "(3.0-1 as before the resolution)" "$dm" --versions 3.0-1

# Bad input: refused, named, nothing changed.
s3=$(state) n=$(ncalls)
find "$M" | sort >"$t/ls0"
bad() {
	local name=$1
	shift
	check_fails "$name" "$dm" "$@"
}
unchanged_all() {
	if [ "$(ncalls):$(state)" = "$n:$s3" ] && find "$M" | sort | cmp -s - "$t/ls0"; then ok "$1"; else ko "$1" "page, records, scratch copies or guest test calls changed"; fi
}
bad "an upload the archive does not have" --versions 2.0-1,4.0-1
says "  ... names it, the archive's versions and the way out" "linux-source-6.1 4.0-1 is not in the archive" "lists: 3.0-1 2.0-1 1.0-1" "apt-get update" "nothing was changed"
unchanged_all "  ... nothing changed"
bad "not a Debian version" ../x
says "  ... names it" "'../x' is not a Debian version"
unchanged_all "  ... nothing changed"
bad "an unknown option" --boot-only
says "  ... names it" "unknown option --boot-only"
bad "--resolve of an upload the archive does not have" --resolve 9.9-1
says "  ... names it" "9.9-1 is not in the archive"
: >"$t/empty"
S61_MADISON=$t/empty check_fails "apt knows no version" "$dm"
says "  ... says so and the way out" "apt knows no version of linux-source-6.1" "apt-get update"
S61_MADISON=$t/none check_fails "an unreadable S61_MADISON" "$dm"
says "  ... names it" "cannot read S61_MADISON=$t/none"
unchanged_all "  ... nothing changed"
cp "$D" "$t/doc"
sed -i '/debian-matrix: patches end/d' "$D"
check_fails "a page without its markers" "$dm" --force
says "  ... names the marker" "'<!-- debian-matrix: patches begin -->' / '... end -->' marker lines"
check "  ... nothing run" test "$(ncalls)" = "$n"
cp "$t/doc" "$D"
unchanged_all "  ... nothing changed"
untouched "  ... this clone's stack untouched"

# Ctrl-C during the second upload (none recorded before): the first
# recorded, no half-written page.
: >"$t/calls"
rm "$TSV"
# (env: in a background job SIGINT starts ignored and cannot be trapped)
SIGNAL_ON=2.0-1 check_fails "Ctrl-C during the run" setsid -w env --default-signal=INT,QUIT "$dm" --versions 3.0-1,2.0-1
says "  ... says what was kept" "interrupted: the uploads done before are recorded"
check "  ... 3.0-1 recorded, 2.0-1 not" bash -c "grep -q '^3.0-1	stack' '$TSV' && ! grep -q '^2.0-1' '$TSV'"
check "  ... no temporary file left" test -z "$(find "$P/docs" -name '*.tmp.*')"
check "  ... the page is whole, its hand-written parts kept" test "$(hand)" = "$hand0" -a "$(grep -c 'debian-matrix: .* end -->' "$D")" = 2
untouched "  ... this clone's stack untouched"
check "the next run resumes: only 2.0-1" "$dm" --versions 3.0-1,2.0-1
says "  ... 3.0-1 was recorded" "3.0-1: recorded for this stack already"
check "  ... and 2.0-1 is" test "$(grep -c '2.0-1 --config' "$t/calls")" = 2

echo "1..$((pass + fail))"
echo "debian-matrix-tests: $pass passed, $fail failed"
[ $fail = 0 ]
