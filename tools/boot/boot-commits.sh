#!/usr/bin/env bash
# Boot every commit of the shrinker core (issue #14 part 3): each commit of
# prep, the branches marked "core" in branch-stack.txt and tests, one at a
# time, in stack order, with the debug kernel (lockdep, PROVE_RCU, KASAN,
# kmemleak) and the smoke, lockless and race suites.
#
# Usage: tools/boot/boot-commits.sh [options]
#   --branches LIST  only the commits of these branches of branch-stack.txt
#                    (comma-separated; default: prep, the core ones, tests)
#   --suites LIST    guest suites (default: smoke,lockless,races)
#   --from COMMIT    resume: start at COMMIT, one of the commits to run
#   --only LIST      only these commits (comma-separated), each one of the
#                    commits to run: after a change to a few commits
#   --missing        only the commits whose tree has no passing row (exit 0)
#                    for these suites in the record: after a rebase that
#                    changed some trees, or to retry the failed ones
#   --dry-run        list the commits and the command and rewrite the table
#                    from the record; build and boot nothing
#   --table          rewrite the table from the records alone: no kernel
#                    checkout (tools/lint/records.py runs it)
# A branch's commits are PARENT..BRANCH, PARENT the branch below it in
# branch-stack.txt. Each runs as
#   tools/boot/guest-test.sh --config debug --suites LIST --timeout 1500
#       --append "s61.race_secs=60 s61.race_short=1" COMMIT
# (a kernel built before from the same tree comes from tools/build/kcache.sh); its
# log is .work/logs/boot-commits-<commit>.log.
# Record: docs/boot-commits.tsv, one line per commit tree and suite list,
# written as each commit finishes (an interrupted run keeps what it did;
# --from resumes). It is tracked next to the table so that a fresh clone can
# regenerate and extend the table without the hours of runs; keyed by the
# tree, a row survives a rebase that leaves the commit's tree unchanged.
# Table: docs/results/boot-commits.md, regenerated from the record after each commit:
# every commit of the default branches (and of --branches) with this suite
# list; a commit without a row says "not run". The commits it lists are
# recorded in docs/records/boot-commits-list.tsv with the stack id
# (stack_id of tools/lib/lib.sh) of the checkout they were read from; --table
# reads them there, and when that stack is not today's, the page says so
# and marks every row "other stack" (a --dry-run on today's stack writes
# the list anew).
# Exit: 0 when every commit run passed; 1 when one did not (build failure,
# boot failure or hang, a failed test, a kernel splat) or on bad input.
# The kernel checkout goes back to the branch it was on.
. "$(dirname "$0")/../lib/lib.sh"

# The branches booted besides the core ones: prep (what the core needs
# first) and tests (the KUnit suite of the core). The core ones are marked
# in branch-stack.txt.
extra_branches="prep tests"
config=debug
timeout=1500
append="s61.race_secs=60 s61.race_short=1"

suites=smoke,lockless,races
want=
from=
only=
missing=0
dry_run=0
table_only=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--branches) want=${2?--branches needs a list of branches}; shift ;;
	--branches=*) want=${1#*=} ;;
	--suites) suites=${2?--suites needs a list of suites}; shift ;;
	--suites=*) suites=${1#*=} ;;
	--from) from=${2?--from needs a commit}; shift ;;
	--from=*) from=${1#*=} ;;
	--only) only=${2?--only needs a list of commits}; shift ;;
	--only=*) only=${1#*=} ;;
	--missing) missing=1 ;;
	--dry-run|-n) dry_run=1 ;;
	--table) table_only=1 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) die "unexpected argument '$1'; choose branches with --branches, a start with --from (see --help)" ;;
	esac
	shift
done
case $suites in
''|*[!a-z0-9_,-]*|,*|*,|*,,*) die "--suites wants a comma-separated list of suite names, not '$suites'" ;;
esac
if [ $table_only = 1 ] && { [ -n "$want$from$only" ] || [ "$missing$dry_run" != 00 ]; }; then
	die "--table takes no other option: it rewrites the table from the records alone"
fi
[ $table_only = 1 ] || require_checkout

record=$S61_ROOT/docs/boot-commits.tsv
table=$S61_ROOT/docs/results/boot-commits.md
list=$S61_ROOT/docs/records/boot-commits-list.tsv
list_header=$(printf '# stack_id\tcommit\ttree\tbranch\tsubject')
rec_header=$(printf '%s\t' tree commit branch subject build boot passed failed skipped xfail splats first_splat seconds suites date exit note)
rec_header="# ${rec_header%$'\t'}"

# --- the commits ---------------------------------------------------------------
commits=() run=()
declare -A branch_of=() tree_of=() subject_of=()
list_sid=
if [ $table_only = 0 ]; then
declare -A default=() selected=()
for b in $(stack_core_branches) $extra_branches; do
	stack_has_branch "$b" && [ "$b" != base ] && default[$b]=1
done
if [ -n "$want" ]; then
	for b in ${want//,/ }; do
		if [ "$b" = base ]; then
			die "--branches: base has no commits of the series; name topic branches of branch-stack.txt: $(stack_branches | tr '\n' ' ')"
		fi
		stack_has_branch "$b" ||
			die "--branches: unknown branch '$b'; branch-stack.txt has: $(stack_branches | tr '\n' ' ')"
		selected[$b]=1
	done
	[ ${#selected[@]} -gt 0 ] || die "--branches: the list is empty"
else
	for b in "${!default[@]}"; do
		selected[$b]=1
	done
fi

# Every commit of the table (the default branches and the selected ones) in
# stack order; run: those of the selected branches.
for b in $(stack_branches); do
	[ -n "${default[$b]:-}${selected[$b]:-}" ] || continue
	kgit rev-parse -q --verify "refs/heads/$b" >/dev/null ||
		die "branch $b does not exist in the kernel checkout $S61_LINUX; run 'tools/stack/stack.sh apply' (or 'make stack') first"
	p=$(stack_parent "$b")
	kgit rev-parse -q --verify "refs/heads/$p" >/dev/null ||
		die "branch $p (below $b) does not exist in the kernel checkout $S61_LINUX; run 'tools/stack/stack.sh apply' (or 'make stack') first"
	# As rev-list --reverse PARENT..BRANCH, with each tree and subject.
	while IFS=$'\t' read -r c tr sub; do
		[ -n "$c" ] || continue
		commits+=("$c")
		branch_of[$c]=$b tree_of[$c]=$tr subject_of[$c]=$sub
		[ -z "${selected[$b]:-}" ] || run+=("$c")
	done < <(kgit log --reverse --format='%H%x09%T%x09%s' "$p..$b")
done
[ ${#run[@]} -gt 0 ] ||
	die "the branches $(printf '%s ' "${!selected[@]}")have no commits (is the stack applied? 'tools/stack/stack.sh status')"

if [ -n "$from" ]; then
	fc=$(kgit rev-parse -q --verify "$from^{commit}") ||
		die "--from: '$from' is not a commit of the kernel checkout $S61_LINUX; 'tools/boot/boot-commits.sh --dry-run' lists the commits"
	for i in "${!run[@]}"; do
		if [ "${run[$i]}" = "$fc" ]; then
			run=("${run[@]:$i}")
			fc=
			break
		fi
	done
	[ -z "$fc" ] ||
		die "--from: $(kgit log -1 --format='%h ("%s")' "$fc") is not one of the commits to run (branches: $(stack_branches | while read -r b; do [ -z "${selected[$b]:-}" ] || printf '%s ' "$b"; done)); 'tools/boot/boot-commits.sh --dry-run' lists them"
fi

if [ -n "$only" ]; then
	declare -A only_set=()
	for o in ${only//,/ }; do
		oc=$(kgit rev-parse -q --verify "$o^{commit}") ||
			die "--only: '$o' is not a commit of the kernel checkout $S61_LINUX; 'tools/boot/boot-commits.sh --dry-run' lists the commits"
		for c in "${run[@]}"; do
			[ "$c" != "$oc" ] || only_set[$c]=1
		done
		[ -n "${only_set[$oc]:-}" ] ||
			die "--only: $(kgit log -1 --format='%h ("%s")' "$oc") is not one of the commits to run; name its branch with --branches ('tools/boot/boot-commits.sh --dry-run' lists them)"
	done
	[ ${#only_set[@]} -gt 0 ] || die "--only: the list is empty"
	only_run=()
	for c in "${run[@]}"; do
		[ -z "${only_set[$c]:-}" ] || only_run+=("$c")
	done
	run=("${only_run[@]}")
fi
fi

# --- the record and the table --------------------------------------------------
# clean: stdin as one line, for a field of the record.
clean() {
	local v
	v=$(cat)
	printf '%s' "${v//[$'\t\r\n']/ }"
}
md() { local s=$1; s=${s//|/\\|}; printf '%s' "$s"; }
trunc() {
	local s=$1 n=$2
	[ ${#s} -le "$n" ] || s="${s:0:$((n - 3))}..."
	printf '%s' "$s"
}

# record_put TREE FIELDS...: the commit's row, replacing any older one of
# the same tree and suites. An empty field is written as "-" (read splits
# on tabs and would merge empty fields).
record_put() {
	local tree=$1 row='' v tmp
	for v in "$@"; do
		row+="${v:--}"$'\t'
	done
	row=${row%$'\t'}
	mkdir -p "$(dirname "$record")"
	tmp=$record.tmp.$$
	{
		echo "$rec_header"
		[ ! -f "$record" ] ||
			awk -F '\t' -v tree="$tree" -v suites="$suites" \
				'/^#/ { next } !($1 == tree && $14 == suites)' "$record"
		echo "$row"
	} >"$tmp" && mv "$tmp" "$record"
}

# write_list: the commits of the table, as read from the checkout, with
# today's stack id (what --table shows without a checkout).
write_list() {
	local sid c tmp=$list.tmp.$$
	sid=$(stack_id) || sid=-
	list_sid=$sid
	mkdir -p "$(dirname "$list")" || die "cannot make $(dirname "$list")"
	{
		echo "$list_header"
		for c in "${commits[@]}"; do
			printf '%s\t%s\t%s\t%s\t%s\n' "$sid" "$c" "${tree_of[$c]}" "${branch_of[$c]}" "${subject_of[$c]//$'\t'/ }"
		done
	} >"$tmp" && mv "$tmp" "$list"
}

# read_list: the commits of the table from the list (--table).
read_list() {
	local sid c tr b sub
	[ -f "$list" ] || die "no ${list#"$S61_ROOT"/}: 'tools/boot/boot-commits.sh --dry-run' on a kernel checkout writes it"
	[ "$(head -n 1 "$list")" = "$list_header" ] ||
		die "${list#"$S61_ROOT"/}: its header is not this tool's; want: $(tr '\t' ' ' <<<"$list_header")"
	while IFS=$'\t' read -r sid c tr b sub; do
		case $sid in '#'*|'') continue ;; esac
		list_sid=$sid
		commits+=("$c")
		branch_of[$c]=$b tree_of[$c]=$tr subject_of[$c]=$sub
	done <"$list"
}

write_table() {
	local c tree line n_run=0 n_ok=0 n_bad=0 first='' latest='' tmp s now mark=''
	declare -A row=()
	[ $table_only = 1 ] || write_list
	now=$(stack_id) || now=-
	[ "$list_sid" = "$now" ] || mark=' (other stack)'
	if [ -f "$record" ]; then
		while IFS= read -r line; do
			case $line in ''|'#'*) continue ;; esac
			IFS=$'\t' read -r tree _ _ _ _ _ _ _ _ _ _ _ _ s _ <<<"$line"
			[ "$s" = "$suites" ] && row[$tree]=$line
		done <"$record"
	fi
	tmp=$table.tmp.$$
	mkdir -p "$(dirname "$table")"
	{
		local body=''
		for c in "${commits[@]}"; do
			tree=${tree_of[$c]}
			local sub=${subject_of[$c]} b=${branch_of[$c]}
			line=${row[$tree]:-}
			if [ -z "$line" ]; then
				body+="| ${c:0:12}$mark | $b | $(md "$sub") | not run | | | | |"$'\n'
				continue
			fi
			local build boot p f s x nsp sp secs date rc note
			IFS=$'\t' read -r _ _ _ _ build boot p f s x nsp sp secs _ date rc note <<<"$line"
			n_run=$((n_run + 1))
			if [ "$rc" = 0 ]; then
				n_ok=$((n_ok + 1))
			else
				n_bad=$((n_bad + 1))
			fi
			{ [ -n "$first" ] && [[ "$first" < "$date" ]]; } || first=$date
			[[ "$latest" > "$date" ]] || latest=$date
			local suitecol=- splatcol=-
			[ "$p" = - ] || suitecol="$p passed, $f failed, $s skipped, $x xfail"
			[ "${note:--}" = - ] || suitecol="$suitecol ($(md "$(trunc "$note" 100)"))"
			if [ "$nsp" != - ]; then
				splatcol=$nsp
				[ "$nsp" = 0 ] || splatcol="$nsp: \`$(md "$(trunc "$sp" 100)")\`"
			fi
			body+="| ${c:0:12}$mark | $b | $(md "$sub") | $build | $boot | $suitecol | $splatcol | $secs |"$'\n'
		done
		cat <<-EOF
		# Every commit of the core, booted

		Generated by \`tools/boot/boot-commits.sh --table\` (and by every run of
		\`tools/boot/boot-commits.sh\`, \`make boot-commits\`) from the records
		\`docs/boot-commits.tsv\` and \`docs/records/boot-commits-list.tsv\`;
		do not edit by hand. Each commit of prep, the
		branches marked \`core\` in branch-stack.txt and tests, in stack order,
		is built with the \`debug\` config (lockdep, PROVE_RCU, KASAN, kmemleak)
		and booted in QEMU with the suites \`$suites\`:

		    tools/boot/guest-test.sh --config debug --suites $suites --timeout $timeout --append "$append" COMMIT

		A row stays while the commit's tree is unchanged (a rebase that keeps
		the tree keeps the row, under the new id); a commit without one says
		"not run" (\`tools/boot/boot-commits.sh --from COMMIT\` resumes a run). build:
		ok, cached (tools/build/kcache.sh), FAIL; boot: ok, FAIL (no result), hang;
		splats: how many console lines matched qemu/splat-patterns (at most 20)
		and the first of them.

		EOF
		if [ -n "$mark" ]; then
			echo "The commits below were read from the kernel checkout of stack \`${list_sid}\`; today's stack is"
			echo "\`$now\` (\`stack_id\` of tools/lib/lib.sh): every row is of another stack until"
			echo "\`tools/boot/boot-commits.sh --dry-run\` lists today's commits and their runs are recorded."
		else
			echo "The commits below are those of today's stack \`$now\` (\`stack_id\` of tools/lib/lib.sh)."
		fi
		echo
		if [ $n_run = 0 ]; then
			echo "${#commits[@]} commits, none run yet."
		else
			echo "${#commits[@]} commits, $n_run run ($first to $latest): $n_ok passed, $n_bad failed."
		fi
		echo
		echo "| commit | branch | subject | build | boot | suites | splats | seconds |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
		printf '%s' "$body"
	} >"$tmp" && mv "$tmp" "$table"
}

if [ $table_only = 1 ]; then
	read_list
	write_table
	info "wrote ${table#"$S61_ROOT"/}"
	exit 0
fi

if [ $missing = 1 ]; then
	declare -A passed=()
	if [ -f "$record" ]; then
		while IFS=$'\t' read -r tr _ _ _ _ _ _ _ _ _ _ _ _ su _ ex _; do
			[ "$su" = "$suites" ] && [ "$ex" = 0 ] && passed[$tr]=1
		done < <(grep -v '^#' "$record")
	fi
	missing_keep=()
	for c in "${run[@]}"; do
		[ -n "${passed[${tree_of[$c]}]:-}" ] || missing_keep+=("$c")
	done
	info "--missing: ${#missing_keep[@]} of ${#run[@]} commits have no passing row for $suites"
	run=("${missing_keep[@]}")
	[ ${#run[@]} -gt 0 ] || { write_table; info "nothing to run"; exit 0; }
fi

# --- dry run ---------------------------------------------------------------------
if [ $dry_run = 1 ]; then
	echo "boot-commits: ${#run[@]} commits to run, each:"
	echo "  tools/boot/guest-test.sh --config $config --suites $suites --timeout $timeout --append \"$append\" COMMIT"
	for c in "${run[@]}"; do
		printf '  %s  %-16s %s\n' "${c:0:12}" "${branch_of[$c]}" "${subject_of[$c]}"
	done
	write_table
	echo "boot-commits: dry run, nothing built; table: ${table#"$S61_ROOT"/}"
	exit 0
fi

# --- the runs --------------------------------------------------------------------
[ -z "$(kgit status --porcelain --untracked-files=no)" ] ||
	die "the kernel checkout $S61_LINUX has uncommitted changes; each commit is checked out to be built: commit or stash them first"
# Back to the branch (or commit) the checkout was on, unless something else
# than this run's builds moved it.
orig=$(kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD)
declare -A ran=()
# shellcheck disable=SC2317  # called from the EXIT trap
restore() {
	local head
	head=$(kgit rev-parse -q --verify HEAD) || return 0
	[ "$(kgit symbolic-ref -q --short HEAD)" != "$orig" ] && [ "$head" != "$orig" ] || return 0
	[ -n "${ran[$head]:-}" ] || return 0
	kgit checkout -q "$orig" 2>/dev/null ||
		warn "could not put the kernel checkout back on $orig; do it with: git -C $S61_LINUX checkout $orig"
}
trap 'restore' EXIT
trap 'echo "boot-commits: interrupted; the finished commits are in ${record#"$S61_ROOT"/}, resume with --from" >&2; exit 130' INT TERM

mkdir -p "$S61_WORK/logs"
bad=0 n=0 t_all=$SECONDS
for c in "${run[@]}"; do
	n=$((n + 1))
	b=${branch_of[$c]}
	sub=${subject_of[$c]}
	log=$S61_WORK/logs/boot-commits-${c:0:12}.log
	echo "== [$n/${#run[@]}] ${c:0:12} $b: $sub" >&2
	t0=$SECONDS
	ran[$c]=1
	"$S61_ROOT/tools/boot/guest-test.sh" --config "$config" --suites "$suites" --timeout "$timeout" \
		--append "$append" "$c" >"$log" 2>&1
	rc=$?
	dt=$((SECONDS - t0))
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	p='' f='' s='' x=''
	if [ -n "$summary" ]; then
		p=$(grep -oE '[0-9]+ passed' <<<"$summary" | cut -d' ' -f1)
		f=$(grep -oE '[0-9]+ failed' <<<"$summary" | cut -d' ' -f1)
		s=$(grep -oE '[0-9]+ skipped' <<<"$summary" | cut -d' ' -f1)
		x=$(grep -oE '[0-9]+ xfail' <<<"$summary" | cut -d' ' -f1)
		s=${s:-0} x=${x:-0}
	fi
	# The splat block qemu/run prints: a header, then the lines indented.
	splat=$(awk '/^KERNEL SPLAT/ { on = 1; next } on && /^  / { n++; if (n == 1) first = substr($0, 3); next } on { on = 0 }
		END { printf "%d\t%s", n, first }' "$log")
	nsp=${splat%%$'\t'*} sp=$(clean <<<"${splat#*$'\t'}")
	built=ok
	grep -q 'kernel from the cache' "$log" && built=cached
	boot=ok
	case $rc in
	0) ;;
	125) built=FAIL boot=- nsp='' sp='' ;;
	2) boot=FAIL; grep -q 'RUN PROBLEM: guest hung' "$log" && boot=hang ;;
	*) [ -n "$summary" ] || boot=FAIL ;;
	esac
	# Why a run failed that the columns do not show: guest-test or qemu/run
	# stopped before a result (exit 3: a harness error), or a run that
	# passed its tests failed on something else (the test module, a result
	# qemu/expected did not expect).
	note=
	if [ $rc = 3 ]; then
		note="exit 3, harness error: $(grep -m1 -E 'HARNESS ERROR|error|qemu/run: ' "$log" | clean)"
	elif [ $rc != 0 ] && [ $rc != 125 ] && ! grep -q '^run: ' "$log"; then
		note="no run: $(grep -m1 -E 'error' "$log" || tail -n 1 "$log")"
		note=$(clean <<<"$note")
	elif [ $rc = 1 ] && [ "${f:-0}" = 0 ] && [ "${nsp:-0}" = 0 ]; then
		note="exit 1: $(grep -m1 -E 'not as expected|problem:' "$log" | sed 's/^ *//' | clean)"
	fi
	[ $rc = 0 ] || bad=1
	record_put "${tree_of[$c]}" "$c" "$b" "$(clean <<<"$sub")" "$built" "$boot" \
		"$p" "$f" "$s" "$x" "$nsp" "$sp" "$dt" "$suites" "$(date +%F)" "$rc" "$note"
	write_table
	results_pages timings
	verdict=ok
	[ $rc = 0 ] || verdict="FAIL (exit $rc)"
	echo "== ${c:0:12}: $verdict; build $built, boot $boot, ${summary:-no result}, splats ${nsp:--}, $dt s" >&2
	if [ $rc != 0 ]; then
		sed 's/^/    /' "$log" | tail -n 30 >&2
	fi
done
echo "boot-commits: ${#run[@]} commits in $((SECONDS - t_all)) s, $([ $bad = 0 ] && echo 'all passed' || echo 'some FAILED'); table: ${table#"$S61_ROOT"/}"
exit $bad
