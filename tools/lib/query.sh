#!/usr/bin/env bash
# Answer questions about branch-stack.txt for make and scripts.
# Usage: tools/lib/query.sh top|branches|base-version|parent BRANCH
#   parent BRANCH  the branch below BRANCH ("base" for the first)
# Exit: 0; 1 when BRANCH is not a branch of branch-stack.txt (the error names
# the branches); 2 for a query it does not know (this usage on stderr).
. "$(dirname "$0")/lib.sh"

usage() {
	sed -n '2,6s/^# \{0,1\}//p' "$0"
}
usage_error() {
	printf '%s: error: %s\n' "${0##*/}" "$1" >&2
	usage >&2
	exit 2
}

case ${1:-} in
-h|--help) usage; exit 0 ;;
top|branches|base-version) [ $# = 1 ] || usage_error "'$1' takes no argument" ;;
parent) [ $# = 2 ] || usage_error "parent needs one BRANCH" ;;
"") usage_error "which query?" ;;
*) usage_error "unknown query '$1'" ;;
esac
case $1 in
top) stack_top ;;
branches) stack_branches ;;
base-version) stack_base_version ;;
parent)
	[ "$2" != base ] || die "base is the bottom of the stack; it has no parent"
	stack_parent "$2" ||
		die "$2 is not a branch of branch-stack.txt (branches: $(stack_branches | paste -sd' '))" ;;
esac
