#!/usr/bin/env bash
# Per-branch boot test: build every branch tip of branch-stack.txt (and base)
# with the boot config, boot it and run the smoke suite.
#
# Usage: tools/boot/boot-test-branches.sh [--config NAME] [--suites LIST] [BRANCH...]
# Prints a table branch -> build / boot / tests / seconds in stack order,
# the tips skipped (by name), and "boot-test: N passed, N failed, N skipped,
# N xfail": the tests of every tip (tools/lib/tally.sh), where a tip that failed
# (no build, no result, a result not as expected, no or other shrinker
# names than base) counts as at least one failure; exits 1 on any failure.
# With the smoke suite, every tip must report its debugfs shrinker names
# ("# shrinkers:"), and those of base. BUILD is "cached" for a tip whose tree was built
# before with the same recipe (tools/build/kcache.sh); S61_KCACHE=0 rebuilds every tip.
#
# S61_DEADLINE (seconds since the epoch; .ci/run sets it from CI's time
# limit): on a cold kernel cache 7 of the 13 tips are full builds (base and
# the 6 that change a header under include/), 7-9 min each on a slow
# machine, and with check-top's debug kernel after them a run takes longer
# than CI allows. So the tips run in order of importance: base, the core
# tips (marked "core" in branch-stack.txt: the ones that change the
# shrinker core), the top, then the others (prep, the conversions) in stack
# order. base, the core tips and the top always run, even when that misses
# the deadline (a core tip that does not fit says so and runs). Any other
# tip whose kernel is not in the cache is built only when its build and
# check-top's (S61_RESERVE seconds; default 18 min with the debug kernel
# cached, else 18 min + 1.5 builds: check-top runs 180 s of the memcg race
# and the kmemleak control; plus the top's build if the top has not
# run) still fit before the deadline; otherwise its row says SKIP, it
# counts as skipped, and `make boot-test` (no deadline) tests it.
# Estimates: a build whose headers under include/ equal those of the tree
# the build directory holds is incremental, S61_INC_EST (default 180 s); so
# is one whose headers equal those of a tip compiled earlier in this run
# (out of stack order, e.g. conv-mm after api: make recompiles everything,
# ccache serves it); any other is a full build, estimated as the slowest
# uncached tip of this run so far (S61_BUILD_EST before the first, default
# 600 s).
. "$(dirname "$0")/../lib/lib.sh"

config=boot suites=smoke
branches=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--config) config=${2:?}; shift ;;
	--suites) suites=${2:?}; shift ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) branches+=("$1") ;;
	esac
	shift
done
require_checkout
if [ ${#branches[@]} -eq 0 ]; then
	read -r -a branches <<<"base $(stack_branches | tr '\n' ' ')"
fi
top=${branches[${#branches[@]}-1]}
smoke=0
case ,$suites, in *,smoke,*) smoke=1 ;; esac
deadline=${S61_DEADLINE:-}
case $deadline in ''|*[!0-9]*) [ -z "$deadline" ] || die "S61_DEADLINE wants seconds since the epoch, not '$deadline'" ;; esac
build_est=${S61_BUILD_EST:-600}
case $build_est in ''|*[!0-9]*) die "S61_BUILD_EST wants seconds, not '$build_est'" ;; esac
inc_est=${S61_INC_EST:-180}
case $inc_est in ''|*[!0-9]*) die "S61_INC_EST wants seconds, not '$inc_est'" ;; esac
# cached BRANCH [CONFIG]: is its kernel in the kernel cache?
cached() { "$S61_ROOT/tools/build/kcache.sh" get "${2:-$config}" "$1" >/dev/null 2>&1; }
# Headers under include/ decide how much of a build a change costs.
hdr_same() { kgit diff --quiet "$1" "$2" -- include arch/x86/include; }
# cost FROM TO: the estimated build time of TO in the build directory that
# holds FROM: incremental when no header under include/ changed between
# them, or when TO's headers are those of a tree compiled earlier in this
# run (ccache holds its objects); else a full build (also when the
# directory's tree is not known).
compiled=()
cost() {
	local c
	if [ -n "$1" ] && hdr_same "$1" "$2"; then
		echo "$inc_est"
		return
	fi
	for c in "${compiled[@]}"; do
		if hdr_same "$c" "$2"; then
			echo "$inc_est"
			return
		fi
	done
	echo "$build_est"
}
# fits BRANCH: would building BRANCH (uncached) still leave time for the top
# (unless it has run) and for check-top before the deadline?
fits() {
	local need reserve=${S61_RESERVE:-}
	if [ -z "$reserve" ]; then
		reserve=1080
		{ [ -n "$top_done" ] || cached "$top"; } && cached "$top" debug ||
			reserve=$((1080 + build_est * 3 / 2))
	fi
	need=$(($(cost "$last_built" "$1") + reserve))
	[ -n "$top_done" ] || cached "$top" || need=$((need + $(cost "$1" "$top")))
	[ $(($(date +%s) + need)) -le "$deadline" ]
}
# The order of work (indexes into branches): base, the core tips, the top,
# then the others; the table keeps the order of branches.
declare -A is_core=()
for b in $(stack_core_branches); do
	is_core[$b]=1
done
last=$((${#branches[@]} - 1))
order=()
for i in "${!branches[@]}"; do
	[ "$i" = "$last" ] || [ "${branches[$i]}" != base ] || order+=("$i")
done
for i in "${!branches[@]}"; do
	[ "$i" = "$last" ] || [ -z "${is_core[${branches[$i]}]:-}" ] || order+=("$i")
done
order+=("$last")
for i in "${!branches[@]}"; do
	b=${branches[$i]}
	[ "$i" = "$last" ] || [ "$b" = base ] || [ -n "${is_core[$b]:-}" ] || order+=("$i")
done
last_built='' top_done=''
# An empty topic branch has the same tip as the one below: test each tip once.
declare -A seen=()
rows=()
bad=0
total_pass=0 total_fail=0 total_skip=0 total_xfail=0
skipped=()
for i in "${order[@]}"; do
	b=${branches[$i]}
	[ "$i" != "$last" ] || top_done=1
	if ! kgit rev-parse -q --verify "refs/heads/$b" >/dev/null; then
		rows[i]="$b|missing|-|-|-"
		bad=1 total_fail=$((total_fail + 1))
		continue
	fi
	tip=$(kgit rev-parse "$b")
	if [ -n "${seen[$tip]:-}" ]; then
		rows[i]="$b|= ${seen[$tip]}|=|=|0"
		continue
	fi
	seen[$tip]=$b
	if [ -n "$deadline" ] && [ "$b" != base ] && [ "$b" != "$top" ] && ! cached "$b" && ! fits "$b"; then
		left=$(( (deadline - $(date +%s)) / 60 ))
		est=$(($(cost "$last_built" "$b") / 60))
		rest=check-top
		[ -n "$top_done" ] || rest="the top and check-top"
		if [ -n "${is_core[$b]:-}" ]; then
			echo "== $b: a core tip, not in the kernel cache: its build (~$est min) may not leave $rest time before the CI limit ($left min left); it runs anyway" >&2
		else
			echo "== $b: SKIP: not in the kernel cache, and its build (~$est min) would not leave $rest time before the CI limit ($left min left); make boot-test tests it" >&2
			rows[i]="$b|not built|-|SKIP: CI time limit, cold kernel cache|0"
			total_skip=$((total_skip + 1))
			skipped+=("$b")
			continue
		fi
	fi
	t0=$SECONDS
	log=$S61_WORK/logs/boot-test-$b.log
	mkdir -p "${log%/*}" || die "cannot create ${log%/*} for the boot logs"
	echo "== $b: building [$config] and booting" >&2
	"$S61_ROOT/tools/boot/guest-test.sh" --config "$config" --suites "$suites" --timeout 300 "$b" >"$log" 2>&1
	rc=$?
	dt=$((SECONDS - t0))
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	read -r p _ f _ s _ x _ <<<"$(printf '%s\n' "$summary" | "$S61_ROOT/tools/lib/tally.sh" | tr -d ,)"
	# The shrinker names the smoke suite saw must be those of base; a tip
	# that booted without reporting any has nothing to compare: it fails.
	run=$(sed -n 's/^run: //p' "$log" | tail -1)
	names=$(sed -n 's/^# shrinkers: //p' "$run/result.ktap" 2>/dev/null | tail -1 | tr -d '\r')
	if [ "$smoke" = 1 ] && { [ $rc = 0 ] || [ $rc = 1 ]; } && [ -z "${names// /}" ]; then
		echo "$b: the smoke suite reported no debugfs shrinker names ('# shrinkers:' in ${run:-no run}/result.ktap)" >&2
		summary="$summary NO SHRINKER NAMES"
		rc=1
	elif [ "$b" = base ]; then
		base_names=$names
	elif [ -n "${base_names:-}" ] && [ -n "$names" ] && [ "$names" != "$base_names" ]; then
		echo "$b: debugfs shrinker names differ from base:" >&2
		diff <(tr ' ' '\n' <<<"$base_names") <(tr ' ' '\n' <<<"$names") >&2
		summary="$summary NAMES DIFFER"
		rc=1
	fi
	# A tip that failed is a failure even when no test of it failed (no
	# build, no result, a result not as expected, the names).
	[ $rc = 0 ] || [ "$f" != 0 ] || f=1
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
	total_skip=$((total_skip + s)) total_xfail=$((total_xfail + x))
	# "cached": the same tree was built with the same recipe before
	# (tools/build/kcache.sh); S61_KCACHE=0 builds every tip again.
	built=ok
	grep -q 'kernel from the cache' "$log" && built=cached
	# A tip that was built holds the build directory and calibrates the
	# estimate of a full build; one that built has its objects in ccache.
	if [ $built = ok ]; then
		[ $dt -le "$build_est" ] || build_est=$dt
		last_built=$b
		[ $rc = 125 ] || compiled+=("$b")
	fi
	case $rc in
	0) rows[i]="$b|$built|ok|${summary:-?}|$dt" ;;
	125) rows[i]="$b|FAIL|-|-|$dt"; bad=1 ;;
	2) rows[i]="$b|$built|FAIL|${summary:-no result}|$dt"; bad=1 ;;
	*) rows[i]="$b|$built|ok|${summary:-?} $(grep -q 'KERNEL SPLAT' "$log" && echo '+ SPLAT')|$dt"; bad=1 ;;
	esac
	if [ $rc != 0 ]; then
		sed 's/^/    /' "$log" | tail -n 30 >&2
	fi
done
printf '\n%-16s %-12s %-6s %-40s %s\n' BRANCH BUILD BOOT TESTS SECONDS
for i in "${!branches[@]}"; do
	IFS='|' read -r b bu bo te se <<<"${rows[i]}"
	printf '%-16s %-12s %-6s %-40s %s\n' "$b" "$bu" "$bo" "$te" "$se"
done
[ ${#skipped[@]} = 0 ] ||
	echo "boot-test: skipped (CI time limit, not in the kernel cache; make boot-test tests them): ${skipped[*]}"
echo "boot-test: $total_pass passed, $total_fail failed, $total_skip skipped, $total_xfail xfail"
exit $bad
