#!/usr/bin/env bash
# Build and checkpatch every commit of a range, one at a time, and name the
# first commit that does not build, adds a compiler warning or fails checkpatch.
#
# Usage: tools/stack/check-commits.sh [options] [RANGE]
#   RANGE          A..B or a single commit, in the kernel checkout
#                  (default: base..<top branch of branch-stack.txt>)
#   --config NAME  config fragment from qemu/configs/ (default: boot)
#   -j N           parallel build jobs (default: number of CPUs)
#   --keep-going   go on after the first bad commit (default: stop there)
#   --dry-run      only list the commits and what would be done
#   --incremental  no full rebuild per commit: faster, but the warning count
#                  then covers the recompiled objects only, and a warning is
#                  new when no earlier build of the run printed it
#   --no-baseline  do not build the parent of the first commit first
# Every commit is checked out in a worktree of its own (the main checkout is
# never touched), .work/check-commits/linux, and built by tools/build/kbuild.sh with
# O=.work/check-commits/build/NAME and the shared ccache. Its objects are
# removed first (ccache makes that cheap), so the log holds all warnings.
# A warning is new if the previous commit that built (the baseline, i.e. the
# parent of the first commit, for the first one) had fewer of its kind (line
# numbers ignored). checkpatch: tools/stack/checkpatch.sh on the commit alone, numbered
# as in patches/<branch>/ so that tools/stack/checkpatch-exceptions.txt applies.
# Output: a table on stdout and in .work/logs/check-commits-<time>.txt; build
# logs in .work/check-commits/logs/. Exit 1 names the first bad commit.
# Environment: S61_CHECK_COMMITS_KBUILD, the kbuild to run (default
# tools/build/kbuild.sh; the tests give a stand-in).
. "$(dirname "$0")/../lib/lib.sh"

# The build command (for this tool's own tests: a stand-in for tools/build/kbuild.sh).
kbuild_cmd=${S61_CHECK_COMMITS_KBUILD:-$S61_ROOT/tools/build/kbuild.sh}

config=boot
jobs=$(nproc)
keep_going=0
dry_run=0
incremental=0
use_baseline=1
range=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--config) config=${2:?--config needs a name}; shift ;;
	--config=*) config=${1#*=} ;;
	-j) jobs=${2:?-j needs a number}; shift ;;
	-j*) jobs=${1#-j} ;;
	--keep-going|-k) keep_going=1 ;;
	--dry-run|-n) dry_run=1 ;;
	--incremental) incremental=1 ;;
	--no-baseline) use_baseline=0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$range" ] || die "only one RANGE please"; range=$1 ;;
	esac
	shift
done
case $jobs in ''|*[!0-9]*|0) die "-j needs a positive number" ;; esac
case $config in ''|*/*) die "bad config name '$config'" ;; esac
[ -f "$S61_ROOT/qemu/configs/$config" ] ||
	die "no config fragment qemu/configs/$config (have: $(cd "$S61_ROOT/qemu/configs" && echo *))"
require_checkout

# --- the commits --------------------------------------------------------------
[ -n "$range" ] || range=base..$(stack_top)
if [[ $range == *..* ]]; then
	revs=$(kgit rev-list --reverse --topo-order "$range" 2>/dev/null) || die "bad range '$range'"
	mapfile -t commits <<<"$revs"
	[ -n "$revs" ] || commits=()
else
	c=$(kgit rev-parse -q --verify "$range^{commit}") || die "no commit '$range' in $S61_LINUX"
	commits=("$c")
fi
[ ${#commits[@]} -gt 0 ] || die "range '$range' has no commits"

# Where each commit sits in the stack: "BRANCH N" (N-th commit of the branch,
# the number of its patch in patches/BRANCH/). Commits outside it get "- 1".
declare -A where
for b in $(stack_branches); do
	kgit rev-parse -q --verify "refs/heads/$b" >/dev/null || continue
	p=$(stack_parent "$b")
	i=0
	while IFS= read -r c; do
		[ -n "$c" ] || continue
		i=$((i + 1))
		[ -n "${where[$c]:-}" ] || where[$c]="$b $i"
	done < <(kgit rev-list --reverse --topo-order "$p..$b" 2>/dev/null)
done
patch_of() {
	local w=${where[$1]:-}
	if [ -n "$w" ]; then
		printf '%s/%04d\n' "${w% *}" "${w#* }"
	else
		echo "(not in stack)"
	fi
}
patch_number() {
	local w=${where[$1]:-}
	if [ -n "$w" ]; then echo "${w#* }"; else echo 1; fi
}

subject() {
	kgit log -1 --format=%s "$1"
}
short() {
	kgit rev-parse --short=12 "$1"
}
trunc() {
	local s=$1 n=$2
	[ ${#s} -le "$n" ] || s="${s:0:$((n - 3))}..."
	printf '%s' "$s"
}

base_sha=
if [ $use_baseline = 1 ]; then
	base_sha=$(kgit rev-parse -q --verify "${commits[0]}^" 2>/dev/null) || base_sha=
fi

ct=$S61_WORK/check-commits
wt=$ct/linux
out=$ct/build/$config
klog=$ct/logs/kbuild-$config.log
mode="full rebuild per commit"
[ $incremental = 0 ] || mode="incremental"

# Baseline results are cached per commit, config fragments and compiler.
cfg_hash() {
	cat "$S61_ROOT"/qemu/configs/* | sha1sum | cut -c1-12
}
bfile=
if [ -n "$base_sha" ]; then
	bkey=$(printf '%s %s %s\n' "$base_sha" "$(cfg_hash)" "$(gcc --version 2>/dev/null | head -1)" |
		sha1sum | cut -c1-12)
	bfile=$ct/baseline/${base_sha:0:12}-$config-$bkey.warnings
fi

if [ $dry_run = 1 ]; then
	echo "check-commits: dry run of $range: ${#commits[@]} commit(s), config $config, -j$jobs, $mode"
	echo "worktree $wt, O=$out"
	if [ -z "$base_sha" ]; then
		echo "baseline: none (the first commit's warnings are not compared)"
	elif [ -f "$bfile" ]; then
		echo "baseline: $(short "$base_sha") $(subject "$base_sha") (cached)"
	else
		echo "baseline: $(short "$base_sha") $(subject "$base_sha") (to build)"
	fi
	printf '%3s  %-12s  %-20s  %5s  %-8s  %s\n' '#' commit patch files include/ subject
	n=0
	for c in "${commits[@]}"; do
		n=$((n + 1))
		nf=$(kgit diff-tree --no-commit-id -r --name-only "$c" | wc -l)
		inc=$(kgit diff-tree --no-commit-id -r --name-only "$c" -- include arch/x86/include | wc -l)
		[ "$inc" = 0 ] && inc=-
		printf '%3d  %-12s  %-20s  %5s  %-8s  %s\n' "$n" "$(short "$c")" "$(patch_of "$c")" \
			"$nf" "$inc" "$(trunc "$(subject "$c")" 60)"
	done
	exit 0
fi

command -v flock >/dev/null || die "flock is missing"
mkdir -p "$ct/logs" "$ct/baseline" "$S61_WORK/logs"
# One run at a time: the worktree and the build directory are shared.
exec 9>"$ct/lock"
flock -n 9 || die "another check-commits is running ($ct/lock)"

tmp=$(mktemp -d)
stamp=$(date +%Y%m%d-%H%M%S)
table=$S61_WORK/logs/check-commits-$stamp.txt
clogs=$ct/logs/commits
rm -rf "$clogs"
mkdir -p "$clogs"
finished=0
trap '[ "$finished" = 1 ] || echo "(interrupted)" >>"$table"; rm -rf "$tmp"' EXIT

# --- the worktree -------------------------------------------------------------
common=$(kgit rev-parse --path-format=absolute --git-common-dir)
if [ -e "$wt/.git" ]; then
	[ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$common" ] ||
		die "$wt exists but is not a worktree of $S61_LINUX; remove it"
else
	[ ! -e "$wt" ] || die "$wt exists but is not a git worktree; remove it"
	info "creating worktree $wt"
	# -f only if git still has a stale registration for this path
	kgit worktree add -q --detach "$wt" "${base_sha:-${commits[0]}}" 2>"$tmp/wt.err" ||
		kgit worktree add -q -f --detach "$wt" "${base_sha:-${commits[0]}}" 2>>"$tmp/wt.err" ||
		die "cannot create worktree $wt: $(tail -1 "$tmp/wt.err")"
fi
wgit() {
	git -C "$wt" "$@"
}
checkout() {
	[ "$(wgit rev-parse HEAD)" = "$1" ] && return 0
	[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
		die "$wt has local changes; commit or drop them (git -C $wt checkout -f HEAD)"
	wgit checkout -q --detach "$1" || die "cannot check out $1 in $wt"
}

# --- building -----------------------------------------------------------------
# Paths in compiler messages: absolute, or relative to O= (ccache's
# CCACHE_BASEDIR rewrites them so); both are stripped.
rel_src=$(realpath -m --relative-to="$out" "$wt")

# tools/build/kbuild.sh on the worktree as it is: S61_WORK=$ct makes its checkout
# $ct/linux, its O= $ct/build/<config> and its log $klog. The locale is left
# as it is: ccache hashes it, and the main checkout's builds use it.
# Args: commit, log copy, full|incr. Returns kbuild's status.
build() {
	local c=$1 log=$2 how=$3 rc=0
	checkout "$c"
	if [ "$how" = full ] && [ -d "$out" ]; then
		# Every object the kernel build makes (host tools in scripts/ and
		# tools/ are kept): all compile again, from ccache when unchanged.
		find "$out" \( -path "$out/scripts" -o -path "$out/tools" \) -prune -o \
			-type f -name '*.o' -exec rm -f {} +
	fi
	: >"$klog"
	S61_WORK=$ct nice -n 10 "$kbuild_cmd" --config "$config" -j "$jobs" --quiet . \
		>/dev/null 2>"$log.err" || rc=$?
	cp "$klog" "$log" 2>/dev/null || : >"$log"
	return $rc
}

# The errors of a failed build: the log's, and tools/build/kbuild.sh's verdict.
build_errors() {
	grep -E 'error|Error|ERROR' "$1" | head -n 10 | sed 's/^/    /'
	tail -n 1 "$1.err" | sed 's/^/    /'
}

# A build log's warnings, one "KEY<TAB>LINE" per warning line; KEY is the line
# without paths, line/column numbers and offsets, with plain quotes.
warnings() {
	awk -v p1="$wt/" -v p2="$rel_src/" '
	function strip(s,   i) {
		gsub(/\033\[[0-9;]*[mK]/, "", s)
		while ((i = index(s, p1)) > 0) s = substr(s, 1, i - 1) substr(s, i + length(p1))
		while ((i = index(s, p2)) > 0) s = substr(s, 1, i - 1) substr(s, i + length(p2))
		return s
	}
	{ line = strip($0) }
	tolower(line) ~ /(^|: )warning: / {
		key = line
		gsub(/\342\200[\230\231]/, "\047", key)
		sub(/:[0-9]+:[0-9]+: /, ": ", key)
		sub(/:[0-9]+: /, ": ", key)
		gsub(/\+0x[0-9a-f]+/, "+0x?", key)
		gsub(/\t/, " ", key)
		print key "\t" line
	}' "$1"
}

# New warnings of $1 (KEY<TAB>LINE) against reference keys $2: full mode,
# keys beyond the reference's (repeats counted); incremental, keys that the
# reference (every key seen so far) does not have. Prints the lines.
new_warnings() {
	cut -f1 "$2" | sort >"$tmp/rk"
	if [ $incremental = 1 ]; then
		cut -f1 "$1" | sort -u | comm -13 <(sort -u "$tmp/rk") - >"$tmp/nk"
		awk -F'\t' 'NR == FNR { k[$0] = 1; next } ($1 in k) { print $2 }' "$tmp/nk" "$1"
	else
		cut -f1 "$1" | sort | comm -13 "$tmp/rk" - >"$tmp/nk"
		awk -F'\t' 'NR == FNR { k[$0]++; next } ($1 in k) && k[$1]-- > 0 { print $2 }' "$tmp/nk" "$1"
	fi
}

# --- the run ------------------------------------------------------------------
emit() {
	# shellcheck disable=SC2059  # the format is the caller's
	printf "$@" | tee -a "$table"
}
row() {
	emit '%-12s  %-50s  %-5s  %-12s  %-10s  %5s  %s\n' "$@"
}
details=$tmp/details
: >"$details"
ref=$tmp/ref
: >"$ref"
have_ref=0
t_start=$SECONDS

{
	echo "check-commits $stamp: $range, ${#commits[@]} commit(s), config $config, -j$jobs, $mode"
	echo "series repository $(git -C "$S61_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), kernel worktree $wt"
} | tee "$table"
row commit subject build warnings checkpatch secs result

if [ -n "$base_sha" ]; then
	bshort=$(short "$base_sha")
	bsubj="(baseline) $(subject "$base_sha")"
	if [ -f "$bfile" ]; then
		cp "$bfile" "$ref"
		have_ref=1
		row "$bshort" "$(trunc "$bsubj" 50)" cached "$(wc -l <"$ref")" - 0 "baseline"
	else
		info "baseline: building $bshort $(subject "$base_sha")"
		t0=$SECONDS
		blog=$clogs/00-$bshort.log
		if build "$base_sha" "$blog" full; then
			warnings "$blog" >"$ref"
			cp "$ref" "$bfile"
			have_ref=1
			row "$bshort" "$(trunc "$bsubj" 50)" ok "$(wc -l <"$ref")" - $((SECONDS - t0)) "baseline"
		else
			row "$bshort" "$(trunc "$bsubj" 50)" FAIL - - $((SECONDS - t0)) "baseline does not build"
			{
				echo "baseline $bshort does not build; the first commit's warnings are not compared (log: $blog)"
				build_errors "$blog"
			} >>"$details"
			warn "the baseline $bshort does not build (log: $blog)"
		fi
	fi
fi

first_bad=
n=0
checked=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	s=$(short "$c")
	subj=$(subject "$c")
	patch=$(patch_of "$c")
	info "[$n/${#commits[@]}] $s $patch: $subj"
	t0=$SECONDS
	log=$clogs/$(printf '%02d' "$n")-$s.log
	bad=()

	# build: the first commit of an incremental run starts from a full one
	# when there is no baseline to compare it with.
	how=full
	[ $incremental = 0 ] || [ $have_ref = 0 ] || how=incr
	if build "$c" "$log" "$how"; then
		bstat=ok
	else
		bstat=FAIL
		bad+=("build")
		{
			echo "$s $patch $subj: BUILD FAILED (log: $log)"
			build_errors "$log"
		} >>"$details"
	fi
	warnings "$log" >"$tmp/cur"
	nw=$(wc -l <"$tmp/cur")
	wdesc=$nw
	if [ $have_ref = 1 ]; then
		new_warnings "$tmp/cur" "$ref" >"$tmp/new"
		nn=$(wc -l <"$tmp/new")
		if [ "$nn" -gt 0 ]; then
			wdesc="$nw (+$nn new)"
			bad+=("new warning")
			{
				echo "$s $patch $subj: $nn new warning(s) (log: $log):"
				sed 's/^/    /' "$tmp/new"
			} >>"$details"
		fi
	fi
	if [ $incremental = 1 ]; then
		sort -u "$ref" "$tmp/cur" >"$tmp/ref.new"
		mv "$tmp/ref.new" "$ref"
		have_ref=1
	elif [ $bstat = ok ]; then
		cp "$tmp/cur" "$ref"
		have_ref=1
	fi

	# checkpatch on the commit alone, in the worktree (checked out at it)
	if kgit rev-parse -q --verify "$c^" >/dev/null; then
		if S61_WORK=$ct "$S61_ROOT/tools/stack/checkpatch.sh" --start-number "$(patch_number "$c")" "$c^..$c" \
			>"$tmp/cp" 2>&1; then
			cstat=clean
		else
			nf=$(grep -vc '^checkpatch: ' "$tmp/cp")
			cstat="FAIL ($nf)"
			bad+=("checkpatch")
			{
				echo "$s $patch $subj: checkpatch:"
				sed -e 's|^[^ ]*/\([^/ ]*\.patch: \)|\1|' -e 's/^/    /' "$tmp/cp"
			} >>"$details"
		fi
	else
		cstat="n/a (root)"
	fi

	checked=$((checked + 1))
	if [ ${#bad[@]} -eq 0 ]; then
		result=ok
	else
		result="BAD: $(printf '%s, ' "${bad[@]}")"
		result=${result%, }
	fi
	row "$s" "$(trunc "$subj" 50)" "$bstat" "$wdesc" "$cstat" $((SECONDS - t0)) "$result"
	if [ ${#bad[@]} -gt 0 ] && [ -z "$first_bad" ]; then
		first_bad="$s $patch $subj ($result)"
		[ $keep_going = 1 ] || break
	fi
done

secs=$((SECONDS - t_start))
emit 'total: %d of %d commit(s) checked in %d s (%dm%02ds), config %s, -j%s, %s\n' \
	"$checked" "${#commits[@]}" "$secs" $((secs / 60)) $((secs % 60)) "$config" "$jobs" "$mode"
if [ -s "$details" ]; then
	emit '\n'
	tee -a "$table" <"$details"
fi
emit '(table: %s; build logs: %s)\n' "$table" "$clogs"
finished=1
if [ -n "$first_bad" ]; then
	emit '\nfirst bad commit: %s\n' "$first_bad"
	exit 1
fi
exit 0
