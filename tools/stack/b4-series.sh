#!/usr/bin/env bash
# Mail the series with b4 (Debian 12: b4 0.12): cover letter, dry-run mails,
# range-diff against an earlier revision, and the mail round trip check.
#
# Usage: tools/stack/b4-series.sh COMMAND [options]
#   prep       (re)create branch b4/lockless-shrink-6.1: the stack's commits
#              signed by the sender, Cc: per patch; enroll it with b4, install
#              docs/cover-letter.md (docs/sending.md: who sends, who receives)
#   send       write the cover letter + one mail per commit as .eml files
#              (b4 send -o: a dry run, never sends) and record the revision
#   compare    range-diff of the branch against a recorded revision vN
#   roundtrip  git am the mails onto base; the tree must equal the top's tree
#   info       b4 prep --show-info of the branch
#   cover      print the cover letter that prep installs (a preview)
#   get-maintainer  scripts/get_maintainer.pl with a cache (what prep has b4 run)
# Run 'tools/stack/b4-series.sh COMMAND --help' for a command's options.
# Environment: S61_SENDER ("Name <mail>": who sends; else the global git
# config), S61_B4_BRANCH (the series branch, b4/lockless-shrink-6.1),
# S61_B4_TAGS (its revision tags, s61-b4), S61_B4_PREFIX ("RFC 6.1"),
# S61_B4_TO and S61_B4_CC (the series' recipients), S61_SERIES_URL (the
# clone URL the cover letter gives), S61_B4_MAX_RCPT (25: the most
# addresses a patch mail may have).
#
# Everything happens in a worktree of its own, $S61_WORK/b4/linux (created
# on first use); the main checkout's files and branches are never touched;
# b4's settings live in that worktree's config (git config --worktree).
# The sender is S61_SENDER="Name <mail>" or else the global git config's
# user.name and user.email; never the storage identity of patches/.
. "$(dirname "$0")/../lib/lib.sh"

B4_DIR=$S61_WORK/b4
B4_WT=$B4_DIR/linux
B4_BRANCH=${S61_B4_BRANCH:-b4/lockless-shrink-6.1}
B4_TAGS=${S61_B4_TAGS:-s61-b4}   # revision N is recorded as tag $B4_TAGS/vN
B4_MAILS=$B4_DIR/mails
# What the series asks for is review of a port to 6.1, not that anyone
# apply it: b4 writes the subjects [PATCH RFC 6.1 NN/N] (its spelling of
# an RFC); never the stable format [PATCH 6.1 NN/N] (docs/sending.md).
B4_PREFIX=${S61_B4_PREFIX:-"RFC 6.1"}
B4_LOGS=$S61_WORK/logs
COVER_SRC=$S61_ROOT/docs/cover-letter.md
# Each port's upstream commit, author and the reviewers and ackers confirmed
# in public mail (docs/upstream-map.md says how): prep Cc's them per patch.
B4_CREDITS=$S61_ROOT/docs/upstream-credits.tsv
# Who gets every mail of the series (the cover letter's To/Cc trailers; b4
# adds them to each patch): linux-mm, where the upstream series was
# reviewed, as the list asked to review; the memory management maintainer
# and LKML in Cc. Each patch is also Cc'd, in Cc: trailers that prep
# writes, to whom get_maintainer.pl names for that patch alone, the
# upstream author and reviewers of the commit it ports, and the memcg
# maintainers where it changes their header.
B4_SERIES_TO=${S61_B4_TO:-"linux-mm@kvack.org"}
B4_SERIES_CC=${S61_B4_CC:-"Andrew Morton <akpm@linux-foundation.org>, linux-kernel@vger.kernel.org"}
# Where a reader clones the series repository from (the cover letter's
# "Reproduce"); unset, the letter offers a git bundle (docs/sending.md).
B4_SERIES_URL=${S61_SERIES_URL:-}
B4_GM_OPTS="--nogit --nogit-fallback --nogit-chief-penguins --norolestats"
# No mail of a patch goes to more addresses than this ('send' refuses).
B4_MAX_RCPT=${S61_B4_MAX_RCPT:-25}

usage() {
	sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
}

case $B4_BRANCH in
b4/*|s61-b4-*) ;;
*) die "S61_B4_BRANCH=$B4_BRANCH: branch names of this tool start with 'b4/' or 's61-b4-'" ;;
esac

wgit() {
	git -C "$B4_WT" "$@"
}

# b4 runs in the worktree; its output goes to a log, shown when it fails.
b4_logged() {
	local log=$1
	shift
	mkdir -p "$B4_LOGS"
	if ! (cd "$B4_WT" && b4 "$@") >"$log" 2>&1; then
		sed 's/^/  | /' "$log" | tail -40 >&2
		die "b4 $* failed (log: $log)"
	fi
}

lock_b4() {
	mkdir -p "$B4_DIR"
	exec 9>"$B4_DIR/.lock"
	flock -w 900 9 || die "another tools/stack/b4-series.sh is running (lock $B4_DIR/.lock)"
}

require_b4() {
	command -v b4 >/dev/null ||
		die "b4 is not installed; run 'tools/build/deps.sh b4' (installs b4 and git-email)"
}

top_branch() {
	local top
	top=$(stack_top)
	[ "$top" != base ] || die "branch-stack.txt names no topic branch"
	kgit rev-parse -q --verify "refs/heads/$top" >/dev/null ||
		die "branch '$top' (top of branch-stack.txt) does not exist in $S61_LINUX; run 'tools/stack/stack.sh apply'"
	echo "$top"
}

# Warn when the branches and patches/ disagree in commit counts (unexported
# work) or a branch is not on its parent: the mails are made from the branches.
check_stack() {
	local b parent n np bad=0
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		if ! kgit merge-base --is-ancestor "$parent" "$b" 2>/dev/null; then
			warn "branch $b is not on $parent"
			bad=1
			continue
		fi
		n=$(kgit rev-list --count "$parent..$b")
		np=$(find "$S61_PATCHES/$b" -name '*.patch' 2>/dev/null | wc -l)
		if [ "$n" != "$np" ]; then
			warn "branch $b has $n commits but patches/$b holds $np patches"
			bad=1
		fi
	done
	[ $bad = 0 ] || warn "the mails are made from the branches; see 'tools/stack/stack.sh status'"
}

# The person who sends the series: S61_SENDER="Name <mail>", or else the
# global git config's user.name and user.email (not the kernel checkout's,
# which is the storage identity). Sets SENDER_NAME and SENDER_EMAIL.
sender_ident() {
	local s=${S61_SENDER:-} how=S61_SENDER
	if [ -z "$s" ]; then
		how="git config --global user.name/user.email"
		local n e
		n=$(git config --global --get user.name 2>/dev/null) || n=
		e=$(git config --global --get user.email 2>/dev/null) || e=
		{ [ -n "$n" ] && [ -n "$e" ]; } ||
			die "who sends the series? Set S61_SENDER='Your Name <you@example.com>' or 'git config --global user.name' and 'user.email' (README: Who sends the series)"
		s="$n <$e>"
	fi
	SENDER_NAME=$(printf '%s\n' "$s" | sed -n 's/^ *\([^<>]*[^<> ]\) *<\([^<> @]\{1,\}@[^<> @]\{1,\}\)> *$/\1/p')
	SENDER_EMAIL=$(printf '%s\n' "$s" | sed -n 's/^ *\([^<>]*[^<> ]\) *<\([^<> @]\{1,\}@[^<> @]\{1,\}\)> *$/\2/p')
	{ [ -n "$SENDER_NAME" ] && [ -n "$SENDER_EMAIL" ]; } ||
		die "sender '$s' (from $how) is not 'Name <mail>'"
	if [ "$SENDER_EMAIL" = "$S61_IDENT_EMAIL" ] || [ "$SENDER_NAME" = "$S61_IDENT_NAME" ]; then
		die "the sender ($how) is the storage identity '$S61_IDENT_NAME <$S61_IDENT_EMAIL>' of patches/, which is never mailed: set S61_SENDER='Your Name <you@example.com>' or your global git config"
	fi
	case $SENDER_EMAIL in
	*.invalid|*@invalid|*@localhost) die "the sender's address '$SENDER_EMAIL' ($how) cannot receive replies" ;;
	esac
}

sender() {
	echo "$SENDER_NAME <$SENDER_EMAIL>"
}

# Addresses that have moved: the address 6.1's MAINTAINERS or an upstream
# trailer gives, then the one in use now (docs/sending.md). Three lists;
# Muchun Song reviews from muchun.song@linux.dev (his replies to v6 and
# MAINTAINERS), Shakeel Butt's MEMCG entry moved to shakeel.butt@linux.dev.
moved_addrs() {
	cat <<-'EOF'
	dm-devel@redhat.com dm-devel@lists.linux.dev
	virtualization@lists.linux-foundation.org virtualization@lists.linux.dev
	cluster-devel@redhat.com gfs2@lists.linux.dev
	songmuchun@bytedance.com muchun.song@linux.dev
	shakeelb@google.com shakeel.butt@linux.dev
	EOF
}

# The memcg entry of mainline's MAINTAINERS (CONTROL GROUP - MEMORY
# RESOURCE CONTROLLER (MEMCG)). 6.1's entry lists mm/memcontrol.c but not
# include/linux/memcontrol.h, where struct mem_cgroup_per_node is, so
# get_maintainer.pl names no memcg maintainer for a patch that changes it.
MEMCG_FILES="include/linux/memcontrol.h mm/memcontrol.c"
memcg_people() {
	cat <<-'EOF'
	Johannes Weiner <hannes@cmpxchg.org>
	Michal Hocko <mhocko@kernel.org>
	Roman Gushchin <roman.gushchin@linux.dev>
	Shakeel Butt <shakeel.butt@linux.dev>
	Muchun Song <muchun.song@linux.dev>
	cgroups@vger.kernel.org
	EOF
}

# The upstream author and the confirmed reviewers/ackers of the commit that
# a patch file (relative to patches/) ports, and the authors of the mainline
# fixes folded into it (column 7), one a line; nothing for ours.
credit_people() {
	[ -f "$B4_CREDITS" ] || die "no $B4_CREDITS (the upstream author and reviewers of each patch)"
	awk -F'\t' -v f="$1" '
		$1 == f { found = 1
			if ($4 != "-") print $4
			if ($5 != "-") { n = split($5, r, /; */); for (i = 1; i <= n; i++) print r[i] }
			if (NF >= 7 && $7 != "-") { n = split($7, r, /; */); for (i = 1; i <= n; i++) print r[i] } }
		END { exit !found }' "$B4_CREDITS" ||
		die "$B4_CREDITS has no line for patches/$1; add it (docs/upstream-map.md)"
}

# "COMMIT PATCHFILE" for each commit of the stack: the Nth commit of a
# branch is the Nth patch of patches/BRANCH/ (check_stack warns when the
# counts differ).
commit_patches() {
	local b parent c i f
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		i=0
		for c in $(kgit rev-list --reverse "$parent..$b"); do
			i=$((i + 1))
			f=$(cd "$S61_PATCHES" && find "$b" -maxdepth 1 -name "$(printf '%04d' "$i")-*.patch" | head -1)
			echo "$c ${f:--}"
		done
	done
}

# The addresses of the series' To/Cc (B4_SERIES_TO, B4_SERIES_CC), one a line.
series_addrs() {
	printf '%s, %s\n' "$B4_SERIES_TO" "$B4_SERIES_CC" | tr ',' '\n' |
		sed -n 's/.*<\([^<>]*\)>.*/\1/p; /</!s/^ *\([^ ]*@[^ ]*\) *$/\1/p'
}

# Cc: lines of one commit of the stack (its patch file: $2): the upstream
# author and reviewers of the commit it ports (credit_people), the memcg
# maintainers if it changes MEMCG_FILES, get_maintainer.pl on that patch
# alone (through the cache); moved addresses replaced, each address and
# each name once (the first address given for a person: the upstream
# trailer's), less the series' To/Cc and the sender.
patch_ccs() {
	local c=$1 pf=$2 moved skip f memcg=
	moved=$(moved_addrs)
	skip=$( { series_addrs; echo "$SENDER_EMAIL"; } | tr '\n' ' ')
	for f in $MEMCG_FILES; do
		# (a here-string: 'git | grep -q' can fail by SIGPIPE under pipefail)
		if grep -qxF "$f" <<<"$(kgit diff-tree --no-commit-id --name-only -r "$c")"; then
			memcg=1
		fi
	done
	{
		[ "$pf" = - ] || credit_people "$pf"
		[ -z "$memcg" ] || memcg_people
		# shellcheck disable=SC2086  # a list of options
		kgit format-patch -1 --stdout --no-signature "$c" |
			(cd "$B4_WT" && "$S61_ROOT/tools/stack/b4-series.sh" get-maintainer $B4_GM_OPTS)
	} |
		awk -v moved="$moved" -v skip="$skip" '
			BEGIN { n = split(moved, m, "\n"); for (i = 1; i <= n; i++) { split(m[i], w, " "); to[w[1]] = w[2] }
				n = split(skip, k, " "); for (i = 1; i <= n; i++) sk[k[i]] = 1 }
			{ a = $0; addr = a
			  if (a ~ /</) { addr = a; sub(/.*</, "", addr); sub(/>.*/, "", addr) }
			  if (addr in to) { if (a ~ /</) sub(/<[^>]*>/, "<" to[addr] ">", a); else a = to[addr]; addr = to[addr] }
			  name = ""; if (a ~ /</) { name = a; sub(/ *<.*/, "", name); gsub(/"/, "", name); name = tolower(name) }
			  if ((addr in sk) || (addr in seen) || (name != "" && name in seenname)) next
			  seen[addr] = 1; if (name != "") seenname[name] = 1; print "Cc: " a }'
}

# The series as the sender mails it: each commit of base..TOP with the same
# tree, the sender as author and committer (dates kept, so the same stack
# and sender give the same commits), the storage Signed-off-by replaced by
# the sender's, and Cc: trailers for the people and lists of that patch.
# Prints the new tip.
sign_series() {
	local top=$1 c parent msg ad cd ccs tip map pf
	parent=$(kgit rev-parse base) || return 1
	map=$(commit_patches) || return 1
	for c in $(kgit rev-list --reverse "base..$top"); do
		ad=$(kgit log -1 --format=%ad --date=raw "$c")
		cd=$(kgit log -1 --format=%cd --date=raw "$c")
		pf=$(awk -v c="$c" '$1 == c { print $2 }' <<<"$map")
		ccs=$(patch_ccs "$c" "${pf:--}") || return 1
		msg=$(kgit log -1 --format=%B "$c" |
			grep -vxF "Signed-off-by: $S61_IDENT_NAME <$S61_IDENT_EMAIL>" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
		local args=()
		while IFS= read -r l; do
			[ -z "$l" ] || args+=(--trailer "$l")
		done <<<"$ccs"
		args+=(--trailer "Signed-off-by: $(sender)")
		msg=$(printf '%s\n' "$msg" | git interpret-trailers --if-exists addIfDifferent "${args[@]}") || return 1
		tip=$(printf '%s\n' "$msg" |
			GIT_AUTHOR_NAME=$SENDER_NAME GIT_AUTHOR_EMAIL=$SENDER_EMAIL GIT_AUTHOR_DATE=$ad \
			GIT_COMMITTER_NAME=$SENDER_NAME GIT_COMMITTER_EMAIL=$SENDER_EMAIL GIT_COMMITTER_DATE=$cd \
			kgit commit-tree "$c^{tree}" -p "$parent" -F -) || return 1
		parent=$tip
	done
	echo "$parent"
}

# Is HEAD of the series branch the stack top as the sender mails it: the
# same tree and subjects, every commit authored and signed off by the
# sender, nothing of the storage identity left? Dies naming what differs.
check_signed() {
	local top=$1 head=$2 bad
	[ "$(kgit rev-parse "$head^{tree}")" = "$(kgit rev-parse "$top^{tree}")" ] ||
		die "$B4_BRANCH does not have the tree of $top (the stack changed since 'prep'); run 'tools/stack/b4-series.sh prep'"
	[ "$(kgit log --format=%s "base..$head")" = "$(kgit log --format=%s "base..$top")" ] ||
		die "$B4_BRANCH does not have the commits of $top (the stack changed since 'prep'); run 'tools/stack/b4-series.sh prep'"
	bad=$(kgit log --format='%H %an <%ae>|%cn <%ce>|%(trailers:key=Signed-off-by,valueonly,separator=;)' "base..$head" |
		grep -vF " $(sender)|$(sender)|" | cut -c1-12 | tr '\n' ' ')
	[ -z "$bad" ] ||
		die "commits of $B4_BRANCH not authored by the sender '$(sender)': $bad; run 'tools/stack/b4-series.sh prep' as the sender"
	bad=$(kgit log --format='%h %(trailers:key=Signed-off-by,valueonly,separator=;)' "base..$head" |
		awk -v me="$(sender)" '{ n = split($0, t, ";"); sub(/^[^ ]* /, "", t[1]); if (t[n] != me) print substr($0, 1, 12) }' | tr '\n' ' ')
	[ -z "$bad" ] ||
		die "commits of $B4_BRANCH whose last Signed-off-by is not the sender '$(sender)': $bad; run 'tools/stack/b4-series.sh prep'"
	# (grep reads a here-string: under pipefail, 'git log | grep -q' can
	# fail by SIGPIPE when grep exits at the first match, and pass)
	! grep -qiF "$S61_IDENT_EMAIL" <<<"$(kgit log --format='%an %ae %cn %ce %B' "base..$head")" ||
		die "$B4_BRANCH still carries the storage identity $S61_IDENT_EMAIL; run 'tools/stack/b4-series.sh prep'"
}

# Set a key in the worktree's own config (only when it differs).
wt_config() {
	[ "$(wgit config --worktree --get "$1" 2>/dev/null)" = "$2" ] ||
		wgit config --worktree "$1" "$2"
}

# Create (once) or check the b4 worktree, and configure b4 in it.
ensure_worktree() {
	local top=$1 common want
	require_checkout
	want=$(cd "$S61_LINUX" && cd "$(git rev-parse --git-common-dir)" && pwd -P)
	if [ -e "$B4_WT/.git" ]; then
		common=$(cd "$B4_WT" && cd "$(git rev-parse --git-common-dir 2>/dev/null)" 2>/dev/null && pwd -P) ||
			die "$B4_WT is not a usable git worktree; remove it ('git -C $S61_LINUX worktree remove --force $B4_WT') and retry"
		[ "$common" = "$want" ] ||
			die "$B4_WT is a worktree of $common, not of $S61_LINUX"
	else
		[ ! -e "$B4_WT" ] || [ -z "$(ls -A "$B4_WT")" ] ||
			die "$B4_WT exists and is not a git worktree; move it away"
		info "creating the b4 worktree $B4_WT"
		kgit worktree prune
		mkdir -p "$B4_DIR"
		kgit worktree add -q --detach "$B4_WT" "$top" ||
			die "git worktree add $B4_WT failed"
	fi
	if [ -d "$(wgit rev-parse --git-path rebase-apply)" ]; then
		die "a git am is in progress in $B4_WT; run 'git -C $B4_WT am --abort'"
	fi
	if [ -n "$(wgit status --porcelain --untracked-files=no)" ]; then
		wgit status --short --untracked-files=no | head -10 >&2
		die "$B4_WT has uncommitted changes; it is managed by this tool: 'git -C $B4_WT reset --hard' and retry"
	fi
	# Per-worktree config, so that nothing below leaks into the main checkout.
	if [ "$(kgit config --bool --get extensions.worktreeConfig)" != true ]; then
		info "enabling extensions.worktreeConfig in the kernel repository (b4 settings stay in $B4_WT)"
		kgit config extensions.worktreeConfig true
	fi
	# The cover letter lives in the branch description: history stays untouched.
	wt_config b4.prep-cover-strategy branch-description
	# Never sign, never send: a command that fails if b4 ever tries to deliver,
	# and set so that b4 does not pick its web endpoint (it does in a kernel tree).
	wt_config b4.send-no-patatt-sign yes
	wt_config sendemail.smtpserver /bin/false
	wt_config b4.prep-cover-template "$B4_DIR/cover-template.txt"
	# No 'b4 prep --auto-to-cc': it would put every patch's recipients on
	# the cover letter and so on every mail; prep writes them per patch.
	local k
	for k in b4.send-auto-to-cmd b4.send-auto-cc-cmd; do
		wgit config --worktree --unset "$k" 2>/dev/null || true
	done
	# b4 takes From:, the message ids' domain and the signature from here.
	if [ -n "${SENDER_EMAIL:-}" ]; then
		wt_config user.name "$SENDER_NAME"
		wt_config user.email "$SENDER_EMAIL"
	fi
	write_cover_template
}

# The shortlog, and of the diffstat only its summary line (the letter
# stays short; each patch has its own). No base-commit: line: the base is a local import of the Debian tarball
# that no reader has (and b4 0.12 would name <fork point>~1 anyway). The
# cover letter names the package, version and the tarball's sha256
# instead (docs/sending.md).
write_cover_template() {
	cat >"$B4_DIR/cover-template.txt.new" <<-EOF
	\${cover}

	---
	\${shortlog}

	$(kgit diff --shortstat base "$(stack_top)")
	---
	change-id: \${change_id}

	Best regards,
	-- 
	\${signature}
	EOF
	mv "$B4_DIR/cover-template.txt.new" "$B4_DIR/cover-template.txt"
}

on_series_branch() {
	[ -e "$B4_WT/.git" ] || die "no b4 worktree yet ($B4_WT); run 'tools/stack/b4-series.sh prep'"
	wgit rev-parse -q --verify "refs/heads/$B4_BRANCH" >/dev/null ||
		die "no branch $B4_BRANCH; run 'tools/stack/b4-series.sh prep'"
	[ -n "$(wgit config --get "branch.$B4_BRANCH.b4-tracking")" ] ||
		die "$B4_BRANCH is not enrolled with b4; run 'tools/stack/b4-series.sh prep'"
	if [ "$(wgit symbolic-ref -q HEAD)" != "refs/heads/$B4_BRANCH" ]; then
		wgit checkout -q "$B4_BRANCH" || die "cannot check out $B4_BRANCH in $B4_WT"
	fi
}

tracking_field() {
	wgit config --get "branch.$B4_BRANCH.b4-tracking" |
		sed -n "s/.*\"$1\": \"\{0,1\}\([^\",}]*\)\"\{0,1\}.*/\1/p"
}

cover_text() {
	wgit config --get "branch.$B4_BRANCH.description"
}

rev_tag() {
	echo "$B4_TAGS/v$1"
}

tag_commit() {
	wgit rev-parse -q --verify "refs/tags/$1^{commit}" 2>/dev/null
}

# ------------------------------------------------------------ cover letter
# "  prep             01-06   6 commits" for each branch of branch-stack.txt.
branch_list() {
	local b parent n first=1 last width range total
	total=$(kgit rev-list --count "base..$(stack_top)")
	width=${#total}
	[ "$width" -ge 2 ] || width=2
	for b in $(stack_branches); do
		parent=$(stack_parent "$b")
		n=$(kgit rev-list --count "$parent..$b")
		last=$((first + n - 1))
		if [ "$n" = 0 ]; then
			range="-"
		elif [ "$n" = 1 ]; then
			range=$(printf '%0*d' "$width" "$first")
		else
			range=$(printf '%0*d-%0*d' "$width" "$first" "$width" "$last")
		fi
		printf '  %-16s %-8s %d commit%s\n' "$b" "$range" "$n" "$([ "$n" = 1 ] || echo s)"
		first=$((last + 1))
	done
}

# Text of the reports in mail form: UTF-8 dashes, micro signs and
# non-breaking spaces as ASCII; lines starting with "#" would be b4
# comments: headings become underlined text, other such lines get a space.
mailtext() {
	sed -e 's/\xe2\x80\x93/-/g; s/\xe2\x80\x94/-/g; s/\xc2\xb5/u/g; s/\xe2\x80\xaf//g; s/\xe2\x80\x89//g; s/\xc2\xa0//g' |
		awk '/^#+ / { t = $0; sub(/^#+ +/, "", t); print t; u = t; gsub(/./, "-", u); print u; next }
			/^#/ { print " " $0; next }
			{ print }'
}

# @@TESTING@@: what the committed records say of the stack the letter is
# made from (its id from patches/, lib.sh stack_id): the deliberately broken
# kernels of tests/broken/ that a test claims to catch (a "# fails:" line)
# and that docs/broken-variants.tsv records as caught on this stack; the
# commits whose tree has a passing debug boot with the smoke, lockless and
# race suites in docs/boot-commits.tsv. Nothing typed by hand: a record of
# another stack does not count.
testing_figures() {
	local sid bv=$S61_ROOT/docs/broken-variants.tsv bc=$S61_ROOT/docs/boot-commits.tsv
	local claims caught=0 stale=0 booted=0 top n trees
	sid=$(stack_id) || sid=
	claims=$(grep -l '^# fails:' "$S61_ROOT"/tests/broken/*.diff 2>/dev/null | wc -l)
	if [ -f "$bv" ]; then
		read -r caught stale < <(awk -F'\t' -v s="$sid" '
			!/^#/ && NF >= 5 { if ($3 == s) { if ($5 == "caught") c++ } else o++ }
			END { print c + 0, o + 0 }' "$bv")
	fi
	top=$(stack_top)
	n=$(kgit rev-list --count "base..$top" 2>/dev/null) || n=0
	if [ -f "$bc" ] && [ "$n" -gt 0 ]; then
		trees=$(kgit log --format=%T "base..$top")
		booted=$(awk -F'\t' 'NR == FNR { t[$1] = 1; next }
			!/^#/ && ($1 in t) && $14 == "smoke,lockless,races" && $16 == "0" && !seen[$1]++ { c++ }
			END { print c + 0 }' <(printf '%s\n' "$trees") "$bc")
	fi
	if [ -z "$sid" ] || [ $((caught + booted)) = 0 ]; then
		echo "No test results were recorded in the series repository's"
		echo "docs/broken-variants.tsv and docs/boot-commits.tsv for this stack"
		echo "when this letter was generated."
		return 0
	fi
	info "cover letter: test results from docs/broken-variants.tsv and docs/boot-commits.tsv (stack $sid)"
	cat <<-EOF
	The series repository's records of this stack (id $sid; its
	docs/results/ pages show them):
	- $caught of the $claims deliberately broken kernels of tests/broken/
	  that a test claims to catch were run on this stack and caught by
	  that test (rows of other stacks, not counted: $stale);
	- $booted of the $n commits have a recorded boot of their tree, one at
	  a time, with the debug kernel (lockdep, PROVE_RCU, KASAN, kmemleak)
	  that passed the smoke, lockless and race suites (make boot-commits
	  boots those of prep, the core branches and tests).
	EOF
}

# The "measured" cell of each verdict row cut to its first clause (up to
# ";"), so that the letter's table says one thing: a verdict that clause
# gives for a part of the pairs (": faster" of P2's sequential pairs, while
# the row's verdict is "no difference resolvable") is dropped, and an "all
# N pairs LO-HI" clause, the range the verdict is judged on, is added.
headline_clause() {
	awk -F'|' 'BEGIN { OFS = "|" }
		{ m = $4; first = m; sub(/;.*/, "", first)
		  sub(/: *(faster|slower|no difference resolvable|frees more|frees fewer|less memory|more memory)( \(indicative\))? *$/, "", first)
		  all = ""
		  if (match(m, /all [0-9]+ pairs [^;|]*/)) all = substr(m, RSTART, RLENGTH)
		  sub(/ +$/, "", first); sub(/^ +/, "", first); sub(/ +$/, "", all)
		  $4 = " " first (all != "" ? "; " all : "") " "
		  print }'
}

# @@HEADLINE@@: the verdict table of docs/results/benchmarks.md ("| workload |
# verdict | measured |", the latest whole run) as a plain-text table: each
# workload, its verdict and the first clause of what was measured.
headline_table() {
	local f=$S61_ROOT/docs/results/benchmarks.md rows=
	[ -f "$f" ] && rows=$(awk -F'|' '
		/^\| *workload *\| *verdict *\| *measured *\|/ { t = 1; next }
		t && /^\| *---/ { next }
		t && /^\|/ { print; next }
		t { exit }' "$f" | mailtext | headline_clause |
		sed -e ':a' -e 's/\([0-9]\) \([0-9][0-9][0-9]\)\([^0-9]\|$\)/\1\2\3/' -e 'ta')
	if [ -z "$rows" ]; then
		echo "No benchmark verdicts were recorded in docs/results/benchmarks.md when"
		echo "this letter was generated."
		return 0
	fi
	info "cover letter: benchmark verdicts from docs/results/benchmarks.md"
	printf '%s\n' "$rows" | awk -F'|' '
		function trim(x) { gsub(/^ +| +$/, "", x); gsub(/\*/, "", x); return x }
		BEGIN { printf "  %-4s %-26s %s\n", "", "verdict", "measured (series vs base)" }
		{ w = trim($2); v = trim($3); m = trim($4)
		  o = m; c = m; no = gsub(/\(/, "", o); nc = gsub(/\)/, "", c)
		  while (no-- > nc) m = m ")"
		  line = ""; first = 1; n = split(m, word, " ")
		  for (i = 1; i <= n; i++) {
			if (length(line) + length(word[i]) + 1 > 38 && line != "") {
				printf "  %-4s %-26s %s\n", (first ? w : ""), (first ? v : ""), line
				first = 0; line = ""
			}
			line = (line == "" ? word[i] : line " " word[i])
		  }
		  printf "  %-4s %-26s %s\n", (first ? w : ""), (first ? v : ""), line }'
}

# @@BASE_SOURCE@@: where the base tree comes from, so that a reader can get
# it: the Debian package, its version and the tarball's sha256.
base_source() {
	local ver have sum
	ver=$(stack_base_version)
	have=$(installed_pkg_version "$S61_SRC_PKG") || have=
	[ "$have" = "$ver" ] ||
		die "the cover letter names the sha256 of $S61_SRC_TARBALL from $S61_SRC_PKG $ver, but ${have:+$have is}${have:-no version is} installed; install $S61_SRC_PKG=$ver (apt-get download $S61_SRC_PKG=$ver; dpkg -i)"
	[ -r "$S61_SRC_TARBALL" ] || die "no $S61_SRC_TARBALL to take the sha256 of (install $S61_SRC_PKG=$ver)"
	sum=$(sha256sum "$S61_SRC_TARBALL" | cut -d' ' -f1) || die "sha256sum $S61_SRC_TARBALL failed"
	cat <<-EOF
	  package: Debian $S61_SRC_PKG $ver
	  tarball: $S61_SRC_TARBALL, sha256:
	    $sum
	  obtain:  apt-get download $S61_SRC_PKG=$ver
	           dpkg-deb -x ${S61_SRC_PKG}_${ver}_all.deb .
	           (the tarball is ./usr/src/$(basename "$S61_SRC_TARBALL"))
	EOF
}

# @@SERIES_REPO@@: how a reader gets the series repository: a clone of
# S61_SERIES_URL, or else a git bundle the sender makes and sends on
# request (docs/sending.md).
series_repo() {
	if [ -n "$B4_SERIES_URL" ]; then
		echo "  git clone $B4_SERIES_URL"
	else
		warn "S61_SERIES_URL is not set: the cover letter offers a git bundle of the series repository instead of a clone URL"
		echo "  git clone lockless-shrink-6.1.bundle   (a git bundle of the series"
		echo "  repository: the sender mails it to whoever asks in reply)"
	fi
}

# docs/cover-letter.md without its leading comment, placeholders filled.
make_cover() {
	local out=$1 top n branches testing headline basesrc repo
	top=$(stack_top)
	n=$(kgit rev-list --count "base..$top")
	branches=$(branch_list)
	testing=$(testing_figures)
	headline=$(headline_table)
	basesrc=$(base_source) || exit 1
	repo=$(series_repo)
	[ -f "$COVER_SRC" ] || die "no cover letter source $COVER_SRC"
	{
		awk -v base="$(stack_base_package) $(stack_base_version)" -v n="$n" \
		    -v branches="$branches" -v testing="$testing" \
		    -v headline="$headline" -v basesrc="$basesrc" -v repo="$repo" '
			NR == 1 && /^<!--/ { incomment = 1 }
			incomment { if (/-->/) incomment = 0; next }
			!started && /^[[:space:]]*$/ { next }
			{ started = 1 }
			/^@@BRANCHES@@$/ { print branches; next }
			/^@@TESTING@@$/ { print testing; next }
			/^@@HEADLINE@@$/ { print headline; next }
			/^@@BASE_SOURCE@@$/ { print basesrc; next }
			/^@@SERIES_REPO@@$/ { print repo; next }
			{ gsub(/@@BASE@@/, base); gsub(/@@NCOMMITS@@/, n); print }' "$COVER_SRC" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
		# The series' recipients, as b4 keeps them: trailers of the cover.
		echo
		printf '%s\n' "$B4_SERIES_TO" | tr ',' '\n' | sed -n 's/^ *\(.*[^ ]\) *$/To: \1/p'
		printf '%s\n' "$B4_SERIES_CC" | tr ',' '\n' | sed -n 's/^ *\(.*[^ ]\) *$/Cc: \1/p'
	} >"$out"
	if grep -n '@@[A-Z_]*@@' "$out" >&2; then
		die "$COVER_SRC: unknown placeholder (known: @@BASE@@ @@NCOMMITS@@, and on a line of its own @@BRANCHES@@ @@TESTING@@ @@HEADLINE@@ @@BASE_SOURCE@@ @@SERIES_REPO@@)"
	fi
	# b4 ends the letter at a line "---" (what follows goes below the
	# shortlog's separator, with the To:/Cc: trailers left in the text).
	if grep -nx -- '---' "$out" >&2; then
		die "$COVER_SRC: a line of the letter is '---', where b4 would cut it (underline a heading with more than three dashes)"
	fi
	if grep -n 'EDITME' "$out" >&2; then
		die "the cover letter still says EDITME (b4 refuses to send it)"
	fi
	if grep -n '^#' "$out" >&2; then
		warn "lines above start with '#': b4 drops them from the cover letter as comments"
	fi
	if [ -z "$(sed -n 1p "$out")" ] || [ -n "$(sed -n 2p "$out")" ]; then
		die "$COVER_SRC: the first line must be the subject, followed by a blank line"
	fi
}

# ------------------------------------------------------------------ prep
cmd_prep() {
	local reroll=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh prep [--reroll]
		In the worktree $B4_WT (created on first use):
		point branch $B4_BRANCH at the top of the stack ($(stack_top)) as the
		sender mails it: every commit with the same tree, the sender as author,
		the storage Signed-off-by replaced by the sender's, and Cc: trailers for
		whom scripts/get_maintainer.pl names for that patch. The sender is
		S61_SENDER="Name <mail>" or the global git config's user.name/email.
		Enroll it with 'b4 prep -e base' (cover strategy branch-description),
		subject prefix "PATCH $B4_PREFIX", install docs/cover-letter.md as the
		cover letter (placeholders filled; To: $B4_SERIES_TO;
		Cc: $B4_SERIES_CC) and show 'b4 prep --show-info'. Again on an enrolled
		branch: same change-id and revision, branch moved to the current top.
		  --reroll  start the next revision: needs the current one recorded by
		            'send' (tag $B4_TAGS/vN); the branch becomes vN+1
		H
		exit 0 ;;
		--reroll) reroll=1 ;;
		*) die "prep: unknown argument $1 (see --help)" ;;
		esac
		shift
	done
	require_b4
	sender_ident
	lock_b4
	local top rev tag tagc cover signed pfx
	read -ra pfx <<<"$B4_PREFIX"
	top=$(top_branch)
	check_stack
	ensure_worktree "$top"
	info "signing $(kgit rev-list --count "base..$top") commits as $(sender), Cc: per patch (scripts/get_maintainer.pl)"
	signed=$(sign_series "$top") || die "cannot make the signed series of $top"

	if [ -n "$(wgit config --get "branch.$B4_BRANCH.b4-tracking")" ]; then
		rev=$(tracking_field revision)
		tag=$(rev_tag "$rev")
		tagc=$(tag_commit "$tag") || tagc=
		if [ $reroll = 1 ]; then
			[ -n "$tagc" ] ||
				die "v$rev was never recorded by 'send' (no tag $tag): nothing to reroll"
			[ "$tagc" != "$signed" ] ||
				warn "the stack top is what v$rev was: v$((rev + 1)) will have the same commits"
		elif [ -n "$tagc" ] && [ "$tagc" != "$signed" ]; then
			warn "v$rev was recorded as $tag and the stack changed since: 'prep --reroll' starts v$((rev + 1)) ('send' refuses to record v$rev again)"
		fi
		wgit checkout -q -B "$B4_BRANCH" "$signed" || die "cannot reset $B4_BRANCH to the signed $top"
		if [ $reroll = 1 ]; then
			b4_logged "$B4_LOGS/b4-prep.log" prep --force-revision $((rev + 1))
			info "rerolled: v$rev -> v$((rev + 1))"
		fi
	else
		[ $reroll = 0 ] || die "$B4_BRANCH is not enrolled yet: run 'prep' without --reroll first"
		wgit checkout -q -B "$B4_BRANCH" "$signed" || die "cannot create $B4_BRANCH at the signed $top"
		b4_logged "$B4_LOGS/b4-prep.log" prep -e base --set-prefixes "${pfx[@]}"
		info "enrolled $B4_BRANCH (base: base, $(kgit rev-list --count "base..$top") commits)"
	fi
	b4_logged "$B4_LOGS/b4-prep.log" prep --set-prefixes "${pfx[@]}"

	# b4 0.12 has no non-interactive way to set the cover letter: run
	# --edit-cover with an "editor" that copies the generated text in.
	cover=$B4_DIR/cover-letter.txt
	make_cover "$cover"
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.editor GIT_CONFIG_VALUE_0="cp -- '$cover'" \
		b4_logged "$B4_LOGS/b4-prep.log" prep --edit-cover

	[ "$(wgit rev-parse HEAD)" = "$signed" ] ||
		die "b4 changed the history of $B4_BRANCH (tip differs from the signed $top)"
	! grep -q EDITME <<<"$(cover_text)" || die "the cover letter still contains EDITME"
	info "cover letter: $(cover_text | grep -c '^To: ') To, $(cover_text | grep -c '^Cc: ') Cc; per patch: $(wgit log --format='%(trailers:key=Cc,valueonly)' "base..HEAD" | grep -c .) Cc: trailers, at most $(wgit log --format='%H' "base..HEAD" | while read -r c; do wgit log -1 --format='%(trailers:key=Cc,valueonly)' "$c" | grep -c .; done | sort -n | tail -1) on one patch"
	show_info
}

show_info() {
	local out start
	out=$(cd "$B4_WT" && b4 prep --show-info) || die "b4 prep --show-info failed"
	printf '%s\n' "$out"
	start=$(printf '%s\n' "$out" | sed -n 's/^start-commit: //p')
	if grep -qx "base-commit: $start~1" <<<"$out"; then
		info "note: b4 0.12 shows base-commit as <start>~1 for this cover strategy; the base is $start, a local import: the mails name the Debian package and tarball instead"
	fi
}

cmd_info() {
	case ${1:-} in
	-h|--help) echo "Usage: tools/stack/b4-series.sh info"; echo "b4 prep --show-info of $B4_BRANCH."; exit 0 ;;
	"") ;;
	*) die "info: unknown argument $1" ;;
	esac
	require_b4
	lock_b4
	on_series_branch
	show_info
}

cmd_cover() {
	case ${1:-} in
	-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh cover
		Print the cover letter 'prep' installs: docs/cover-letter.md without its
		leading comment, the placeholders filled (see that comment), before
		b4 adds To/Cc. Reads the kernel checkout's branches; changes nothing.
		H
		exit 0 ;;
	"") ;;
	*) die "cover: unknown argument $1" ;;
	esac
	require_checkout
	top_branch >/dev/null
	local out
	out=$(mktemp)
	make_cover "$out" || { rm -f "$out"; exit 1; }
	cat "$out"
	rm -f "$out"
}

# ------------------------------------------------------------------ send
cmd_send() {
	local dir=$B4_MAILS force=0
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh send [-o DIR] [--force]
		Write the series as mails with 'b4 send -o DIR --no-sign --not-me-too'
		(a dry run: b4 writes .eml files and sends nothing; sendemail.smtpserver
		is /bin/false in the worktree as well): the cover letter and one mail
		per commit, from the sender prep signed the series as. Every mail goes
		to the cover letter's To/Cc; each patch also to its Cc: trailers, and
		b4 copies the cover letter to all of those. Prints the recipients per
		mail (median, max) and fails if a patch's mail has more than
		$B4_MAX_RCPT (S61_B4_MAX_RCPT). Old *.eml in DIR are removed first.
		Records the revision N as annotated tag $B4_TAGS/vN at the branch tip
		(b4 tags only when it really sends), for 'compare', and DIR, for
		'roundtrip' without one. Mailing for real: docs/sending.md.
		  -o DIR   where to write (default $B4_MAILS)
		  --force  record vN again although it was recorded at another commit
		H
		exit 0 ;;
		-o) [ $# -ge 2 ] || die "send: -o needs a directory"; dir=$2; shift ;;
		--force) force=1 ;;
		*) die "send: unknown argument $1 (see --help)" ;;
		esac
		shift
	done
	require_b4
	sender_ident
	lock_b4
	local top n rev tag tagc head count
	top=$(top_branch)
	on_series_branch
	head=$(wgit rev-parse HEAD)
	check_signed "$top" "$head"
	! grep -q EDITME <<<"$(cover_text)" || die "the cover letter contains EDITME; run 'tools/stack/b4-series.sh prep'"
	n=$(wgit rev-list --count "base..$head")
	# b4 sends as the worktree's user.name/user.email: the sender.
	local ident
	ident="$(wgit config user.name) <$(wgit config user.email)>"
	[ "$ident" = "$(sender)" ] ||
		die "b4 would send as '$ident', not as the sender '$(sender)' the series is signed by; run 'tools/stack/b4-series.sh prep'"
	rev=$(tracking_field revision)
	tag=$(rev_tag "$rev")
	tagc=$(tag_commit "$tag") || tagc=
	if [ -n "$tagc" ] && [ "$tagc" != "$head" ] && [ $force = 0 ]; then
		die "v$rev was recorded at another commit ($tag); 'prep --reroll' for v$((rev + 1)), or 'send --force' to record v$rev again"
	fi

	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd -P)
	find "$dir" -maxdepth 1 -name '*.eml' -delete
	b4_logged "$B4_LOGS/b4-send.log" send -o "$dir" --no-sign --not-me-too
	grep -q '^DRYRUN: Would have sent' "$B4_LOGS/b4-send.log" ||
		die "b4 send did not report a dry run (log: $B4_LOGS/b4-send.log)"
	count=$(find "$dir" -maxdepth 1 -name '*.eml' | wc -l)
	[ "$count" = $((n + 1)) ] ||
		die "b4 wrote $count mails to $dir, expected $((n + 1)) (cover letter + $n commits)"

	recipients_report "$dir" || die "a patch's mail goes to more than $B4_MAX_RCPT addresses (S61_B4_MAX_RCPT); see above"
	local leak
	leak=$(grep -il -e "$S61_IDENT_EMAIL" -e "$S61_IDENT_NAME" "$dir"/*.eml | xargs -r -n1 basename | tr '\n' ' ')
	[ -z "$leak" ] || die "mails still carry the storage identity: $leak"

	if [ -z "$tagc" ] || [ "$tagc" != "$head" ]; then
		{
			cover_text
			printf '\n---\nbase-commit: %s\nchange-id: %s\n' \
				"$(kgit rev-parse base)" "$(tracking_field change-id)"
		} | wgit tag -f -a -F - "$tag" "$head" >/dev/null || die "cannot tag $tag"
		info "recorded v$rev as tag $tag"
	fi
	wgit config "branch.$B4_BRANCH.s61-send-dir" "$dir" || die "cannot record $dir as the last 'send' of $B4_BRANCH"
	echo "send: $count mails ($((count - 1)) patches + cover letter) in $dir, v$rev ($tag)"
}

# The addresses in To: and Cc: of one mail (headers unfolded), one a line.
mail_rcpts() {
	awk '/^$/ { exit } /^[ \t]/ { h = h $0; next } { if (h != "") print h; h = $0 } END { if (h != "") print h }' "$1" |
		awk 'tolower($0) ~ /^(to|cc):/ { sub(/^[^:]*: */, ""); print }' | tr ',' '\n' |
		sed -n 's/.*<\([^<>]*\)>.*/\1/p; /</!s/^[ \t]*\([^ \t]*@[^ \t]*\)[ \t]*$/\1/p' | sort -u
}

# Recipients per mail of DIR: a line per mail (its file and number of
# addresses in To/Cc), then the median and the maximum over the patches and
# the cover letter's count. Returns 1 if a patch's mail has more than
# B4_MAX_RCPT.
recipients_report() {
	local dir=$1 f k cover=0 counts=() over=0
	for f in "$dir"/*.eml; do
		k=$(mail_rcpts "$f" | grep -c .)
		printf 'send: %3d recipients  %s\n' "$k" "$(basename "$f")"
		case $(basename "$f") in
		0000-*) cover=$k; continue ;;
		esac
		counts+=("$k")
		if [ "$k" -gt "$B4_MAX_RCPT" ]; then
			echo "send: $(basename "$f"): $k recipients, more than $B4_MAX_RCPT" >&2
			over=1
		fi
	done
	[ ${#counts[@]} -gt 0 ] || return 0
	printf '%s\n' "${counts[@]}" | sort -n | awk -v cover="$cover" -v cap="$B4_MAX_RCPT" '
		{ a[NR] = $1 }
		END { med = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "send: recipients per patch mail: median %s, max %d (cap %d), %d mails; cover letter: %d\n", med, a[NR], cap, NR, cover }'
	return $over
}

# Where the last 'send' of the series branch wrote its mails (recorded in the
# branch's config in the kernel checkout, so it goes with the branch).
last_send_dir() {
	[ -e "$B4_WT/.git" ] || return 1
	wgit config --get "branch.$B4_BRANCH.s61-send-dir"
}

# --------------------------------------------------------------- compare
cmd_compare() {
	local want=
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh compare vN
		git range-diff between revision vN as recorded by 'send' (tag
		$B4_TAGS/vN) and the branch now, via 'b4 prep --compare-to'.
		H
		exit 0 ;;
		v[0-9]*|[0-9]*) [ -z "$want" ] || die "compare: one revision only"; want=${1#v} ;;
		*) die "compare: unknown argument $1 (see --help)" ;;
		esac
		shift
	done
	[ -n "$want" ] || die "compare: which revision? (e.g. 'compare v1')"
	case $want in *[!0-9]*|'') die "compare: bad revision v$want" ;; esac
	require_b4
	lock_b4
	on_series_branch
	local tag
	tag=$(rev_tag "$want")
	if ! tag_commit "$tag" >/dev/null; then
		die "no recorded v$want (tag $tag); recorded: $(wgit tag -l "$B4_TAGS/v*" | tr '\n' ' ')"
	fi
	# b4 0.12 takes a full tag name too; it execs git range-diff.
	(cd "$B4_WT" && b4 prep --compare-to "$tag")
}

# ------------------------------------------------------------- roundtrip
cmd_roundtrip() {
	local dir=
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh roundtrip [DIR]
		The mail round trip check on the .eml files of DIR (default: where the
		last 'send' of $B4_BRANCH wrote them, -o DIR or $B4_MAILS):
		subjects numbered [PATCH $B4_PREFIX 00/N] .. [PATCH $B4_PREFIX N/N] (a "vK" may
		follow the prefix) with the commit subjects of base..$(stack_top) in order;
		then 'git am' of mails 1..N (sorted, the cover letter 0000 skipped) on a
		temporary branch s61-b4-roundtrip-* at base in $B4_WT: the resulting
		tree must equal the top branch's tree, and the commit messages and
		authors must be those of $B4_BRANCH (the series as prep signed it).
		The temporary branch is removed. Exits 1 on any mismatch.
		H
		exit 0 ;;
		-*) die "roundtrip: unknown option $1 (see --help)" ;;
		*) [ -z "$dir" ] || die "roundtrip: one directory only"; dir=$1 ;;
		esac
		shift
	done
	if [ -z "$dir" ]; then
		dir=$(last_send_dir) ||
			die "roundtrip: no DIR given and no earlier 'send -o DIR' recorded; run: tools/stack/b4-series.sh roundtrip DIR"
		info "roundtrip: the mails of the last 'send', in $dir"
		[ -d "$dir" ] ||
			die "roundtrip: the last 'send' wrote to $dir, which is gone; run 'tools/stack/b4-series.sh send' again, or: tools/stack/b4-series.sh roundtrip DIR"
	fi
	[ -d "$dir" ] || die "roundtrip: no mail directory $dir"
	lock_b4
	local top n mails=() f i bad=0 subj want num expect_subjects width
	top=$(top_branch)
	ensure_worktree "$top"
	while IFS= read -r f; do
		mails+=("$f")
	done < <(find "$dir" -maxdepth 1 -name '*.eml' | LC_ALL=C sort)
	n=$(kgit rev-list --count "base..$top")
	[ ${#mails[@]} -gt 0 ] || die "no .eml files in $dir"
	if [ ${#mails[@]} != $((n + 1)) ]; then
		echo "roundtrip: ${#mails[@]} mails, but base..$top has $n commits (expected $((n + 1)) mails)" >&2
		bad=1
	fi
	case $(basename "${mails[0]}") in
	0000-*) ;;
	*) echo "roundtrip: the first mail is not a cover letter (0000-*): $(basename "${mails[0]}")" >&2; bad=1 ;;
	esac

	# Subjects: decoded and unfolded by git mailinfo.
	mapfile -t expect_subjects < <(kgit log --reverse --format=%s "base..$top")
	width=${#n}
	[ "$width" -ge 2 ] || width=2
	for i in "${!mails[@]}"; do
		subj=$(git mailinfo -k /dev/null /dev/null <"${mails[$i]}" 2>/dev/null | sed -n 's/^Subject: //p')
		num=$(printf '%0*d/%d' "$width" "$i" "$n")
		if [ "$i" = 0 ]; then
			want="\\[PATCH $B4_PREFIX (v[0-9]+ )?$num\\] .+"
			grep -Eqx -- "$want" <<<"$subj" || {
				echo "roundtrip: mail 0: subject '$subj' is not '[PATCH $B4_PREFIX $num] ...'" >&2
				bad=1
			}
			continue
		fi
		want=${expect_subjects[$((i - 1))]:-}
		if ! [[ $subj =~ ^\[PATCH\ ${B4_PREFIX//./\\.}\ (v[0-9]+\ )?$num\]\ (.*)$ ]] ||
		   [ "${BASH_REMATCH[2]}" != "$want" ]; then
			echo "roundtrip: mail $i: subject '$subj'" >&2
			echo "           expected '[PATCH $B4_PREFIX $num] $want'" >&2
			bad=1
		fi
	done

	# git am on a temporary branch at base, in the b4 worktree.
	local tmp orig tree top_tree applied
	tmp=s61-b4-roundtrip-$$
	orig=$(wgit symbolic-ref -q --short HEAD) || orig=$(wgit rev-parse HEAD)
	# shellcheck disable=SC2064  # expand now: the values are fixed
	trap "roundtrip_cleanup '$tmp' '$orig'" EXIT
	wgit checkout -q -b "$tmp" base || die "cannot create $tmp at base"
	if ! wgit am -q --no-3way "${mails[@]:1}" >"$B4_LOGS/b4-roundtrip-am.log" 2>&1; then
		sed 's/^/  | /' "$B4_LOGS/b4-roundtrip-am.log" | tail -20 >&2
		echo "roundtrip: git am failed after $(wgit rev-list --count base..HEAD) of $((${#mails[@]} - 1)) mails" >&2
		bad=1
	fi
	tree=$(wgit rev-parse 'HEAD^{tree}')
	top_tree=$(kgit rev-parse "$top^{tree}")
	applied=$(wgit rev-list --count base..HEAD)
	if [ "$tree" != "$top_tree" ]; then
		echo "roundtrip: tree $tree after git am != $top tree $top_tree" >&2
		wgit diff --stat "$top" HEAD | tail -5 >&2
		bad=1
	fi
	local series=$top
	if wgit rev-parse -q --verify "refs/heads/$B4_BRANCH" >/dev/null; then
		series=$B4_BRANCH
	fi
	if ! diff -u <(kgit log --reverse --format='%an <%ae>%n%B' "base..$series") \
		     <(wgit log --reverse --format='%an <%ae>%n%B' base..HEAD) >"$B4_LOGS/b4-roundtrip-msg.diff"; then
		echo "roundtrip: commit messages or authors differ after git am (diff: $B4_LOGS/b4-roundtrip-msg.diff)" >&2
		head -20 "$B4_LOGS/b4-roundtrip-msg.diff" >&2
		bad=1
	fi
	roundtrip_cleanup "$tmp" "$orig"
	trap - EXIT
	if [ $bad != 0 ]; then
		echo "roundtrip: FAILED (${#mails[@]} mails, $applied commits applied, tree $tree, top tree $top_tree)"
		return 1
	fi
	echo "roundtrip: ${#mails[@]} mails, tree $tree == top tree"
}

roundtrip_cleanup() {
	local tmp=$1 orig=$2
	[ ! -d "$(wgit rev-parse --git-path rebase-apply)" ] || wgit am --abort >/dev/null 2>&1
	wgit checkout -q -f "$orig" 2>/dev/null || wgit checkout -q -f --detach "$orig"
	wgit branch -q -D "$tmp" 2>/dev/null || true
}

# ------------------------------------------------------------ get-maintainer
# What 'b4 prep --auto-to-cc' runs twice per patch (To and Cc): the tree's
# scripts/get_maintainer.pl with the given options and the patch on stdin,
# from the top of the tree b4 runs in. The answer is kept in
# $S61_CACHE/get-maintainer/ under the hash of the options, the patch (less
# what b4 makes anew per run), MAINTAINERS and get_maintainer.pl, so a prep
# of an unchanged series (again, --reroll, the next make check) does not
# parse MAINTAINERS 106 times (~25 s).
cmd_get_maintainer() {
	case ${1:-} in
	-h|--help) cat <<-H
		Usage: tools/stack/b4-series.sh get-maintainer [get_maintainer.pl options] <PATCH
		scripts/get_maintainer.pl of the git tree in the current directory, its
		answer cached in $S61_CACHE/get-maintainer/ (entries unused for 30 days
		are removed). prep sets b4.send-auto-to-cmd/-cc-cmd to this.
		H
		exit 0 ;;
	esac
	local top dir=$S61_CACHE/get-maintainer in key f rc=0
	top=$(git rev-parse --show-toplevel 2>/dev/null) || top=$PWD
	[ -x "$top/scripts/get_maintainer.pl" ] ||
		die "get-maintainer: run it in a kernel tree (no scripts/get_maintainer.pl in $top)"
	mkdir -p "$dir" || die "get-maintainer: cannot create $dir"
	in=$(mktemp "$dir/in.XXXXXX") || die "get-maintainer: cannot write to $dir"
	cat >"$in"
	# The key leaves out what b4 makes anew on every run or revision: the
	# date, the message ids, the [PATCH 6.1 vN nn/mm] prefix of the subject.
	# get_maintainer.pl's answer does not depend on them (checked on 11 of
	# the series' mails with and without them: the same answers).
	key=$({
		printf '%s\n' "$@"
		awk 'body { print; next }
			/^$/ { body = 1; print; next }
			/^[ \t]/ { if (!skip) print; next }
			{ skip = tolower($0) ~ /^(date|message-id|references|in-reply-to):/
			  if (!skip) { sub(/^Subject: \[[^]]*\] /, "Subject: "); print } }' "$in"
		cat "$top/MAINTAINERS" "$top/scripts/get_maintainer.pl"
	} | sha1sum | cut -d' ' -f1)
	f=$dir/$key
	if [ ! -f "$f" ]; then
		find "$dir" -maxdepth 1 -type f -mtime +30 -delete 2>/dev/null
		(cd "$top" && scripts/get_maintainer.pl "$@" <"$in" >"$in.out") || rc=$?
		[ $rc = 0 ] && mv "$in.out" "$f"
		rm -f "$in.out"
	else
		touch "$f"
	fi
	rm -f "$in"
	[ $rc = 0 ] || exit $rc
	cat "$f"
}

# ------------------------------------------------------------------ main
cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
prep) cmd_prep "$@" ;;
send) cmd_send "$@" ;;
compare) cmd_compare "$@" ;;
roundtrip) cmd_roundtrip "$@" ;;
info) cmd_info "$@" ;;
cover) cmd_cover "$@" ;;
get-maintainer) cmd_get_maintainer "$@" ;;
-h|--help|help) usage ;;
"") usage; exit 2 ;;
*) die "unknown command '$cmd' (see --help)" ;;
esac
