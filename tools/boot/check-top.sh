#!/usr/bin/env bash
# The runs of make check-top, read from a data file (qemu/check-top.runs:
# its header says the format): each run's command of tools/boot/ with its
# arguments, in order, printed before it runs; the first run that fails
# stops the rest (as make did with the runs in its recipe).
#
# Usage: tools/boot/check-top.sh [--runs FILE] [--dry-run] BRANCH RACE_SECS
#   --runs FILE  the runs (default qemu/check-top.runs)
#   --dry-run    print the runs, run none
# BRANCH is the top of the stack (make check-top refuses any other before
# it calls this), RACE_SECS the race tests' seconds (s61.race_secs).
# Exit: 0 every run passed; the failed run's exit status (1 when it gave 0
# as its status cannot be); 2 bad usage or a bad line of the runs file.
. "$(dirname "$0")/../lib/lib.sh"

runs=$S61_ROOT/qemu/check-top.runs
dry=no
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) sed -n '2,/^# Exit:/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--runs) [ $# -ge 2 ] || { echo "check-top: --runs wants a FILE" >&2; exit 2; }; runs=$2; shift 2 ;;
	-n | --dry-run) dry=yes; shift ;;
	--) shift; break ;;
	-*) echo "check-top: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# = 2 ] || { echo "check-top: want BRANCH RACE_SECS, got $# argument(s) (see --help)" >&2; exit 2; }
branch=$1 race=$2
[ -n "$branch" ] || { echo "check-top: BRANCH is empty" >&2; exit 2; }
[ -f "$runs" ] || { echo "check-top: no runs file $runs" >&2; exit 2; }

declare -A defs
bad() { echo "check-top: $runs:$lno: $*" >&2; exit 2; }

# expand TEXT: TEXT's words (quoted as in the shell, parsed by xargs) added
# to out[], a word $NAME of a named list replaced by that list's words and
# $BRANCH, $RACE_SECS inside a word by their values.
expand() {
	local parsed w
	parsed=$(xargs -r printf '%s\n' <<<"$1") || bad "bad quoting"
	[ -n "$parsed" ] || return 0
	while IFS= read -r w; do
		if [[ $w =~ ^\$([A-Z_][A-Z0-9_]*)$ ]] && [ -n "${defs[${BASH_REMATCH[1]}]+set}" ]; then
			expand "${defs[${BASH_REMATCH[1]}]}"
			continue
		fi
		# (the data's $BRANCH and $RACE_SECS, literally)
		# shellcheck disable=SC2016
		w=${w//'$BRANCH'/"$branch"} w=${w//'$RACE_SECS'/"$race"}
		[[ $w != *[$][A-Za-z_\{]* ]] || bad "unknown variable in '$w'"
		out+=("$w")
	done <<<"$parsed"
}

n=0
# run LINE: one run (or a named list) of the file.
run() {
	local text=$1 cmd tool rc w
	if [[ $text =~ ^([A-Z_][A-Z0-9_]*)[[:space:]]*=[[:space:]]*(.*)$ ]]; then
		defs[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		return 0
	fi
	out=()
	expand "$text"
	cmd=${out[0]}
	tool=$S61_ROOT/tools/boot/$cmd.sh
	if ! [[ $cmd =~ ^[a-z][a-z0-9-]*$ ]] || [ ! -x "$tool" ]; then
		bad "no command tools/boot/$cmd.sh"
	fi
	n=$((n + 1))
	printf 'tools/boot/%s.sh' "$cmd"
	for w in "${out[@]:1}"; do
		case $w in
		'' | *[!A-Za-z0-9_.,:=/+@%-]*) printf " '%s'" "${w//\'/\'\\\'\'}" ;;
		*) printf ' %s' "$w" ;;
		esac
	done
	printf '\n'
	[ "$dry" = no ] || return 0
	"$tool" "${out[@]:1}" && return 0
	rc=$?
	echo "check-top: run $n (tools/boot/$cmd.sh) failed (exit $rc): the runs after it did not run" >&2
	exit "$rc"
}

lno=0 cur='' cur_no=0
while IFS= read -r line || [ -n "$line" ]; do
	lno=$((lno + 1))
	case $line in
	'#'* | '') continue ;;
	[[:space:]]*)
		[ -n "$cur" ] || bad "an indented line continues nothing"
		cur="$cur $line" ;;
	*)
		if [ -n "$cur" ]; then
			save=$lno lno=$cur_no
			run "$cur"
			lno=$save
		fi
		cur=$line cur_no=$lno ;;
	esac
done <"$runs"
if [ -n "$cur" ]; then
	lno=$cur_no
	run "$cur"
fi
[ "$n" -gt 0 ] || { echo "check-top: no run in $runs" >&2; exit 2; }
