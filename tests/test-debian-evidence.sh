#!/usr/bin/env bash
# Tests of tools/debian-evidence.py (the converted shrinkers' evidence of
# debian-subsys runs, one column per kernel) on recorded results: the
# first run of base's .deb with every Debian suite (2026-12-06,
# result-all-base.ktap) and Debian's stock kernel (result-subsys-good.ktap,
# no shrinker debugfs).
#
# Each check was seen to fail on a deliberately broken variant of the
# tool, named in a comment above it as "broken on: ...".
# shellcheck disable=SC2016  # the backquotes are Markdown's, not expansions
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
fx=$here/tests/fixtures/debian-image
ev() { python3 "$here/tools/debian-evidence.py" "$@"; }

check "base and stock: a table" ev base="$fx/result-all-base.ktap" stock="$fx/result-subsys-good.ktap"
cp "$t/out" "$t/table"
# broken on: shrinker lines never attached to their test (no rows).
expect "... ext4's superblock shrinker on base: registered, counted, freed" \
	grep -qF '| ext4 | `sb-ext4:loop0` | 1 reg., 2046 -> 0 -> 0, freed 2046 | no shrinker debugfs |' "$t/table"
# broken on: the "freed N" part required (every row without it lost).
expect "... a shrinker that freed nothing keeps its row" \
	grep -qF '| nfs | `nfsd-filecache` | 1 reg., 0 -> 0 -> 0 | no shrinker debugfs |' "$t/table"
# broken on: no UUID replacement (bcache's row named by this run's cache set).
expect "... bcache's shrinker by its name without the cache set's UUID" grep -qF '`md-bcache:<uuid>`' "$t/table"
expect "... every debian-subsys test with a shrinker line has rows (12 tests)" \
	test "$(awk -F' [|] ' 'NR > 2 { print $1 }' "$t/table" | sort -u | wc -l)" = 12
# The lines come before their test's result line.
expect "... binder's shrinker under binder" grep -qF '| binder | `android-binder` |' "$t/table"
# broken on: a kernel without the row printed as "no shrinker debugfs".
grep -v '^# shrinker sb-xfs:loop0: ' "$fx/result-all-base.ktap" >"$t/no-xfs.ktap"
check "a kernel without one shrinker" ev base="$fx/result-all-base.ktap" other="$t/no-xfs.ktap"
expect "... has it marked not seen" grep -qF '| xfs | `sb-xfs:loop0` | 1 reg., 2046 -> 0 -> 0, freed 2046 | **not seen** |' "$t/out"
grep -v 'debian-subsys' "$fx/result-all-base.ktap" >"$t/none.ktap"
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
