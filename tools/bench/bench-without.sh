#!/usr/bin/env bash
# Make a kernel to benchmark against the top of the stack: the top with one
# commit of the series reverted (issue #16 asked it of the unit map, then
# lockless/0004; now a branch of its own, memcg-empty-units, whose parent
# branch is the kernel without it, so make bench-0004 needs no revert). Writes the ref refs/heads/NAME in the kernel checkout; the
# stack's own branches and commits are not touched (a temporary worktree
# does the revert, so the checkout's working tree is never changed).
#
# Usage: tools/bench/bench-without.sh NAME COMMIT [TOP]
#   NAME    the ref to write (e.g. top-no0004); must not be a stack branch
#   COMMIT  the commit to revert: an id, or BRANCH~N / BRANCH (the tip of a
#           stack branch, e.g. mutex for mutex/0001)
#   TOP     what to revert it from (default: the top of the stack)
# Then: tools/bench/bench.sh -a NAME -b TOP ...
# The same inputs give the same tree, so the kernel cache (keyed by the
# tree) reuses an earlier build. Exit 0 done, 1 the revert failed (the
# ref is left as it was), 2 bad arguments.
. "$(dirname "$0")/../lib/lib.sh"

case ${1-} in -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: tools/bench/bench-without.sh NAME COMMIT [TOP] (see --help)" >&2
	exit 2
fi
name=$1 commit=$2
require_checkout
top=${3:-$(stack_top)}
case $name in
'' | -* | */* | *[!A-Za-z0-9._-]*)
	echo "tools/bench/bench-without.sh: '$name' is not a plain ref name (letters, digits, . _ -)" >&2; exit 2 ;;
esac
if stack_has_branch "$name"; then
	echo "tools/bench/bench-without.sh: '$name' is a branch of the stack; choose another name (e.g. top-no0004)" >&2
	exit 2
fi
c=$(kgit rev-parse -q --verify "$commit^{commit}") ||
	{ echo "tools/bench/bench-without.sh: '$commit' is not a commit of $S61_LINUX" >&2; exit 2; }
t=$(kgit rev-parse -q --verify "$top^{commit}") ||
	{ echo "tools/bench/bench-without.sh: '$top' is not a commit of $S61_LINUX" >&2; exit 2; }
kgit merge-base --is-ancestor "$c" "$t" ||
	{ echo "tools/bench/bench-without.sh: $commit is not in the history of $top" >&2; exit 2; }

wt=$(mktemp -d "${TMPDIR:-/tmp}/s61-without.XXXXXX")
cleanup() { kgit worktree remove --force "$wt" >/dev/null 2>&1; rm -rf "$wt"; }
trap cleanup EXIT
kgit worktree add -q --detach "$wt" "$t" || die "cannot make a worktree of $top"
# The identity and date are fixed: the revert's tree is what matters, but a
# fixed commit keeps the ref stable between runs too.
if ! GIT_AUTHOR_DATE="2000-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2000-01-01T00:00:00+0000" git -C "$wt" -c user.name="$S61_IDENT_NAME" \
	-c user.email="$S61_IDENT_EMAIL" revert --no-edit "$c" >"$wt.log" 2>&1; then
	cat "$wt.log" >&2
	rm -f "$wt.log"
	die "reverting $(kgit log -1 --format='%h ("%s")' "$c") from $top does not apply; $name is unchanged"
fi
rm -f "$wt.log"
new=$(git -C "$wt" rev-parse HEAD)
kgit update-ref "refs/heads/$name" "$new" || die "cannot write refs/heads/$name"
info "$name = $(kgit log -1 --format='%h' "$new"): $top without $(kgit log -1 --format='%h ("%s")' "$c")"
