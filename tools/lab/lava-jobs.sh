#!/usr/bin/env bash
# Write LAVA job definitions (device type qemu) that boot the branches of
# the stack the way tools/boot/guest-test.sh does and report every KTAP result as a
# LAVA test case (a test monitor on the console; docs/lava.md).
#
# Usage: tools/lab/lava-jobs.sh [BRANCH...] -o DIR --artifacts URL [options]
#   BRANCH           base or branches of branch-stack.txt (default: every
#                    topic branch); one job per branch tip and config
#   -o DIR           where the job files go (<branch>-<config>.yaml, or
#                    <branch>-<commit12>-<config>.yaml with --per-commit)
#   --artifacts URL  base URL of the published kernels: http://, https:// or
#                    file:///; a job fetches URL/kernels/<kcache key>/bzImage
#                    and URL/kernels/<kcache key>/initramfs.cpio, the key
#                    being tools/build/kcache.sh's for that config and commit
#   --per-commit     one job per commit PARENT..BRANCH instead of per tip
#                    (as tools/boot/boot-commits.sh walks them)
#   --config NAME    boot or debug (repeatable or comma-separated; default:
#                    both); a config not in qemu/configs/ is an error
#   --validate FILE...  only validate job files with lava-common's schema
# Every job is validated with lava_common.schemas.validate (Debian's
# lava-common, run by /usr/bin/python3) before it is written; on any error
# nothing is written. Needs the kernel checkout (commit ids, cache keys).
# Exit: 0 written (or valid), 1 bad input or a job the schema rejects.
. "$(dirname "$0")/../lib/lib.sh"

py=/usr/bin/python3
gen=$S61_ROOT/tools/lab/lava-jobgen.py
lava_configs="boot debug"

need_lava() {
	"$py" -c 'import yaml, lava_common.schemas' 2>/dev/null ||
		die "lava-common and python3-yaml are missing for $py; run 'tools/build/deps.sh lava'"
}

out='' url='' per_commit=0 configs=() branches=() validate=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	-o|--out) out=${2:-}; [ -n "$out" ] || die "$1 needs a directory"; shift ;;
	--artifacts) url=${2:-}; [ -n "$url" ] || die "--artifacts needs a URL"; shift ;;
	--per-commit) per_commit=1 ;;
	--config) [ -n "${2:-}" ] || die "--config needs a name ($lava_configs)"
		for c in ${2//,/ }; do configs+=("$c"); done; shift ;;
	--validate) validate=1 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) branches+=("$1") ;;
	esac
	shift
done

if [ $validate = 1 ]; then
	[ ${#branches[@]} -gt 0 ] || die "--validate needs job files"
	need_lava
	exec "$py" "$gen" --validate "${branches[@]}"
fi

# --- the input, checked before anything is written ----------------------------
[ -n "$out" ] || die "-o DIR is missing: say where the job files go"
[ -n "$url" ] || die "--artifacts URL is missing: the base URL the lab fetches kernels/<key>/bzImage and initramfs.cpio from (see docs/lava.md)"
case $url in
http://?*|https://?*|file:///*) ;;
*) die "--artifacts '$url' is not an http://, https:// or file:/// URL (an absolute file:/// path, or the address of the artifact server)" ;;
esac
case $url in *[[:space:]\"\'\\]*) die "--artifacts '$url': blanks, quotes and backslashes are not allowed in the URL" ;; esac
[ ${#configs[@]} -gt 0 ] || read -r -a configs <<<"$lava_configs"
shipped=$(find "$S61_ROOT/qemu/configs" -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' ')
for c in "${configs[@]}"; do
	[ -f "$S61_ROOT/qemu/configs/$c" ] ||
		die "--config '$c' is not a config of qemu/configs/ (we ship: ${shipped% }); LAVA jobs are written for: $lava_configs"
	case " $lava_configs " in
	*" $c "*) ;;
	*) die "--config '$c': tools/lab/lava-jobs.sh has no suites and timeouts for it; choose from: $lava_configs" ;;
	esac
done
if [ ${#branches[@]} = 0 ]; then
	read -r -d '' -a branches < <(stack_branches)
fi
for b in "${branches[@]}"; do
	stack_has_branch "$b" ||
		die "unknown branch '$b'; branch-stack.txt has: base $(stack_branches | tr '\n' ' ')"
	if [ "$per_commit" = 1 ] && [ "$b" = base ]; then
		die "--per-commit: base has no commits of the series; name topic branches: $(stack_branches | tr '\n' ' ')"
	fi
done
need_lava
require_checkout

# --- the jobs: one line per job for the generator ------------------------------
# file branch commit config judged-as kcache-key subject
specs=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$specs" "$tmp"' EXIT
spec() {	# spec FILE BRANCH COMMIT JUDGED SUBJECT
	local c key
	for c in "${configs[@]}"; do
		key=$("$S61_ROOT/tools/build/kcache.sh" key "$c" "$3") ||
			die "cannot compute the kernel cache key of $3 [$c] (tools/build/kcache.sh key)"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1-$c.yaml" "$2" "$3" "$c" "$4" "$key" "$5" >>"$specs"
	done
}
for b in "${branches[@]}"; do
	tip=$(kgit rev-parse -q --verify "refs/heads/$b^{commit}") ||
		die "branch $b does not exist in the kernel checkout $S61_LINUX; run 'tools/stack/stack.sh apply' (or 'make stack') first"
	if [ "$per_commit" = 0 ]; then
		spec "$b" "$b" "$tip" "$b" ""
		continue
	fi
	p=$(stack_parent "$b")
	kgit rev-parse -q --verify "refs/heads/$p" >/dev/null ||
		die "branch $p (below $b) does not exist in the kernel checkout $S61_LINUX; run 'tools/stack/stack.sh apply' first"
	n=0
	while IFS=$'\t' read -r c sub; do
		[ -n "$c" ] || continue
		n=$((n + 1))
		# Judged as tools/boot/guest-test.sh judges a commit: its tip as the
		# branch, one short of it as PARENT..BRANCH.
		judged=$b
		[ "$c" = "$tip" ] || judged=$p..$b
		spec "$b-${c:0:12}" "$b" "$c" "$judged" "${sub//$'\t'/ }"
	done < <(kgit log --reverse --format='%H%x09%s' "$p..$b")
	[ $n -gt 0 ] || die "branch $b has no commits above $p (is the stack applied? 'tools/stack/stack.sh status')"
done

"$py" "$gen" --out "$tmp" --artifacts "$url" --root "$S61_ROOT" \
	--base "$(stack_base_package) $(stack_base_version)" <"$specs" ||
	die "no job written (see above)"
mkdir -p "$out" || die "cannot create $out"
n=0
for f in "$tmp"/*.yaml; do
	mv "$f" "$out/" || die "cannot write $out/$(basename "$f")"
	n=$((n + 1))
done
info "$n job(s) written to $out, each valid for lava_common.schemas.validate"
