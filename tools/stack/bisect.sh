#!/usr/bin/env bash
# Find the commit that broke a test: git bisect run over the kernel checkout,
# each step built, booted and tested by tools/boot/guest-test.sh (or TEST-CMD).
#
# Usage: tools/stack/bisect.sh [options] GOOD BAD [-- TEST-CMD...]
#   GOOD, BAD        branches or commits: GOOD passes, BAD fails
#   --config NAME    config fragment for the default test (default: boot)
#   --suites LIST    guest suites for the default test (default: smoke)
#   --only TESTS     only these guest tests (default test)
#   --timeout S      limit per step in seconds, build included (default: 1800);
#                    a step that runs longer is killed and counted bad
#   --repo DIR       bisect the git repository DIR instead (needs a TEST-CMD)
#   -- TEST-CMD...   replaces the default test; it runs at the top of the
#                    checkout: exit 0 good, 125 skip (cannot test), other bad
# Default test: tools/boot/guest-test.sh --config NAME --suites LIST [--only TESTS] .
# Steps: no build (125) skip; test failure or splat (1), hang or no result (2),
#   timeout, any other status: bad. A test that leaves tracked files modified
#   stops the bisection (its changes are kept in 'git stash').
# Output: the first bad commit and the bisect log on stdout (progress on
#   stderr); .work/logs/bisect-<time>.log (log, replayable), bisect-<time>.out.
# Exit: 0 found, 2 only skipped commits left (candidates printed), 1 error or
#   interrupted. The checkout always goes back to the branch/commit it was on.
. "$(dirname "$0")/../lib/lib.sh"

config='' suites='' only='' repo='' step_limit=1800
pos=()
cmd=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--config) config=${2:?--config needs a name}; shift ;;
	--suites) suites=${2:?--suites needs a list}; shift ;;
	--only) only=${2:?--only needs test names}; shift ;;
	--timeout) step_limit=${2:?--timeout needs seconds}; shift ;;
	--repo) repo=${2:?--repo needs a directory}; shift ;;
	--) shift; cmd=("$@"); break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) pos+=("$1") ;;
	esac
	shift
done
[ ${#pos[@]} = 2 ] || die "need GOOD and BAD (see --help)"
good=${pos[0]} bad=${pos[1]}
case $step_limit in
'' | *[!0-9]* | 0) die "--timeout wants a number of seconds, not '$step_limit'" ;;
esac
for tool in git timeout setsid ps; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done

if [ -n "$repo" ]; then
	repo=$(git -C "$repo" rev-parse --show-toplevel 2>/dev/null) ||
		die "--repo $repo is not a git work tree"
else
	require_checkout
	repo=$(git -C "$S61_LINUX" rev-parse --show-toplevel) || die "cannot read $S61_LINUX"
fi
is_kernel=0
[ "$repo" -ef "$S61_LINUX" ] && is_kernel=1

if [ ${#cmd[@]} = 0 ]; then
	[ $is_kernel = 1 ] ||
		die "--repo $repo needs a TEST-CMD: the default test builds $S61_LINUX"
	cmd=("$S61_ROOT/tools/boot/guest-test.sh" --config "${config:-boot}" --suites "${suites:-smoke}")
	[ -z "$only" ] || cmd+=(--only "$only")
	cmd+=(.)
else
	[ -z "$config$suites$only" ] ||
		die "--config, --suites and --only are for the default test; pass them to your TEST-CMD"
	# A program named with a path is taken from where tools/stack/bisect.sh was run
	# (tools/boot/guest-test.sh ...), else from the top of the checkout (./check).
	case ${cmd[0]} in
	*/*)
		if [ -f "${cmd[0]}" ] && [ -x "${cmd[0]}" ]; then
			cmd[0]=$(cd "$(dirname "${cmd[0]}")" && pwd)/$(basename "${cmd[0]}")
		fi ;;
	esac
	(cd "$repo" && command -v "${cmd[0]}" >/dev/null) ||
		die "TEST-CMD '${cmd[0]}' not found (here or in $repo); for a script that only some commits have, use: -- sh -c './script'"
fi

cd "$repo" || die "cannot enter $repo"
rev() { git rev-parse -q --verify "$1^{commit}"; }
good_rev=$(rev "$good") || die "GOOD '$good' is not a commit of $repo"
bad_rev=$(rev "$bad") || die "BAD '$bad' is not a commit of $repo"
[ "$good_rev" != "$bad_rev" ] || die "GOOD and BAD are the same commit"
! git merge-base --is-ancestor "$bad_rev" "$good_rev" ||
	die "BAD '$bad' is an ancestor of GOOD '$good' (swapped?)"

# Refuse a checkout that is dirty or in the middle of something.
for f in BISECT_START rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD; do
	[ ! -e "$(git rev-parse --git-path "$f")" ] || case $f in
	BISECT_START) die "a bisection is already in progress in $repo ('git -C $repo bisect log'; end it with 'git -C $repo bisect reset')" ;;
	rebase-apply) die "a git am or rebase is in progress in $repo; finish or abort it first" ;;
	rebase-merge) die "a rebase is in progress in $repo; finish or abort it first" ;;
	*) die "a merge, cherry-pick or revert is in progress in $repo ($f); finish or abort it first" ;;
	esac
done
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$repo has uncommitted changes; commit or stash them first"

orig_branch=$(git symbolic-ref -q --short HEAD) || orig_branch=
orig_head=$(git rev-parse HEAD)
orig=${orig_branch:-$orig_head}

logdir=$S61_WORK/logs
mkdir -p "$logdir" || die "cannot create $logdir"
stamp=$(date +%Y%m%d-%H%M%S)
n=1 log=$logdir/bisect-$stamp.log
while [ -e "$log" ]; do n=$((n + 1)); log=$logdir/bisect-$stamp-$n.log; done
out=${log%.log}.out
tmp=$(mktemp -d) || die "mktemp failed"

# shellcheck disable=SC2317  # these run from the traps and the step wrapper
# Processes of the session $1 (a step runs in its own session, so this finds
# what it started even in other process groups, e.g. qemu under its timeout).
session_pids() {
	ps -e -o pid=,sid=,stat= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { print $1 }'
}
# shellcheck disable=SC2317
# End every process of session $1: TERM, up to 10 s of grace, then KILL.
sweep() {
	local pids _
	pids=$(session_pids "$1")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086  # a list of pids
	kill -TERM $pids 2>/dev/null
	for _ in $(seq 50); do
		sleep 0.2
		pids=$(session_pids "$1")
		[ -n "$pids" ] || return 0
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null
}

# The step wrapper git bisect run calls: self-contained, outside the checkout.
wrapper=$tmp/step
{
	echo '#!/usr/bin/env bash'
	echo '# One step of tools/stack/bisect.sh (generated). Args: TMPDIR LIMIT TEST-CMD...'
	declare -f session_pids sweep
	cat <<'EOF'
tmp=$1 limit=$2
shift 2
echo $$ >"$tmp/wrapper.pid"
sid=
on_signal() {
	[ -z "$sid" ] || sweep "$sid"
	rm -f "$tmp/wrapper.pid" "$tmp/step.sid"
	exit "$1"
}
trap 'on_signal 143' TERM
trap 'on_signal 130' INT
trap 'on_signal 129' HUP
say() { echo "bisect: $*" >&2; }
at=$(git rev-parse --short=12 HEAD)
subject=$(git log -1 --format=%s HEAD)
say "step $at $subject: running $*"
t0=$SECONDS
# Own session: the sweep below then also ends what escaped into other
# process groups; stdin from /dev/null, it has no terminal.
setsid -w timeout -k 30 "$limit" "$@" </dev/null &
sid=$!
echo "$sid" >"$tmp/step.sid"
wait "$sid"
rc=$?
secs=$((SECONDS - t0))
sweep "$sid"
rm -f "$tmp/step.sid"
if [ $rc = 124 ] || { [ $rc = 137 ] && [ $secs -ge "$limit" ]; }; then
	verdict=bad why="timed out after ${limit}s, killed"
	ret=1
else
	case $rc in
	0) verdict=good why=passed ret=0 ;;
	125) verdict=skip why="cannot be tested (no build)" ret=125 ;;
	1) verdict=bad why="test failure or kernel splat" ret=1 ;;
	2) verdict=bad why="hang or no result" ret=1 ;;
	*) verdict=bad why="unexpected exit status $rc, counted bad" ret=1 ;;
	esac
fi
say "step $at: $verdict - $why (exit $rc, ${secs}s)"
printf '%s\t%s\t%s\t%s\t%s\n' "$at" "$verdict" "$rc" "$secs" "$subject" >>"$tmp/steps"
# A test that changes tracked files would carry them into the next steps.
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	id=()
	[ -n "$(git config user.email)" ] || id=(-c user.name=tools-bisect -c user.email=bisect@localhost)
	git "${id[@]}" stash push -q -m "tools/stack/bisect.sh: changes the test left at $at" >&2 &&
		say "the test modified tracked files at $at; they are in 'git stash list' (stash@{0})"
	say "stopping: a test must leave the checkout as it found it"
	ret=128
fi
rm -f "$tmp/wrapper.pid"
exit $ret
EOF
} >"$wrapper"
chmod +x "$wrapper"

gpid=
saved=0
save_log() {
	[ $saved = 0 ] || return 0
	git bisect log >"$log" 2>/dev/null && saved=1
}
# shellcheck disable=SC2317
# Stop a running git bisect run, its step wrapper and the step's processes.
stop_run() {
	local wpid sid _
	if [ -n "$gpid" ] && kill -0 "$gpid" 2>/dev/null; then
		kill -TERM "$gpid" 2>/dev/null
		wait "$gpid" 2>/dev/null
	fi
	wpid=$(cat "$tmp/wrapper.pid" 2>/dev/null)
	if [ -n "$wpid" ] && grep -qF "$wrapper" "/proc/$wpid/cmdline" 2>/dev/null; then
		kill -TERM "$wpid" 2>/dev/null
		for _ in $(seq 75); do
			kill -0 "$wpid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	sid=$(cat "$tmp/step.sid" 2>/dev/null)
	[ -z "$sid" ] || sweep "$sid"
}
# shellcheck disable=SC2317
cleanup() {
	local rc=$? now_branch now_head
	trap - EXIT INT TERM HUP
	stop_run
	if [ -e "$(git rev-parse --git-path BISECT_START)" ]; then
		save_log
		git bisect reset "$orig" >&2 ||
			warn "'git bisect reset $orig' failed in $repo; see 'git -C $repo status'"
	fi
	now_branch=$(git symbolic-ref -q --short HEAD) || now_branch=
	now_head=$(git rev-parse HEAD)
	if [ "$now_branch" != "$orig_branch" ] || [ "$now_head" != "$orig_head" ]; then
		warn "$repo is on ${now_branch:-$now_head}, not back on $orig; fix with: git -C $repo checkout $orig"
		[ "$rc" != 0 ] || rc=1
	fi
	[ "$saved" = 0 ] || info "bisect log saved to $log (replayable: git bisect replay)"
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

info "bisecting $repo: good $good (${good_rev:0:12}), bad $bad (${bad_rev:0:12}); step limit ${step_limit}s"
info "test: ${cmd[*]}"
info "run output: $out"
git bisect start "$bad_rev" "$good_rev" >&2 || die "git bisect start failed"
# In the background, so that a signal reaches our traps at once.
git bisect run "$wrapper" "$tmp" "$step_limit" "${cmd[@]}" > >(tee -a "$out" >&2) 2>&1 &
gpid=$!
wait "$gpid"
run_rc=$?
gpid=
save_log

# What was tested, then the verdict.
if [ -s "$tmp/steps" ]; then
	echo "steps:"
	while IFS=$'\t' read -r at verdict rc secs subject; do
		printf '  %s  %-4s  exit %-3s %6ss  %s\n' "$at" "$verdict" "$rc" "$secs" "$subject"
	done <"$tmp/steps"
fi
status=1
first=$(sed -n 's/^# first bad commit: \[\([0-9a-f]*\)\].*/\1/p' "$log" | tail -1)
if [ -n "$first" ]; then
	echo "first bad commit: $(git log -1 --format='%H %s' "$first")"
	if [ $is_kernel = 1 ]; then
		for b in base $(stack_branches); do
			if git rev-parse -q --verify "refs/heads/$b" >/dev/null &&
				git merge-base --is-ancestor "$first" "refs/heads/$b"; then
				echo "in stack branch: $b"
				break
			fi
		done
	fi
	[ "$first" != "$bad_rev" ] ||
		warn "the first bad commit is BAD itself, which git bisect takes on trust and never tests: make sure BAD really fails"
	status=0
elif grep -q '^# only skipped commits left' "$log"; then
	echo "no single first bad commit: only skipped (unbuildable) commits left; it is one of:"
	sed -n 's/^# possible first bad commit: \[\([0-9a-f]*\)\] \(.*\)/  \1 \2/p' "$log"
	status=2
else
	warn "git bisect run stopped (exit $run_rc) without a result; see $out"
fi
echo "git bisect log:"
sed 's/^/  /' "$log"
exit $status
