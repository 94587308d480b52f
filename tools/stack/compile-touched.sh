#!/usr/bin/env bash
# Compile, with W=1, every .c file each commit of a range touches, one commit
# at a time, and fail a commit whose objects have a warning that the same
# objects built at the baseline do not have.
#
# Usage: tools/stack/compile-touched.sh [options] [RANGE]
#   RANGE          A..B or a single commit, in the kernel checkout
#                  (default: base..<top branch of branch-stack.txt>)
#   -j N           parallel jobs (default: 1, to leave the CPUs to other builds)
#   --config NAME  config fragment from qemu/configs/ (default: compile-coverage)
#   --baseline REV what "new" is measured against (default: base)
#   --stop         stop at the first bad commit
#   --list         only show the commits and the .c files they touch
# Builds run under nice -n 10 in a worktree of its own (the main checkout is
# never touched): .work/compile-touched/linux, O=.work/compile-touched/build/NAME,
# configured by tools/build/kbuild.sh. Warnings are compared with line numbers removed.
# Objects the config does not build are reported as "not built (config)";
# commits without kernel .c changes are skipped. Exit 1 names the first bad commit.
. "$(dirname "$0")/../lib/lib.sh"

jobs=1
config=compile-coverage
baseline=base
stop=0
list_only=0
range=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-j) jobs=${2:?-j needs a number}; shift ;;
	-j*) jobs=${1#-j} ;;
	--config) config=${2:?--config needs a name}; shift ;;
	--config=*) config=${1#*=} ;;
	--baseline) baseline=${2:?--baseline needs a revision}; shift ;;
	--baseline=*) baseline=${1#*=} ;;
	--stop) stop=1 ;;
	--list) list_only=1 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) [ -z "$range" ] || die "only one RANGE please"; range=$1 ;;
	esac
	shift
done
case $jobs in ''|*[!0-9]*|0) die "-j needs a positive number" ;; esac
[ -f "$S61_ROOT/qemu/configs/$config" ] || die "no config fragment qemu/configs/$config"
require_checkout

# Stable, ASCII compiler messages (quotes) and sort order.
export LC_ALL=C

[ -n "$range" ] || range=base..$(stack_top)
kgit rev-parse -q --verify "$baseline^{commit}" >/dev/null || die "no revision '$baseline' in $S61_LINUX"
base_sha=$(kgit rev-parse "$baseline^{commit}")
if [[ $range == *..* ]]; then
	revs=$(kgit rev-list --reverse --topo-order "$range" 2>/dev/null) || die "bad range '$range'"
	mapfile -t commits <<<"$revs"
	[ -n "$revs" ] || commits=()
else
	c=$(kgit rev-parse -q --verify "$range^{commit}") || die "no commit '$range' in $S61_LINUX"
	commits=("$c")
fi
[ ${#commits[@]} -gt 0 ] || die "range '$range' has no commits"

# Kernel objects: .c files in the directories kbuild descends into.
kbuild_tops=" arch block certs crypto drivers fs init io_uring ipc kernel lib mm net rust samples security sound usr virt "

# The .c files a commit adds or changes (deletions need no build).
touched_c() {
	kgit diff-tree --no-commit-id -r -M --name-only --diff-filter=ACMRT "$1" -- '*.c'
}

subject() {
	kgit log -1 --format=%s "$1"
}

if [ $list_only = 1 ]; then
	for c in "${commits[@]}"; do
		printf '%s %s\n' "$(kgit rev-parse --short=12 "$c")" "$(subject "$c")"
		touched_c "$c" | sed 's/^/    /'
	done
	exit 0
fi

ct=$S61_WORK/compile-touched
wt=$ct/linux
out=$ct/build/$config
klog=$ct/logs/kbuild-$config.log
mkdir -p "$ct/logs"

# One run at a time: the worktree and the build directory are shared.
exec 9>"$ct/lock"
flock -n 9 || die "another compile-touched is running ($ct/lock)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- the worktree -----------------------------------------------------------
common=$(kgit rev-parse --path-format=absolute --git-common-dir)
if [ -e "$wt/.git" ]; then
	[ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$common" ] ||
		die "$wt exists but is not a worktree of $S61_LINUX; remove it"
else
	[ ! -e "$wt" ] || die "$wt exists but is not a git worktree; remove it"
	info "creating worktree $wt"
	# -f only if git still has a stale registration for this path
	kgit worktree add -q --detach "$wt" "$base_sha" 2>"$tmp/wt.err" ||
		kgit worktree add -q -f --detach "$wt" "$base_sha" 2>>"$tmp/wt.err" ||
		die "cannot create worktree $wt: $(tail -1 "$tmp/wt.err")"
fi
wgit() {
	git -C "$wt" "$@"
}
checkout() {
	[ "$(wgit rev-parse HEAD)" = "$1" ] && return 0
	wgit checkout -q -f --detach "$1" || die "cannot check out $1 in $wt"
}

# Paths as the compiler prints them: absolute, or relative to O= (ccache's
# CCACHE_BASEDIR rewrites them so); both are stripped.
rel_src=$(realpath -m --relative-to="$out" "$wt")

# --- building ---------------------------------------------------------------
# tools/build/kbuild.sh on the worktree as it is: S61_WORK=$ct makes its checkout
# $ct/linux and its O= $ct/build/<config>. Its log is copied to $2.
kbuild() {
	local targets=$1 log=$2 rc=0
	S61_WORK=$ct nice -n 10 "$S61_ROOT/tools/build/kbuild.sh" --config "$config" -j "$jobs" \
		--quiet --target "$targets" . >/dev/null 2>"$tmp/kbuild.err" || rc=$?
	cp "$klog" "$log" 2>/dev/null || : >"$log"
	if [ $rc != 0 ] && ! grep -q '^  CC ' "$log"; then
		cat "$tmp/kbuild.err" >&2
		die "tools/build/kbuild.sh failed before compiling anything (configuration?); log: $log"
	fi
	return 0
}

# (Re)configure when the build directory has no config yet, or the fragments
# or a Kconfig file changed since it was configured; the object listing below
# runs make directly and relies on it.
cfg_hash() {
	cat "$S61_ROOT"/qemu/configs/* | sha1sum | cut -c1-12
}
configure() {
	local sha=$1 stamp=$out/.compile-touched-config prev=
	[ -f "$stamp" ] && prev=$(cat "$stamp")
	if [ -f "$out/.config" ] && [ -n "$prev" ] && [ "${prev#* }" = "$(cfg_hash)" ] &&
		kgit diff --quiet "${prev%% *}" "$sha" -- '*Kconfig*' 2>/dev/null; then
		return 0
	fi
	kbuild "W=1 prepare" "$ct/logs/configure.log"
	[ -f "$out/.config" ] || die "no $out/.config after configuring; log: $ct/logs/configure.log"
	echo "$sha $(cfg_hash)" >"$stamp"
}

# Which of the objects "$@" does the config build? Ask kbuild itself: a dry
# run of each object's directory (the nearest one with a Makefile) lists the
# compile commands of its enabled objects. The objects must not exist yet.
enabled_objs() {
	local o d dirs=()
	for o in "$@"; do
		d=$(dirname "$o")
		while [ "$d" != . ] && [ ! -f "$wt/$d/Makefile" ] && [ ! -f "$wt/$d/Kbuild" ]; do
			d=$(dirname "$d")
		done
		[ "$d" = . ] && continue
		case " ${dirs[*]} " in *" $d/ "*) ;; *) dirs+=("$d/") ;; esac
	done
	[ ${#dirs[@]} -gt 0 ] || return 0
	nice -n 10 make -C "$wt" O="$out" -j1 CC="ccache gcc" HOSTCC="ccache gcc" \
		-s -n W=1 "${dirs[@]}" 2>"$tmp/list.err" | grep -oE -- ' -o [^ ]+\.o( |$)' |
		awk '{ print $2 }' | sort -u >"$tmp/listed"
	for o in "$@"; do
		grep -qxF "$o" "$tmp/listed" && echo "$o"
	done
	return 0
}

# Split a kbuild log into per-object results: "OBJ<TAB>KIND<TAB>KEY<TAB>TEXT"
# for each warning or error of a compile of one of the objects "$@". KEY is
# TEXT without line/column numbers (and objtool offsets), with the function
# the compiler named, so that moved code keeps its key.
parse_log() {
	local log=$1
	shift
	awk -v targets="$*" -v p1="$wt/" -v p2="$rel_src/" '
	BEGIN { n = split(targets, t, " "); for (i = 1; i <= n; i++) want[t[i]] = 1 }
	function strip(s,   i) {
		gsub(/\033\[[0-9;]*[mK]/, "", s)
		while ((i = index(s, p1)) > 0) s = substr(s, 1, i - 1) substr(s, i + length(p1))
		while ((i = index(s, p2)) > 0) s = substr(s, 1, i - 1) substr(s, i + length(p2))
		return s
	}
	{ line = strip($0) }
	# kbuild quiet command lines ("  CC      mm/foo.o") delimit the compiles
	line ~ /^  [A-Z][A-Z0-9_]* +(\[M\] +)?[^ ]+$/ {
		f = line; sub(/^ +[A-Z0-9_]+ +(\[M\] +)?/, "", f)
		cur = (line ~ /^  CC / && (f in want)) ? f : ""
		cfile = ""; cfunc = ""
		next
	}
	/^make(\[[0-9]+\])?: / { next }
	cur == "" { next }
	line ~ /: In function [^ ]+[:,]$/ {
		cfile = line; sub(/: In function .*/, "", cfile)
		cfunc = line; sub(/.*: In function /, "", cfunc); sub(/[:,]$/, "", cfunc)
		gsub(/\342\200[\230\231]/, "\047", cfunc)
		next
	}
	line ~ /: At top level:$/ { cfunc = ""; next }
	line ~ /: (warning|error|fatal error): / {
		kind = (line ~ /: warning: /) ? "warning" : "error"
		key = line
		gsub(/\342\200[\230\231]/, "\047", key)	# UTF-8 quotes, as LANG decides
		sub(/:[0-9]+:[0-9]+: /, ": ", key)
		sub(/:[0-9]+: /, ": ", key)
		gsub(/\+0x[0-9a-f]+/, "+0x?", key)
		file = key; sub(/: .*/, "", file)
		if (cfunc != "" && file == cfile)
			key = file ": in " cfunc ": " substr(key, length(file) + 3)
		print cur "\t" kind "\t" key "\t" line
	}' "$log"
}

# Build the objects "$@" at the checked-out commit. Writes to directory $R:
# status/<obj> (built|config|error|absent), warn/<obj> (sorted KEY<TAB>TEXT)
# and err/<obj> (the compiler's error messages).
build_objs() {
	local R=$1 log=$2 o st enabled=()
	shift 2
	for o in "$@"; do
		mkdir -p "$R/status/$(dirname "$o")" "$R/warn/$(dirname "$o")" "$R/err/$(dirname "$o")"
		: >"$R/warn/$o"
		: >"$R/err/$o"
		if [ ! -f "$wt/${o%.o}.c" ]; then
			echo absent >"$R/status/$o"
			continue
		fi
		rm -f "$out/$o"
	done
	mapfile -t enabled < <(enabled_objs "$@")
	for o in "$@"; do
		[ -f "$R/status/$o" ] || echo config >"$R/status/$o"
	done
	[ ${#enabled[@]} -gt 0 ] || return 0
	# -k: one broken object must not hide the others; -Otarget: with -j N,
	# each compile's messages stay together under its "CC" line.
	kbuild "-k -Otarget W=1 ${enabled[*]}" "$log"
	parse_log "$log" "${enabled[@]}" >"$tmp/parsed"
	for o in "${enabled[@]}"; do
		awk -F'\t' -v o="$o" '$1 == o && $2 == "warning" { print $3 "\t" $4 }' "$tmp/parsed" |
			sort >"$R/warn/$o"
		awk -F'\t' -v o="$o" '$1 == o && $2 == "error" { print $4 }' "$tmp/parsed" >"$R/err/$o"
		if [ -s "$R/err/$o" ] || [ ! -f "$out/$o" ]; then
			st=error
		else
			st=built
		fi
		echo $st >"$R/status/$o"
	done
	return 0
}

# --- what each commit touches -------------------------------------------------
declare -A objs_of
all_objs=()
for c in "${commits[@]}"; do
	list=()
	while IFS= read -r f; do
		case $kbuild_tops in *" ${f%%/*} "*) ;; *) continue ;; esac
		list+=("${f%.c}.o")
	done < <(touched_c "$c")
	objs_of[$c]=${list[*]}
	for o in "${list[@]}"; do
		case " ${all_objs[*]} " in *" $o "*) ;; *) all_objs+=("$o") ;; esac
	done
done

t_start=$SECONDS

# --- baseline: cached per baseline commit, config and compiler ----------------
bkey=$(printf '%s %s %s\n' "$base_sha" "$(cfg_hash)" "$(gcc --version | head -1)" | sha1sum | cut -c1-12)
B=$ct/baseline/${base_sha:0:12}-$config-$bkey
need=()
for o in "${all_objs[@]}"; do
	[ -f "$B/status/$o" ] || need+=("$o")
done
if [ ${#need[@]} -gt 0 ]; then
	info "baseline: building ${#need[@]} object(s) at $(kgit rev-parse --short=12 "$base_sha") ($(subject "$base_sha"))"
	t0=$SECONDS
	checkout "$base_sha"
	configure "$base_sha"
	build_objs "$B" "$ct/logs/baseline-${base_sha:0:12}.log" "${need[@]}"
	for o in "${need[@]}"; do
		[ "$(cat "$B/status/$o")" != error ] ||
			warn "baseline: $o does not build at $baseline (see $ct/logs/baseline-${base_sha:0:12}.log)"
	done
	info "baseline: done in $((SECONDS - t0)) s"
fi

# --- the commits ------------------------------------------------------------
printf '%-12s  %-50s  %-32s  %4s  %5s  %s\n' commit subject objects new secs result
first_bad=
details=$tmp/details
: >"$details"
for c in "${commits[@]}"; do
	short=$(kgit rev-parse --short=12 "$c")
	subj=$(subject "$c")
	[ ${#subj} -le 50 ] || subj="${subj:0:47}..."
	read -r -a objs <<<"${objs_of[$c]}"
	if [ ${#objs[@]} -eq 0 ]; then
		printf '%-12s  %-50s  %-32s  %4s  %5s  %s\n' "$short" "$subj" - - 0 "skipped (no kernel .c file)"
		continue
	fi
	t0=$SECONDS
	R=$ct/results/$short
	rm -rf "$R"
	checkout "$c"
	configure "$c"
	log=$ct/logs/$short.log
	build_objs "$R" "$log" "${objs[@]}"

	nbuilt=0 ncfg=0 nerr=0 nnew=0
	for o in "${objs[@]}"; do
		case $(cat "$R/status/$o") in
		built) nbuilt=$((nbuilt + 1)) ;;
		config)
			ncfg=$((ncfg + 1))
			printf '%s %s: %s not built (config)\n' "$short" "$subj" "$o" >>"$details"
			continue ;;
		*)
			nerr=$((nerr + 1))
			printf '%s %s: %s: BUILD ERROR (log: %s)\n' "$short" "$subj" "$o" "$log" >>"$details"
			head -n 5 "$R/err/$o" | sed 's/^/    /' >>"$details"
			continue ;;
		esac
		# New = keys beyond those of the baseline (counting repeats).
		bw=$B/warn/$o
		[ -f "$bw" ] || bw=/dev/null
		cut -f1 "$bw" | sort >"$tmp/bk"
		cut -f1 "$R/warn/$o" | sort >"$tmp/ck"
		comm -13 "$tmp/bk" "$tmp/ck" >"$tmp/newk"
		n=$(wc -l <"$tmp/newk")
		if [ "$n" -gt 0 ]; then
			nnew=$((nnew + n))
			printf '%s %s: %s: %d new warning(s):\n' "$short" "$subj" "$o" "$n" >>"$details"
			# show the original messages, with their line numbers
			awk -F'\t' 'NR == FNR { k[$0]++; next } ($1 in k) && k[$1]-- > 0 { print "    " $2 }' \
				"$tmp/newk" "$R/warn/$o" >>"$details"
		fi
	done
	desc="$nbuilt built"
	[ $ncfg = 0 ] || desc="$desc, $ncfg not built (config)"
	[ $nerr = 0 ] || desc="$desc, $nerr error"
	if [ $nerr -gt 0 ]; then
		result="BAD: build error"
	elif [ $nnew -gt 0 ]; then
		result="BAD: new warnings"
	else
		result=ok
	fi
	printf '%-12s  %-50s  %-32s  %4s  %5s  %s\n' "$short" "$subj" "$desc" "$nnew" "$((SECONDS - t0))" "$result"
	if [ "$result" != ok ] && [ -z "$first_bad" ]; then
		first_bad="$short $(subject "$c")"
		[ $stop = 0 ] || break
	fi
done

echo "total: ${#commits[@]} commit(s), $((SECONDS - t_start)) s (-j$jobs, config $config, baseline $(kgit rev-parse --short=12 "$base_sha"))"
if [ -s "$details" ]; then
	echo
	cat "$details"
fi
if [ -n "$first_bad" ]; then
	echo
	echo "first bad commit: $first_bad"
	exit 1
fi
exit 0
