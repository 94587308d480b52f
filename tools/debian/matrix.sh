#!/usr/bin/env bash
# The stack on every Debian linux-source-6.1 upload (issue 26, section 2).
#
# Usage: tools/debian/matrix.sh [options] [VERSION...]
#   VERSION..., --versions LIST  these uploads (LIST: comma or blank
#                    separated); default: every one 'apt-cache madison
#                    linux-source-6.1' lists (S61_MADISON=FILE: that output
#                    read from FILE) and every one of Debian's source package
#                    'linux' ('tools/debian/quilt.sh versions'; with S61_MADISON,
#                    S61_MADISON_SRC=FILE). Each must be in those lists.
#   --no-boot        the matrix only: the dry runs, no move, no build, no boot
#   --dry-run        say what would run; run nothing, write nothing
#   --force          redo uploads already recorded for the same stack
#   --resolve VER    move VER's scratch copy until the first conflict that
#                    has no recorded resolution and leave it there to resolve
#   --save-resolutions VER  after that move finished: keep its resolved
#                    patches in matrix/VER/ (commit them)
# Per upload, in a scratch copy of the stack (.work/matrix/VER/: proj/ the
# tools, branch-stack.txt and patches/, work/ its own S61_WORK; the shared
# import is shared, this clone's checkout and patches/ are never touched):
# 'tools/stack/stack.sh move VER --dry-run' from the stack's own upload gives the
# line of every patch (clean, offset, fuzz, conflict + files); where every
# patch goes on, or every conflict has a recorded resolution (matrix/VER/),
# 'tools/stack/stack.sh move VER' moves the scratch copy and 'tools/boot/guest-test.sh
# --config boot --suites smoke,lockless TOP' builds and boots its top.
#   --page           write docs/results/debian-versions.md from the record;
#                    run nothing (no archive, no checkout)
# Results and timings: docs/debian-versions.tsv (a line per upload and
# field, with the stack id of the stack it ran on); the page
# docs/results/debian-versions.md is made from it (tools/lib/results.py
# debian-versions; a row of another stack is marked so). Both are written after every upload (temporary file, then rename): Ctrl-C
# loses at most the upload in progress, and the next run resumes: an
# upload recorded for the same stack (branch-stack.txt, patches/ and its
# matrix/VER/) is not redone (--force redoes it).
# S61_GUEST_TEST: the guest test to run (default tools/boot/guest-test.sh).
# Exit: 0; 1 when a build or boot failed, or an upload could not be done.
. "$(dirname "$0")/../lib/lib.sh"

CONFIG=boot SUITES=smoke,lockless
MDIR=$S61_WORK/matrix
TSV=$S61_ROOT/docs/debian-versions.tsv
DOC=$S61_ROOT/docs/results/debian-versions.md
RES=$S61_ROOT/matrix
GUEST_TEST=${S61_GUEST_TEST:-$S61_ROOT/tools/boot/guest-test.sh}

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

# ---------------------------------------------------------------- input
# The uploads the archive has, one a line: those of the binary package
# $S61_SRC_PKG (the parsing of 'tools/stack/stack.sh check-upstream') and those of
# Debian's source package 'linux' ('tools/debian/quilt.sh versions'), which the
# import takes when there is no .deb. With S61_MADISON=FILE (the binary's
# list read from FILE), the source package's list comes from
# S61_MADISON_SRC=FILE only. A source list that cannot be had is said, and
# the binary's uploads are taken.
archive_versions() {
	local out src=
	if [ -n "${S61_MADISON:-}" ]; then
		out=$(cat "$S61_MADISON") || die "cannot read S61_MADISON=$S61_MADISON"
		[ -z "${S61_MADISON_SRC:-}" ] ||
			src=$("$S61_ROOT/tools/debian/quilt.sh" versions) || exit 1
	else
		out=$(apt-cache madison "$S61_SRC_PKG") || die "apt-cache madison $S61_SRC_PKG failed"
		src=$("$S61_ROOT/tools/debian/quilt.sh" versions) ||
			info "the source package's uploads are unknown (above): only those of $S61_SRC_PKG"
	fi
	{
		printf '%s\n' "$out" | awk -F'|' 'NF >= 3 { v = $2; gsub(/[ \t]/, "", v); if (v != "") print v }'
		[ -z "$src" ] || printf '%s\n' "$src"
	} | awk '!seen[$0]++'
}

# The lines of stdin (Debian versions) in Debian's order, oldest first.
sort_versions() {
	local v i n out=()
	while read -r v; do
		[ -n "$v" ] || continue
		n=${#out[@]}
		out+=("$v")
		for ((i = n; i > 0; i--)); do
			dpkg --compare-versions "${out[i-1]}" gt "${out[i]}" || break
			v=${out[i-1]}; out[i-1]=${out[i]}; out[i]=$v
		done
	done
	[ ${#out[@]} = 0 ] || printf '%s\n' "${out[@]}"
}

# ---------------------------------------------------------------- records
# docs/debian-versions.tsv: "VERSION<TAB>FIELD<TAB>KEY<TAB>VALUE" (KEY "-"
# but for the lines of a patch, KEY branch/file). Loaded into R[V|F|K].
declare -A R=()
load_tsv() {
	local v f k val
	R=()
	[ -f "$TSV" ] || return 0
	while IFS=$'\t' read -r v f k val; do
		case $v in '#'*|'') continue ;; esac
		R[$v|$f|$k]=$val
	done <"$TSV"
}

# The identity of what an upload's record was made from: the stack's
# version, branch-stack.txt, patches/ and the upload's resolutions (the
# record's "stack" field; its "stack_id" is stack_id of lib.sh, the id
# every record of the project names its stack by).
upload_id() {
	{
		echo "home $(stack_base_version)"
		cat "$S61_STACK_FILE"
		(cd "$S61_ROOT" && find patches "matrix/$1" -type f 2>/dev/null | LC_ALL=C sort |
			while IFS= read -r f; do echo "== $f"; cat "$f"; done)
	} | sha256sum | cut -c1-16
}

# Is upload $1 recorded for the stack as it is, as far as this run needs?
# Not when its dry run, move, build or boot failed: the next run tries
# again; nor, for a run with builds, when it was recorded by --no-boot.
recorded() {
	[ "${R[$1|stack|-]:-}" = "$(upload_id "$1")" ] || return 1
	case ${R[$1|dry|-]:-error} in error*) return 1 ;; esac
	[ "$boot" = 1 ] || return 0
	case ${R[$1|move|-]:-}/${R[$1|build|-]:-}/${R[$1|boot|-]:-} in
	error*|*/FAIL*|*"not run (--no-boot)"*) return 1 ;;
	esac
}

# rec FIELD KEY VALUE: one line of the record of the upload in progress.
rec() {
	printf '%s\t%s\t%s\t%s\n' "$cur" "$1" "$2" "${3//$'\t'/ }" >>"$recf"
}

# The record of upload $1 ($recf) replaces its old lines in the TSV, and
# the page is made again; each a temporary file renamed into place.
commit_record() {
	local tmp=$TSV.tmp.$$
	{
		echo "# tools/debian/matrix.sh: a line per upload and field (VERSION FIELD KEY VALUE); docs/results/debian-versions.md is made from it"
		[ ! -f "$TSV" ] || awk -F'\t' -v v="$1" '$1 != v && !/^#/' "$TSV"
		cat "$recf"
	} >"$tmp" || die "could not write $tmp"
	mv "$tmp" "$TSV" || die "could not write $TSV"
	load_tsv
	write_doc
}

# ---------------------------------------------------------------- the page
# docs/results/debian-versions.md, all of it, from the record
# (tools/lib/results.py debian-versions; --page alone does just this).
write_doc() {
	python3 "$S61_ROOT/tools/lib/results.py" debian-versions --out "$DOC" 2>/dev/null ||
		die "could not write ${DOC#"$S61_ROOT"/} (python3 tools/lib/results.py debian-versions says why)"
}

# The uploads of the TSV, oldest first.
tsv_versions() {
	local k
	for k in "${!R[@]}"; do
		case $k in *"|stack|-") echo "${k%%|*}" ;; esac
	done | sort_versions
}

# ---------------------------------------------------------------- scratch copies
# sst DIR ARGS: tools/stack/stack.sh of the scratch copy in DIR.
sst() {
	local d=$1
	shift
	S61_WORK=$d/work "$d/proj/tools/stack/stack.sh" "$@"
}

kg() {
	git -C "$1/work/linux" "${@:2}"
}

# The scratch copy of the stack in DIR, as this clone's stack is now: its
# tools, branch-stack.txt and patches/ copied, its checkout's branches
# applied from them (a move left there is aborted; a checkout that will not
# apply is made anew). Output in DIR/setup.log.
scratch_setup() {
	local d=$1 p=$1/proj try
	mkdir -p "$d" || die "cannot make $d"
	{ rm -rf "$p.new" && mkdir -p "$p.new" &&
		cp -r "$S61_ROOT/tools" "$S61_STACK_FILE" "$S61_PATCHES" "$p.new/"; } ||
		die "cannot copy the stack into $p.new"
	if [ -d "$d/work/linux/.git" ]; then
		sst "$d" move --abort >>"$d/setup.log" 2>&1 || :
	fi
	rm -rf "$p"
	mv "$p.new" "$p" || die "cannot make $p"
	for try in 1 2; do
		if sst "$d" init >>"$d/setup.log" 2>&1 && sst "$d" apply --force >>"$d/setup.log" 2>&1; then
			return 0
		fi
		[ $try = 2 ] || { echo "== making the scratch checkout anew" >>"$d/setup.log"; rm -rf "$d/work/linux"; }
	done
	return 1
}

# The report lines of tools/stack/stack.sh move on stdin: "BRANCH/PATCH: RESULT".
report_lines() {
	grep -E '^[^ /]+/[^ ]+: [a-z]'
}

# A cell from a report line: "clean", "conflict FILES", ...
cell_of() {
	sed -e 's/^[^ ]*: //' -e 's/ (files: \(.*\))$/ \1/' -e 's/^empty (already in .*)$/empty/'
}

# The recorded resolution of patch $2 on upload $1: "resolved" or
# "dropped" when matrix/$1/resolved.tsv has it for the patch as it is in
# patches/ now, "stale" when for an older one, nothing when not at all.
resolution() {
	local line sha
	line=$(awk -F'\t' -v p="$2" '$1 == p' "$RES/$1/resolved.tsv" 2>/dev/null)
	[ -n "$line" ] || return 0
	sha=$(sha256sum <"$S61_PATCHES/$2" 2>/dev/null | cut -d' ' -f1)
	if [ "$(printf '%s\n' "$line" | cut -f2)" != "$sha" ]; then
		echo stale
	else
		printf '%s\n' "$line" | cut -f3
	fi
}

# move_replay DIR VERSION: 'tools/stack/stack.sh move VERSION' in the scratch copy
# DIR, every conflict with a recorded resolution resolved with it (git am
# of the resolved patch, or --skip for a dropped one) and the move
# continued. Returns 0 when the move finished; 1 stopped at a conflict
# without a usable resolution (in $stopped; the move left in progress);
# 2 another failure (DIR/move.log).
move_replay() {
	local d=$1 v=$2 rc last bp
	stopped=
	sst "$d" move "$v" >"$d/move.out" 2>"$d/move.log"
	rc=$?
	while [ $rc != 0 ]; do
		last=$(report_lines <"$d/move.out" | tail -n 1)
		case $last in
		*": conflict"*|*": empty"*) ;;
		*) return 2 ;;
		esac
		bp=${last%%: *}
		case $(resolution "$v" "$bp") in
		dropped)
			sst "$d" move --skip >>"$d/move.out" 2>>"$d/move.log" ;;
		resolved)
			if ! { kg "$d" reset -q --hard && kg "$d" am -q --keep-cr --committer-date-is-author-date "$RES/$v/patches/$bp"; } >>"$d/move.log" 2>&1; then
				kg "$d" am --abort >/dev/null 2>&1
				stopped="$last; its recorded resolution matrix/$v/patches/$bp does not apply"
				return 1
			fi
			sst "$d" move --continue >>"$d/move.out" 2>>"$d/move.log" ;;
		stale)
			stopped="$last; matrix/$v/ has a resolution for an older version of the patch"
			return 1 ;;
		*)
			stopped="$last; no recorded resolution"
			return 1 ;;
		esac
		rc=$?
	done
}

# ---------------------------------------------------------------- one upload
# The dry run of upload $cur from the home copy: its record lines.
do_dry() {
	local d=$MDIR/$cur rc t0=$SECONDS n
	ensure_home || { rec dry - "error: the scratch copy of the stack did not set up (.work/matrix/$home/setup.log)"; return 1; }
	sst "$hdir" move "$cur" --dry-run >"$d/dry.out" 2>"$d/dry.log"
	rc=$?
	rec dry_secs - $((SECONDS - t0))
	n=$(report_lines <"$d/dry.out" | wc -l)
	# (grep on the file: 'report_lines | grep -q' fails under pipefail
	# when grep -q exits before the writer is done, SIGPIPE, at random)
	if [ "$n" = 0 ] || { [ $rc != 0 ] && ! grep -qE '^[^ /]+/[^ ]+: (conflict|empty)' "$d/dry.out"; }; then
		rec dry - "error (exit $rc): $(tail -n 1 "$d/dry.log" | cut -c1-200)"
		return 1
	fi
	report_lines <"$d/dry.out" | while IFS= read -r l; do
		rec patch "${l%%: *}" "$(cell_of <<<"$l")"
	done
	rec dry - "exit $rc: $(report_lines <"$d/dry.out" | cell_of | awk '{ n[$1]++ }
		END {
			split("clean offset fuzz conflict empty", o, " ")
			for (i = 1; i <= 5; i++)
				if (n[o[i]]) s = s (s == "" ? "" : ", ") n[o[i]] " " o[i] (o[i] == "conflict" && n[o[i]] > 1 ? "s" : "")
			print s
		}')"
}

# The home copy (the stack on its own upload), set up once per run.
ensure_home() {
	[ -z "$home_ok" ] || return "$home_ok"
	info "setting up the scratch copy of the stack on $home (.work/matrix/$home)"
	if scratch_setup "$hdir"; then home_ok=0; else home_ok=1; fi
	return "$home_ok"
}

# Move upload $cur's scratch copy there and build and boot its top.
do_move_boot() {
	local d=$MDIR/$cur t0 rc rs dr
	t0=$SECONDS
	if [ "$cur" = "$home" ]; then
		ensure_home || { rec move - "error: the scratch copy did not set up (.work/matrix/$cur/setup.log)"; return 1; }
		rec move - "(home)"
	else
		if ! scratch_setup "$d"; then
			rec move - "error: the scratch copy did not set up (.work/matrix/$cur/setup.log)"
			return 1
		fi
		move_replay "$d" "$cur"
		rc=$?
		rec move_secs - $((SECONDS - t0))
		rs=$(report_lines <"$d/move.out" | grep -c ': conflict resolved$')
		dr=$(report_lines <"$d/move.out" | grep -c ': dropped (--skip)$')
		report_lines <"$d/move.out" | grep -E ': (conflict resolved|dropped \(--skip\))$' | while IFS= read -r l; do
			rec resolved "${l%%: *}" "${l#*: }"
		done
		case $rc in
		0)
			if [ "$rs$dr" = 00 ]; then
				rec move - "moved"
			else
				rec move - "moved: $rs conflict(s) resolved, $dr patch(es) dropped, as recorded in matrix/$cur/"
			fi ;;
		1)
			sst "$d" move --abort >>"$d/move.log" 2>&1
			rec move - "stopped at ${stopped//|/\\|} (tools/debian/matrix.sh --resolve $cur)"
			not_built "not moved"
			return 0 ;;
		*)
			sst "$d" move --abort >>"$d/move.log" 2>&1
			rec move - "error: $(tail -n 1 "$d/move.log" | cut -c1-200) (.work/matrix/$cur/move.log)"
			not_built "not moved"
			return 1 ;;
		esac
	fi
	guest "$d"
}

not_built() {
	rec build - "not run ($1)"
	rec boot - "not run ($1)"
}

# tools/boot/guest-test.sh of the top in the scratch copy DIR: the build and boot lines.
guest() {
	local d=$1 log=$1/guest.log rc t0=$SECONDS bs summary
	info "$cur: building and booting $top [$CONFIG] with $SUITES (log: $log)"
	S61_WORK=$d/work "$GUEST_TEST" --config "$CONFIG" --suites "$SUITES" --timeout 600 "$top" >"$log" 2>&1
	rc=$?
	bs=$(sed -n 's/^.*: built .* in \([0-9]*\) s$/\1/p' "$log" | tail -n 1)
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ $rc = 125 ]; then
		rec build - "FAIL (.work/matrix/$cur/guest.log)"
		rec build_secs - $((SECONDS - t0))
		rec boot - "not run (no kernel)"
		return 1
	fi
	if grep -q 'kernel from the cache' "$log"; then
		rec build - "cached (the same tree was built before)"
		bs=0
	else
		rec build - "ok"
	fi
	[ -z "$bs" ] || rec build_secs - "$bs"
	t0=$((SECONDS - t0 - ${bs:-0}))
	rec boot_secs - $((t0 < 0 ? 0 : t0))
	if [ $rc = 0 ]; then
		rec boot - "ok: ${summary:-passed}"
		return 0
	fi
	rec boot - "FAIL (exit $rc): ${summary:-no result} (.work/matrix/$cur/guest.log)"
	return 1
}

# One upload: its record, made and committed.
do_version() {
	local bad=0 id l
	cur=$1
	id=$(upload_id "$cur")
	mkdir -p "$MDIR/$cur" || die "cannot make $MDIR/$cur"
	recf=$MDIR/$cur/record.tsv
	: >"$recf"
	rec stack - "$id"
	rec stack_id - "$(stack_id || echo -)"
	rec home - "$home"
	rec when - "$(date -u +%F)"
	if [ "$cur" = "$home" ]; then
		rec dry - "(home)"
		rec dry_secs - 0
	elif [ "${R[$cur|stack|-]:-}" = "$id" ] && [ -n "${R[$cur|dry|-]:-}" ] && [ "${R[$cur|dry|-]#error}" = "${R[$cur|dry|-]}" ]; then
		info "$cur: the dry run is recorded for this stack already; reusing it"
		awk -F'\t' -v v="$cur" '$1 == v && ($2 == "dry" || $2 == "dry_secs" || $2 == "patch")' "$TSV" >>"$recf"
	else
		info "$cur: dry run of the move from $home"
		do_dry || bad=1
	fi
	if [ $bad = 1 ]; then
		not_built "no dry run"
	elif [ "$boot" = 0 ]; then
		[ "$cur" = "$home" ] || rec move - "not run (--no-boot)"
		not_built "--no-boot"
	elif [ "$cur" != "$home" ] && [ -n "$(awk -F'\t' '$2 == "patch" && $4 ~ /^(conflict|empty)/ { print $3 }' "$recf")" ] &&
		! all_resolved; then
		rec move - "not moved: $(conflicts_without) without a recorded resolution (tools/debian/matrix.sh --resolve $cur)"
		not_built "not moved"
	else
		do_move_boot || bad=1
	fi
	commit_record "$cur"
	l=$(awk -F'\t' '$2 == "dry" || $2 == "move" || $2 == "build" || $2 == "boot" { printf "%s%s: %s", s, $2, $4; s = "; " }' "$recf")
	info "$cur: $l"
	return $bad
}

# Every conflict of the dry run of $cur has a usable recorded resolution.
all_resolved() {
	[ -z "$(conflicts_without)" ]
}

conflicts_without() {
	local p
	awk -F'\t' '$2 == "patch" && $4 ~ /^(conflict|empty)/ { print $3 }' "$recf" | while IFS= read -r p; do
		case $(resolution "$cur" "$p") in resolved|dropped) ;; *) echo "$p" ;; esac
	done | paste -sd' '
}

# ---------------------------------------------------------------- resolutions
cmd_resolve() {
	local v=$1 d=$MDIR/$1 rc
	info "$v: moving a scratch copy of the stack there (.work/matrix/$v), recorded resolutions replayed"
	scratch_setup "$d" || die "the scratch copy did not set up; see $d/setup.log"
	move_replay "$d" "$v"
	rc=$?
	report_lines <"$d/move.out"
	case $rc in
	0) info "$v: the move finished; 'tools/debian/matrix.sh --save-resolutions $v' keeps its resolutions" ;;
	1) echo "stopped at $stopped"
	   info "resolve it in $d/work/linux: edit the files, 'git -C $d/work/linux add -f FILE...', then 'S61_WORK=$d/work $d/proj/tools/stack/stack.sh move --continue' (or '... move --skip' to drop the patch); the same at every further conflict; when the move has finished: 'tools/debian/matrix.sh --save-resolutions $v'" ;;
	*) tail -n 5 "$d/move.log" >&2; die "the move of the scratch copy to $v failed (not at a conflict); log: $d/move.log" ;;
	esac
}

cmd_save() {
	local v=$1 d=$MDIR/$1 p tmp n=0 src
	[ -d "$d/proj" ] || die "no scratch copy for $v ($d): run 'tools/debian/matrix.sh --resolve $v' first"
	{ [ "$(awk '$1 == "base" { print $3; exit }' "$d/proj/branch-stack.txt")" = "$v" ] && sst "$d" status >/dev/null 2>&1; } ||
		die "the scratch copy $d is not a finished move to $v ('S61_WORK=$d/work $d/proj/tools/stack/stack.sh status' says why): finish it ('... move --continue'), or start again with 'tools/debian/matrix.sh --resolve $v'"
	src=$(mktemp -d) || die "mktemp failed"
	# The patches whose dry run conflicted, or would not go on (empty).
	grep -E "^$v	patch	" "$TSV" 2>/dev/null | awk -F'\t' '$4 ~ /^(conflict|empty)/ { print $3 }' >"$src/list"
	[ -s "$src/list" ] || { rm -rf "$src"; die "docs/debian-versions.tsv records no conflict of $v for this stack: run 'tools/debian/matrix.sh --no-boot --versions $v' first"; }
	tmp=$RES/$v.new
	rm -rf "$tmp"
	mkdir -p "$tmp/patches" || die "cannot make $tmp"
	while IFS= read -r p; do
		[ -f "$S61_PATCHES/$p" ] || continue
		if [ -f "$d/proj/patches/$p" ]; then
			{ mkdir -p "$tmp/patches/${p%/*}" && cp "$d/proj/patches/$p" "$tmp/patches/$p"; } || die "cannot copy $p"
			printf '%s\t%s\tresolved\n' "$p" "$(sha256sum <"$S61_PATCHES/$p" | cut -d' ' -f1)" >>"$tmp/resolved.tsv"
		else
			printf '%s\t%s\tdropped\n' "$p" "$(sha256sum <"$S61_PATCHES/$p" | cut -d' ' -f1)" >>"$tmp/resolved.tsv"
		fi
		n=$((n + 1))
	done <"$src/list"
	rm -rf "$src" "${RES:?}/$v"
	mv "$tmp" "$RES/$v" || die "cannot write $RES/$v"
	info "$v: $n resolution(s) in matrix/$v/ (resolved.tsv: patch, sha256 of the patch it resolves, resolved|dropped); commit them, then 'tools/debian/matrix.sh --versions $v'"
}

# ---------------------------------------------------------------- main
boot=1 dry=0 force=0 resolve='' save='' page=0
want=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--versions) [ $# -ge 2 ] || die "--versions needs a list, e.g. --versions 6.1.176-1,6.1.190-1"
		read -r -a l <<<"${2//,/ }"; want+=("${l[@]}"); shift ;;
	--versions=*) a=${1#*=}; read -r -a l <<<"${a//,/ }"; want+=("${l[@]}") ;;
	--no-boot) boot=0 ;;
	-n|--dry-run) dry=1 ;;
	--force) force=1 ;;
	--page) page=1 ;;
	--resolve) resolve=${2:?--resolve needs a VERSION}; shift ;;
	--save-resolutions) save=${2:?--save-resolutions needs a VERSION}; shift ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) want+=("$1") ;;
	esac
	shift
done

if [ $page = 1 ]; then
	if [ ${#want[@]} != 0 ] || [ $boot$dry$force != 100 ] || [ -n "$resolve$save" ]; then
		die "--page takes no other option: it writes the page from the record alone"
	fi
	write_doc
	info "wrote ${DOC#"$S61_ROOT"/}"
	exit 0
fi

home=$(stack_base_version)
[ -n "$home" ] || die "branch-stack.txt has no 'base <package> <version>' line"
top=$(stack_top)
hdir=$MDIR/$home home_ok=
for v in "${want[@]}" $resolve $save; do
	case $v in
	*[!0-9A-Za-z.+~:-]*|[!0-9]*) die "'$v' is not a Debian version (e.g. 6.1.176-1; 'apt-cache madison $S61_SRC_PKG' lists the uploads); nothing was changed" ;;
	esac
done
archive=$(archive_versions) || exit 1
[ -n "$archive" ] || die "apt knows no version of $S61_SRC_PKG ('apt-get update' refreshes its lists; or give S61_MADISON=FILE); nothing was changed"
for v in "${want[@]}" $resolve $save; do
	grep -qxF -- "$v" <<<"$archive" ||
		die "$S61_SRC_PKG $v is not in the archive ('apt-cache madison $S61_SRC_PKG' lists: $(paste -sd' ' <<<"$archive"); 'apt-get update' if it is new); nothing was changed"
done
[ ${#want[@]} -gt 0 ] || mapfile -t want <<<"$archive"
# The stack's own upload first (the home copy the dry runs start from),
# then newest first.
mapfile -t want < <(printf '%s\n' "${want[@]}" | awk '!seen[$0]++' | sort_versions | tac |
	awk -v h="$home" '$0 == h { print; next } { l[++n] = $0 } END { for (i = 1; i <= n; i++) print l[i] }')
load_tsv

if [ -n "$resolve$save" ]; then
	[ $dry = 0 ] || die "--dry-run goes with a matrix run, not with --resolve/--save-resolutions"
	[ "${resolve:-$save}" != "$home" ] || die "$home is the stack's own upload: nothing to resolve"
	if [ -n "$resolve" ]; then cmd_resolve "$resolve"; else cmd_save "$save"; fi
	exit
fi

todo=()
for v in "${want[@]}"; do
	if [ $force = 0 ] && recorded "$v"; then
		info "$v: recorded for this stack already (docs/debian-versions.tsv); --force redoes it"
	else
		todo+=("$v")
	fi
done
if [ $dry = 1 ]; then
	for v in "${todo[@]}"; do
		if [ "$v" = "$home" ]; then
			echo "$v: the stack's own upload, in the scratch copy .work/matrix/$v"
		else
			echo "$v: 'tools/stack/stack.sh move $v --dry-run' in the scratch copy .work/matrix/$home (stack on $home)"
		fi
		[ $boot = 0 ] || if [ "$v" = "$home" ]; then
			echo "$v: $(basename "$GUEST_TEST") --config $CONFIG --suites $SUITES $top in .work/matrix/$v"
		else
			echo "$v: if every patch goes on (or matrix/$v/ resolves its conflicts): 'tools/stack/stack.sh move $v' in the scratch copy .work/matrix/$v, then $(basename "$GUEST_TEST") --config $CONFIG --suites $SUITES $top there"
		fi
	done
	echo "dry run: ${#todo[@]} upload(s) to do${todo[*]:+: ${todo[*]}}; results into docs/debian-versions.tsv and docs/results/debian-versions.md; nothing was run"
	exit 0
fi
[ ${#todo[@]} -gt 0 ] || { info "nothing to do: every upload asked for is recorded for this stack"; exit 0; }

mkdir -p "$MDIR" || die "cannot make $MDIR"
exec 8>"$MDIR/lock"
flock -n 8 || die "another tools/debian/matrix.sh runs in this clone ($MDIR/lock)"
# Ctrl-C: no temporary file left; the TSV and the page hold the uploads
# done before; tools/stack/stack.sh's own trap restores a scratch copy mid-move.
on_exit() {
	local rc=$?
	rm -f "$TSV.tmp.$$"
	[ $rc -lt 128 ] ||
		info "interrupted: the uploads done before are recorded, the one in progress is not; this clone's stack was not touched; run again to resume"
}
trap 'exit 130' INT
trap 'exit 143' TERM
trap on_exit EXIT
failed=()
for v in "${todo[@]}"; do
	t0=$SECONDS
	do_version "$v" || failed+=("$v")
	info "$v: done in $((SECONDS - t0)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
	info "failed (a build, a boot or the run itself): ${failed[*]}; docs/results/debian-versions.md says which"
	exit 1
fi
info "recorded ${todo[*]} in docs/debian-versions.tsv and docs/results/debian-versions.md"
