#!/usr/bin/env bash
# Tests of tools/debian/evidence.py (the converted shrinkers' evidence of
# debian-subsys runs, one column per kernel) on recorded results: the
# first run of base's .deb with every Debian suite (2026-12-06,
# result-all-base.ktap) and Debian's stock kernel (result-subsys-good.ktap,
# no shrinker debugfs). A row that frees nothing must be marked in
# debian-system/registered-only (its cells then say "registered only"),
# or the tool refuses it (issue 38 §1).
#
# Each check was seen to fail on a deliberately broken variant of the
# tool, named in a comment above it as "broken on: ...".
# shellcheck disable=SC2016  # the backquotes are Markdown's, not expansions
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
fx=$here/tests/fixtures/debian-image
ev() { python3 "$here/tools/debian/evidence.py" "$@"; }

# The recorded base run predates dquots.py (ext4's dquota-cache had no
# dquot to free: 0 -> 0 -> 0); the row is not registered only.
# seen failing with: main without its refusal (exit 0, the row a cell like
# any other).
check_fails "the recorded base run is refused: dquota-cache freed nothing and is not registered only" \
	ev base="$fx/result-all-base.ktap" stock="$fx/result-subsys-good.ktap"
expect "... naming that row alone, and the way out" bash -c "[ \$(grep -c 'freed nothing, and' '$t/out') = 1 ] &&
	grep -q '^debian-evidence: ext4 dquota-cache on base (1 reg., 0 -> 0 -> 0): freed nothing, and .*registered-only does not mark it registered only: drive the shrinker until it frees, or mark the row with the reason' '$t/out'"
expect "... its cell says so" out_has '| ext4 | `dquota-cache` | 1 reg., 0 -> 0 -> 0, \*\*freed nothing\*\* | no shrinker debugfs |'
# The same run with ext4's dquota-cache line as the top's run with
# dquots.py read it (docs/debian-system.md, "dquota-cache with dquots in
# it": 384 -> 384 -> 0).
sed 's/^# shrinker dquota-cache: 1 registered; count 0 -> 0 (memory.reclaim) -> 0 (drop_caches)$/# shrinker dquota-cache: 1 registered; count 384 -> 384 (memory.reclaim) -> 0 (drop_caches): freed 384/' \
	"$fx/result-all-base.ktap" >"$t/base.ktap"
# seen failing with: the registered-only list not looked up (every one of
# the 8 rows refused).
check "base and stock: a table" ev base="$t/base.ktap" stock="$fx/result-subsys-good.ktap"
cp "$t/out" "$t/table"
expect "... (the edit changed dquota-cache's line)" grep -qF '| ext4 | `dquota-cache` | 1 reg., 384 -> 384 -> 0, freed 384 |' "$t/table"
# seen failing with: the cells of listed rows without ", registered only".
expect "... the 8 rows that free nothing say registered only" \
	test "$(grep -c ', registered only |' "$t/table")" = 8
for row in 'md-raid5 | `md-raid5:md61` | 1 reg., 11 -> 11 -> 11' 'nfs | `nfsd-reply*` | 1 reg., 500 -> 500 -> 500' \
	'nfs | `nfsd-filecache` | 1 reg., 0 -> 0 -> 0' 'nfs | `sunrpc_cred` | 1 reg., 0 -> 0 -> 0' \
	'xfs | `xfs-inodegc:loop0` | 1 reg., 0 -> 0 -> 0' 'bcache | `md-bcache:<uuid>` | 1 reg., 0 -> 0 -> 0' \
	'virtio-balloon | `virtio-balloon` | 1 reg., 0 -> 0 -> 0' 'nfs | `nfs-xattr_large_entry` | 1 reg., 0 -> 0 -> 0'; do
	expect "... $row: registered only" grep -qF "| $row, registered only | no shrinker debugfs |" "$t/table"
done
# seen failing with: the reasons not printed.
expect "... each with its reason after the table" grep -qF -- '- md-raid5 `md-raid5:md61`: frees only stripe heads above stripe_cache_size (256)' "$t/table"
expect "... and no row that frees says so" bash -c "! grep -F 'freed' '$t/table' | grep -q 'registered only'"
# A list without md-raid5's row.
grep -v '^md-raid5 ' "$here/debian-system/registered-only" >"$t/ro"
# seen failing with: --registered-only ignored (the repository's list read).
check_fails "md-raid5 not in the list: refused" ev --registered-only "$t/ro" base="$t/base.ktap"
expect "... naming it" out_has '^debian-evidence: md-raid5 md-raid5:md61 on base (1 reg., 11 -> 11 -> 11): freed nothing'
printf 'md-raid5 md-raid5:md61\n' >"$t/ro"
ev --registered-only "$t/ro" base="$t/base.ktap" >"$t/out" 2>&1
# seen failing with: the reason optional (split(None, 2) of 2 words taken).
expect "a list entry without its reason is exit 2, naming the line" \
	bash -c "[ $? = 2 ] && grep -q 'ro line 1: want TEST SHRINKER WHY (the reason is required)' '$t/out'"
ev --registered-only "$t/none" base="$t/base.ktap" >"$t/out" 2>&1
expect "an unreadable list is exit 2, naming it" bash -c "[ $? = 2 ] && grep -q 'cannot read the registered-only list $t/none' '$t/out'"
# broken on: shrinker lines never attached to their test (no rows).
expect "... ext4's superblock shrinker on base: registered, counted, freed" \
	grep -qF '| ext4 | `sb-ext4:loop0` | 1 reg., 2046 -> 0 -> 0, freed 2046 | no shrinker debugfs |' "$t/table"
# broken on: the "freed N" part required (every row without it lost).
expect "... a shrinker that freed nothing keeps its row" \
	grep -qF '| nfs | `nfsd-filecache` | 1 reg., 0 -> 0 -> 0, registered only | no shrinker debugfs |' "$t/table"
# broken on: no UUID replacement (bcache's row named by this run's cache set).
expect "... bcache's shrinker by its name without the cache set's UUID" grep -qF '`md-bcache:<uuid>`' "$t/table"
expect "... every debian-subsys test with a shrinker line has rows (12 tests)" \
	test "$(awk -F' [|] ' 'NR > 2 && /^[|] / { print $1 }' "$t/table" | sort -u | wc -l)" = 12
# The lines come before their test's result line.
expect "... binder's shrinker under binder" grep -qF '| binder | `android-binder` |' "$t/table"
# broken on: a kernel without the row printed as "no shrinker debugfs".
grep -v '^# shrinker sb-xfs:loop0: ' "$t/base.ktap" >"$t/no-xfs.ktap"
check "a kernel without one shrinker" ev base="$t/base.ktap" other="$t/no-xfs.ktap"
expect "... has it marked not seen" grep -qF '| xfs | `sb-xfs:loop0` | 1 reg., 2046 -> 0 -> 0, freed 2046 | **not seen** |' "$t/out"
grep -v 'debian-subsys' "$t/base.ktap" >"$t/none.ktap"
ev base="$t/none.ktap" >"$t/out" 2>&1
expect "a result without debian-subsys is exit 1" test $? = 1
ev base >"$t/out" 2>&1
expect "KERNEL without =FILE is exit 2" test $? = 2
ev a="$fx/result-all-base.ktap" a="$fx/result-all-base.ktap" >"$t/out" 2>&1
expect "a kernel named twice is exit 2" test $? = 2
ev a="$t/missing.ktap" >"$t/out" 2>&1
expect "an unreadable file is exit 2, naming it" bash -c "[ $? = 2 ] && grep -q 'cannot read $t/missing.ktap' '$t/out'"

echo "1..$((pass + fail))"
echo "debian-evidence-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
