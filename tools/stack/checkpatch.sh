#!/usr/bin/env bash
# checkpatch gate: scripts/checkpatch.pl --strict on every patch in patches/
# (or on the commits of a range in the kernel checkout).
#
# Usage: tools/stack/checkpatch.sh [--start-number N] [RANGE]
# Fails on any ERROR, WARNING or CHECK that tools/stack/checkpatch-exceptions.txt does
# not list with a reason. Prints one line per finding and a summary.
# --start-number N numbers the patches of RANGE from N, as in
# patches/<branch>/, so that the exceptions' NNNN-... globs match.
. "$(dirname "$0")/../lib/lib.sh"

start=
range=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--start-number) start=${2:?--start-number needs a number}; shift ;;
	--start-number=*) start=${1#*=} ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$range" ] || die "only one RANGE please"; range=$1 ;;
	esac
	shift
done
case $start in *[!0-9]*) die "--start-number needs a number" ;; esac
[ -z "$start" ] || [ -n "$range" ] || die "--start-number needs a RANGE"
require_checkout
cp_pl=$S61_LINUX/scripts/checkpatch.pl
[ -f "$cp_pl" ] || die "no scripts/checkpatch.pl in $S61_LINUX"
exc=$S61_ROOT/tools/stack/checkpatch-exceptions.txt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$range" ]; then
	kgit format-patch -q --zero-commit ${start:+--start-number "$start"} -o "$tmp" "$range" ||
		die "bad range '$range'"
	mapfile -t files < <(find "$tmp" -name '*.patch' | LC_ALL=C sort)
else
	mapfile -t files < <(for b in $(stack_branches); do
		[ -d "$S61_PATCHES/$b" ] && find "$S61_PATCHES/$b" -name '*.patch' | LC_ALL=C sort
	done)
fi

# Exceptions: "TYPE PATCH-GLOB reason...", '#' comments.
excepted() {
	local type=$1 patch=$2 t g r
	[ -f "$exc" ] || return 1
	while read -r t g r; do
		case $t in ''|'#'*) continue ;; esac
		[ -n "$r" ] || continue
		# shellcheck disable=SC2254
		case $type in $t) ;; *) continue ;; esac
		# shellcheck disable=SC2254
		case $patch in $g) return 0 ;; esac
	done <"$exc"
	return 1
}

# COMMIT_LOG_LONG_LINE is accepted only when every line over 75 columns of
# the patch's message is its upstream reference, kept on one line so that
# the id and the whole title read together: 'Upstream commit <id>
# ("<title>"),'. checkpatch warns once per patch, so the lines are checked
# here; any other long line still fails.
# POSIX awk only: Debian 12's default awk is mawk 1.3.4, whose regular
# expressions have no {m,n} intervals (tests/lint/test-portable.sh), so the id's
# length is counted, not matched.
only_upstream_long() {
	awk 'function upstream_ref(l, w) {
			split(l, w, " ")
			return l ~ /^Upstream commit [0-9a-f]+ \(".*"\),?$/ &&
				length(w[3]) >= 12 && length(w[3]) <= 40
		}
		body && /^---$/ { exit }
		body && length($0) > 75 && !upstream_ref($0) { bad = 1 }
		!body && /^$/ { body = 1 } END { exit bad }' "$1"
}

n=0 bad=0 okc=0 excused=0
for f in "${files[@]}"; do
	n=$((n + 1))
	name=$(basename "$f")
	rel=${f#"$S61_ROOT"/}
	# Debian's python3 first: scripts/spdxcheck.py needs its python3-ply.
	out=$(cd "$S61_LINUX" && PATH=/usr/bin:$PATH perl "$cp_pl" --strict --show-types --terse --no-summary \
		--ignore UNKNOWN_COMMIT_ID "$f" 2>&1)
	clean=1
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		type=$(echo "$l" | sed -n 's/.*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\2/p')
		[ -n "$type" ] || continue
		if excepted "$type" "$name" ||
			{ [ "$type" = COMMIT_LOG_LONG_LINE ] && only_upstream_long "$f"; }; then
			excused=$((excused + 1))
			continue
		fi
		clean=0
		echo "$rel: ${l#*: }"
	done <<<"$out"
	if [ $clean = 1 ]; then okc=$((okc + 1)); else bad=$((bad + 1)); fi
done
echo "checkpatch: $okc passed, $bad failed ($n patches, $excused findings excused by tools/stack/checkpatch-exceptions.txt or as one-line upstream references, UNKNOWN_COMMIT_ID ignored: the base has no upstream history)"
[ $bad = 0 ]
