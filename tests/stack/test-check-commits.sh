#!/usr/bin/env bash
# Tests of tools/stack/check-commits.sh without building a kernel: tools/build/kbuild.sh is
# replaced by a stand-in that writes a log with warnings chosen per commit (and
# fails where told). Uses the real kernel checkout's refs (base..prep), a
# worktree of its own under a temporary S61_WORK, and the real checkpatch.
# Checks: arguments, --dry-run, the worktree, full rebuilds (objects removed),
# the baseline and its cache, new warnings (line numbers and quote styles
# ignored, repeats counted), stopping at the first bad commit, --keep-going
# over a build failure, --incremental, and the table file.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cc=$here/tools/stack/check-commits.sh
. "$here/tools/lib/lib.sh"
real_linux=$S61_LINUX
if [ ! -e "$real_linux/.git" ] || ! git -C "$real_linux" rev-parse -q --verify refs/heads/prep >/dev/null; then
	echo "1..0 # SKIP no kernel checkout with the prep branch (run tools/stack/stack.sh init/apply)"
	echo "check-commits-tests: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
t=$(mktemp -d)
cleanup() {
	git -C "$real_linux" worktree remove --force "$t/work/check-commits/linux" 2>/dev/null
	rm -rf "$t"
	git -C "$real_linux" worktree prune
}
trap cleanup EXIT
export S61_WORK=$t/work
mkdir -p "$S61_WORK"
ln -s "$real_linux" "$S61_WORK/linux"
ct=$S61_WORK/check-commits

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

mapfile -t c < <(git -C "$real_linux" rev-list --reverse base..prep)
n=${#c[@]}
base=$(git -C "$real_linux" rev-parse base)
s() { git -C "$real_linux" rev-parse --short=12 "$1"; }
rows() { grep -cE '^[0-9a-f]{12}  ' "$t/out"; }

# The stand-in for tools/build/kbuild.sh. $F/extra: "SHA LINE" lines added to the log;
# $F/fail: SHAs whose build fails; $F/calls: "SHA full|kept" per build. An
# incremental build (mm/vmscan.o kept) logs only the extra lines.
F=$t/fake
mkdir -p "$F"
: >"$F/extra"; : >"$F/fail"; : >"$F/calls"
cat >"$F/kbuild" <<'EOF'
#!/usr/bin/env bash
config=boot
while [ $# -gt 0 ]; do case $1 in --config) config=$2; shift ;; esac; shift; done
wt=$S61_WORK/linux out=$S61_WORK/build/$config log=$S61_WORK/logs/kbuild-$config.log
head=$(git -C "$wt" rev-parse HEAD)
mkdir -p "$out/mm" "$out/scripts"
how=full
[ -f "$out/mm/vmscan.o" ] && how=kept
[ -f "$out/scripts/host.o" ] || how="$how host-rebuilt"
echo "$head $how" >>"$FAKE/calls"
touch "$out/mm/vmscan.o" "$out/scripts/host.o"
n=$(wc -l <"$FAKE/calls")
{
	echo "  CC      mm/vmscan.o"
	if [ "${how%% *}" = full ]; then
		# pre-existing: line numbers move, quotes alternate, paths vary
		if [ $((n % 2)) = 0 ]; then q1="‘" q2="’"; else q1="'" q2="'"; fi
		echo "$wt/mm/vmscan.c:$((100 + n)):5: warning: unused variable ${q1}x${q2} [-Wunused-variable]"
		echo "../../linux/fs/super.c:$((12 + n)):1: warning: old one [-Wfoo]"
		echo "../../linux/fs/super.c:$((40 + n)):1: warning: old one [-Wfoo]"
	fi
	grep "^$head " "$FAKE/extra" | cut -d' ' -f2-
} >"$log"
if grep -qx "$head" "$FAKE/fail"; then
	echo "mm/x.c:1:1: error: boom" >>"$log"
	echo "kbuild: error: build failed for $head" >&2
	exit 2
fi
echo "$out/arch/x86/boot/bzImage"
EOF
chmod +x "$F/kbuild"
export S61_CHECK_COMMITS_KBUILD=$F/kbuild FAKE=$F
calls_of() { grep -c "^$1 $2" "$F/calls"; }

# Arguments.
check "--help" "$cc" --help
expect "--help shows the usage" out_has "Usage: tools/stack/check-commits.sh"
check_fails "unknown option" "$cc" --bogus
check_fails "-j 0" "$cc" -j 0 --dry-run
check_fails "-j needs a number" "$cc" -j x --dry-run
check_fails "unknown config" "$cc" --config no-such --dry-run
check_fails "two ranges" "$cc" base..prep base..api --dry-run
check_fails "bad range" "$cc" no-such..prep --dry-run
check_fails "empty range" "$cc" prep..prep --dry-run
check_fails "unknown commit" "$cc" no-such-commit --dry-run

# --dry-run: the default range is base..<top>, numbered as in patches/.
top=$(stack_top)
check "--dry-run, default range" "$cc" --dry-run
expect "dry run: base..$top" out_has "dry run of base..$top: $(git -C "$real_linux" rev-list --count "base..$top") commit(s)"
expect "dry run: one row per commit" test "$(grep -cE '^ *[0-9]+  [0-9a-f]{12}  ' "$t/out")" = "$(git -C "$real_linux" rev-list --count "base..$top")"
expect "dry run: patch numbers" out_has "$(s "${c[n - 1]}")  prep/$(printf '%04d' "$n")"
expect "dry run: the baseline is base" out_has "baseline: $(s "$base") "
expect "dry run builds nothing" test ! -e "$ct"
check "--dry-run of a single commit" "$cc" --dry-run "${c[2]}"
expect "single commit: baseline is its parent" out_has "baseline: $(s "${c[1]}")"
check "--dry-run --no-baseline" "$cc" --dry-run --no-baseline base..prep
expect "--no-baseline: none" out_has "baseline: none"

# A clean run: the worktree is created, every commit is built in full, the
# pre-existing warnings (moving lines, both quote styles) are not new, and
# checkpatch is clean (prep 0006 needs its number for its exceptions).
check "clean run of base..prep" "$cc" -j 1 base..prep
expect "clean run: the worktree exists" test -e "$ct/linux/.git"
expect "clean run: the worktree is at the last commit" test "$(git -C "$ct/linux" rev-parse HEAD)" = "${c[n - 1]}"
expect "clean run: the worktree is detached" test -z "$(git -C "$ct/linux" symbolic-ref -q HEAD)"
expect "clean run: baseline and $n commits" test "$(rows)" = $((n + 1))
expect "clean run: the baseline row" out_has "$(s "$base")  (baseline)"
expect "clean run: warnings counted" grep -qE "^$(s "${c[0]}") .*  ok     3  " "$t/out"
expect "clean run: no new warning" out_lacks "new)"
expect "clean run: checkpatch clean everywhere" test "$(grep -c '  clean  ' "$t/out")" = "$n"
expect "clean run: all ok" test "$(grep -cE '  ok$' "$t/out")" = "$n"
expect "clean run: the total" out_has "total: $n of $n commit(s) checked"
tbl=$(sed -n 's/^(table: \([^;]*\);.*/\1/p' "$t/out")
expect "clean run: the table file" test -s "$tbl"
expect "clean run: the table file has the rows" test "$(grep -cE '^[0-9a-f]{12}  ' "$tbl")" = $((n + 1))
expect "clean run: full builds" test "$(grep -c ' full' "$F/calls")" = $((n + 1))
expect "clean run: host objects kept" test "$(grep -c 'host-rebuilt' "$F/calls")" = 1
expect "clean run: the baseline is cached" test "$(find "$ct/baseline" -name "$(s "$base")-boot-*.warnings" | wc -l)" = 1

# New warnings: commit 3 adds one (and repeats an old one: counted), the run
# stops there; the cached baseline is not rebuilt.
: >"$F/calls"
echo "${c[2]} ../../linux/mm/vmscan.c:7:1: warning: something new [-Wnew]" >>"$F/extra"
echo "${c[2]} ../../linux/fs/super.c:99:1: warning: old one [-Wfoo]" >>"$F/extra"
check_fails "a new warning fails" "$cc" -j 1 base..prep
expect "new warning: the baseline comes from the cache" out_has "$(s "$base")  (baseline) .*cached"
expect "new warning: the baseline is not rebuilt" test "$(calls_of "$base" full)" = 0
expect "new warning: the count and the new ones" grep -qE "^$(s "${c[2]}") .* 5 \(\+2 new\) .*BAD: new warning" "$t/out"
expect "new warning: the message is shown" out_has "    mm/vmscan.c:7:1: warning: something new"
expect "new warning: named first bad" out_has "first bad commit: $(s "${c[2]}") prep/0003"
expect "new warning: stops there" test "$(rows)" = 4
expect "new warning: total" out_has "total: 3 of $n commit(s) checked"
# (commit 4 drops the extra warnings again: that is not new.)

# --keep-going over a build failure: commit 2 fails, commit 3 is compared with
# commit 1 (the last one that built), all commits are checked.
: >"$F/calls"
echo "${c[1]}" >"$F/fail"
check_fails "--keep-going with a build failure" "$cc" -j 1 --keep-going base..prep
expect "keep-going: the failure" grep -qE "^$(s "${c[1]}") .*  FAIL .*BAD: build" "$t/out"
expect "keep-going: error lines shown" out_has "    mm/x.c:1:1: error: boom"
expect "keep-going: kbuild's verdict shown" out_has "    kbuild: error: build failed for ${c[1]}"
expect "keep-going: commit 3 still has new warnings" grep -qE "^$(s "${c[2]}") .*\(\+2 new\)" "$t/out"
expect "keep-going: every commit checked" test "$(rows)" = $((n + 1))
expect "keep-going: the first bad is the build failure" out_has "first bad commit: $(s "${c[1]}") prep/0002 .*(BAD: build)"
expect "keep-going: commit 4 is ok again" grep -qE "^$(s "${c[3]}") .*  ok$" "$t/out"

# --incremental: objects kept after the first build; a warning is new when
# no earlier build printed it.
: >"$F/calls"; : >"$F/fail"
rm -rf "$ct/baseline"
check_fails "--incremental" "$cc" -j 1 --incremental --keep-going base..prep
expect "incremental: the baseline is built in full" test "$(calls_of "$base" full)" = 1
expect "incremental: commits are built incrementally" test "$(grep -c ' kept$' "$F/calls")" = "$n"
expect "incremental: an old key is not new" grep -qE "^$(s "${c[2]}") .* 2 \(\+1 new\)" "$t/out"
expect "incremental: only commit 3 is bad" test "$(grep -cE '^[0-9a-f]{12}  .*BAD' "$t/out")" = 1

# checkpatch of a commit outside the stack is reported (when such a scratch
# branch exists in this checkout).
if git -C "$real_linux" rev-parse -q --verify refs/heads/broken-warn >/dev/null; then
	check_fails "checkpatch failure" "$cc" -j 1 --no-baseline broken-warn
	expect "checkpatch failure: in the table" out_has "FAIL (2) .*BAD: checkpatch"
	expect "checkpatch failure: findings shown" out_has "MISSING_SIGN_OFF"
fi

# A worktree with local changes is refused, never overwritten.
echo "local" >>"$ct/linux/Makefile"
check_fails "local changes in the worktree are refused" "$cc" -j 1 --no-baseline "${c[0]}"
expect "local changes: kept" grep -q '^local$' "$ct/linux/Makefile"
git -C "$ct/linux" checkout -q -- Makefile

echo "1..$((pass + fail))"
echo "check-commits-tests: $pass passed, $fail failed"
[ $fail = 0 ]
