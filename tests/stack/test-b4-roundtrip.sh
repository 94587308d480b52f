#!/usr/bin/env bash
# tests-skip: it needs the stack (make b4-tests, part of make check)
# Tests of tools/stack/b4-series.sh on the real stack: prep (enroll, cover letter,
# To/Cc), send (dry-run mails, revision tag), roundtrip (git am of the mails
# gives the top's tree; without DIR, of the last send's) and that it catches
# broken mails, compare, reroll.
#
# Also who sends and who receives (issue 28): the sender signs every patch,
# no header or trailer carries the storage identity or the codename, each
# patch goes to its own get_maintainer.pl answer (at most 25 a mail), and
# the cover letter is short and names a base a reader can obtain.
#
# Needs the kernel checkout with the stack applied ('make stack'). Uses a
# series branch and tags of its own (b4/selftest-lockless-shrink,
# s61-b4/selftest/vN) in the b4 worktree and a temporary mail directory,
# and removes them at the end: the real series (b4/lockless-shrink-6.1,
# s61-b4/vN) is left alone. The sender is a test person (S61_SENDER).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
export S61_B4_BRANCH=b4/selftest-lockless-shrink S61_B4_TAGS=s61-b4/selftest
export S61_SENDER="Selftest Sender <selftest.sender@example.com>"
. "$here/tools/lib/lib.sh"
tool=$here/tools/stack/b4-series.sh
WT=$S61_WORK/b4/linux
t=$(mktemp -d)

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) $1"; }
ko() { fail=$((fail + 1)); echo "not ok $((pass + fail)) $1"; [ -z "${2:-}" ] || echo "# $2"; }
# The output of a run of the tool goes to $t/out (out_has and other checks
# read it); the output of any other check command to $t/aout.
outfile() { if [ "$1" = "$tool" ]; then echo "$t/out"; else echo "$t/aout"; fi; }
check() {
	local name=$1 o; shift; o=$(outfile "$1")
	if "$@" >"$o" 2>&1; then ok "$name"; else ko "$name" "$(tail -3 "$o" | tr '\n' ' ')"; fi
}
check_fails() {
	local name=$1 o; shift; o=$(outfile "$1")
	if "$@" >"$o" 2>&1; then ko "$name" "succeeded but should fail"; else ok "$name"; fi
}
# shellcheck disable=SC2317  # called through check
out_has() { grep -q -- "$1" "$t/out"; }
timed() { local s=$SECONDS; check "$@"; echo "# $((SECONDS - s)) s"; }
finish() {
	echo "b4-roundtrip: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
wg() { git -C "$WT" "$@"; }

cleanup() {
	if [ -e "$WT/.git" ]; then
		[ ! -d "$(wg rev-parse --git-path rebase-apply)" ] || wg am --abort >/dev/null 2>&1
		if wg rev-parse -q --verify refs/heads/b4/lockless-shrink-6.1 >/dev/null; then
			wg checkout -q -f b4/lockless-shrink-6.1
		else
			wg checkout -q -f --detach
		fi
		wg branch -q -D "$S61_B4_BRANCH" >/dev/null 2>&1
		wg tag -l "$S61_B4_TAGS/*" | xargs -r git -C "$WT" tag -d >/dev/null
	fi
	rm -rf "$t"
}
trap cleanup EXIT

top=$(stack_top)
if ! kgit rev-parse -q --verify "refs/heads/$top" >/dev/null 2>&1; then
	ko "kernel checkout with the stack applied" "no branch $top in $S61_LINUX; run 'make stack'"
	finish
fi
"$here/tools/build/deps.sh" b4 || { ko "b4 installed" "tools/build/deps.sh b4 failed"; finish; }
# Leftovers of an interrupted run.
cleanup
mkdir -p "$t"
n=$(kgit rev-list --count "base..$top")

check "--help" "$tool" --help
for c in prep send compare roundtrip info get-maintainer; do
	check "$c --help" "$tool" "$c" --help
done
check_fails "unknown command fails" "$tool" frobnicate

# The Testing section: figures come from the records only (a copy of the
# project, its patches/ for the stack id, and fixture records: two variants
# caught on this stack, one of another stack; the kernel checkout is only
# read).
mkdir -p "$t/proj"
cp -r "$here/tools" "$here/docs" "$here/tests" "$here/patches" "$here/branch-stack.txt" "$t/proj/"
sid=$(S61_ROOT=$t/proj bash -c '. "$S61_ROOT/tools/lib/lib.sh"; stack_id')
printf '# name\tdiff_sha1\tstack_id\ttop_tree\tverdict\tcaught_by\n' >"$t/proj/docs/broken-variants.tsv"
printf 'v1\tx\t%s\tt\tcaught\tkunit\nv2\tx\t%s\tt\tcaught\tkunit\nv3\tx\t000000000000\tt\tcaught\tkunit\n' "$sid" "$sid" >>"$t/proj/docs/broken-variants.tsv"
ftree=$(kgit log -1 --format=%T "$top")
printf '# tree\tcommit\tbranch\tsubject\tbuild\tboot\tpassed\tfailed\tskipped\txfail\tsplats\tfirst_splat\tseconds\tsuites\tdate\texit\tnote\n' >"$t/proj/docs/boot-commits.tsv"
printf '%s\tc\tb\ts\tok\tok\t9\t0\t0\t1\t0\t-\t1\tsmoke,lockless,races\td\t0\t-\n' "$ftree" >>"$t/proj/docs/boot-commits.tsv"
printf '# Timing\n\n## Summary\n\nmake check: 42 s (selftest figure)\n\n## Details\nnot this\n' >"$t/proj/docs/zz-timing.md"
printf '# Bench\n\n| workload | verdict | measured |\n| --- | --- | --- |\n| P9 | **faster** | median 1 234 ms vs 5 678 ms; not this |\n| P8 | **no difference resolvable** | ratio 1.020 (1.013–1.063): faster; 12 vs 11 ops/s; all 10 pairs 0.923–1.185; noise |\n\nafter\n' >"$t/proj/docs/results/benchmarks.md"
# A copy with no report at all (only the cover letter template).
mkdir -p "$t/bare/docs"
cp -r "$here/tools" "$here/branch-stack.txt" "$t/bare/"
cp "$here/docs/cover-letter.md" "$t/bare/docs/"
S61_WORK=$S61_WORK check "cover: preview without results says so" "$t/bare/tools/stack/b4-series.sh" cover
cp "$t/aout" "$t/cover-bare"
check "  ... 'No test results were recorded'" grep -q "^No test results were recorded" "$t/cover-bare"
check "  ... nor benchmark verdicts" grep -q "^No benchmark verdicts were recorded" "$t/cover-bare"
S61_WORK=$S61_WORK check "cover: preview with two reports" "$t/proj/tools/stack/b4-series.sh" cover
cp "$t/aout" "$t/cover-figures"
# seen failing with: the stack id test of testing_figures removed (3 of 2)
check "  ... the broken kernels caught on this stack, from the record" grep -q "^- 2 of the [0-9]* deliberately broken kernels" "$t/cover-figures"
check "  ... the other stack's row not counted, and said" grep -q "(rows of other stacks, not counted: 1)" "$t/cover-figures"
check "  ... the commits booted, from the record" grep -q "^- 1 of the $n commits have a recorded boot" "$t/cover-figures"
check "  ... no other doc's '## Summary'" bash -c "! grep -q 'selftest figure)\$' '$t/cover-figures'"
check "  ... the benchmark verdict table as one line per workload" grep -Eq "^  P9 +faster +median 1234 ms vs 5678 ms\$" "$t/cover-figures"
# A row's table says one thing: a sub-verdict of part of the pairs is not
# shown next to another verdict, the range of all pairs is.
# seen failing with: headline_clause's sub() of ': faster' removed
check "  ... no sub-verdict that contradicts the row's verdict" grep -Eq "^  P8 +no difference resolvable +ratio 1.020 \(1.013-1.063\); all 10\$" "$t/cover-figures"
check "  ... and the range of all pairs" grep -Eq "^ +pairs 0.923-1.185\$" "$t/cover-figures"
# seen failing with: @@SERIES_REPO@@ deleted from docs/cover-letter.md
S61_SERIES_URL=https://example.org/lockless-shrink-6.1.git S61_WORK=$S61_WORK check "cover: with S61_SERIES_URL" "$t/proj/tools/stack/b4-series.sh" cover
cp "$t/aout" "$t/cover-url"
check "  ... the letter says how to clone the series repository" grep -qx "  git clone https://example.org/lockless-shrink-6.1.git" "$t/cover-url"
check "  ... without it, it offers a bundle" grep -q "^  git clone lockless-shrink-6.1.bundle" "$t/cover-figures"
# b4 cuts a letter at a line "---" (the heading "Why" once was underlined so).
# seen failing with: the '---' check of make_cover removed
printf 'Why\n---\n' >>"$t/proj/docs/cover-letter.md"
S61_WORK=$S61_WORK check_fails "cover: a line '---' in the letter is refused" "$t/proj/tools/stack/b4-series.sh" cover
cp "$t/aout" "$t/cover-dashes"
check "  ... saying where b4 would cut it" grep -q "where b4 would cut it" "$t/cover-dashes"
check "  ... nothing outside them" bash -c "! grep -q 'Text outside the block\|not this' '$t/cover-figures'"
check "  ... no line starts with # (b4 would drop it)" bash -c "! grep -q '^#' '$t/cover-figures'"
check "  ... headings underlined" grep -qx -- "----------" "$t/cover-figures"
check "  ... no 'No results' sentence" bash -c "! grep -q 'No results were recorded' '$t/cover-figures'"

t0=$SECONDS
timed "prep enrolls a new series" "$tool" prep
cp "$t/out" "$t/prep1"
for want in "branch: $S61_B4_BRANCH" "cover-strategy: branch-description" "prefixes: RFC 6.1" \
	"revision: 1" "base-branch: base"; do
	if grep -qx -- "$want" "$t/prep1"; then ok "show-info: $want"; else ko "show-info: $want" "$(grep -v ^commit- "$t/prep1" | head -12 | tr '\n' '|')"; fi
done
series_sha=$(wg rev-parse "$S61_B4_BRANCH")
check "show-info: end-commit is the signed branch" grep -qx "end-commit: $series_sha" "$t/prep1"
check "branch tip has the top of the stack's tree" test "$(wg rev-parse "$S61_B4_BRANCH^{tree}")" = "$(kgit rev-parse "$top^{tree}")"
check "every commit of the branch is authored and last signed off by the sender" bash -c "test -z \"\$(git -C '$WT' log --format='%an <%ae>|%(trailers:key=Signed-off-by,valueonly,separator=;)' base..'$S61_B4_BRANCH' | awk -F'|' '{ n = split(\$2, s, \";\"); if (\$1 != \"$S61_SENDER\" || s[n] != \"$S61_SENDER\") print }')\""
check "no commit of the branch keeps the storage identity" bash -c "! git -C '$WT' log --format='%an %ae %cn %ce %B' base..'$S61_B4_BRANCH' | grep -qF '$S61_IDENT_EMAIL'"
check "patches have Cc: trailers of their own (not one list for all)" test "$(wg log --format='%(trailers:key=Cc,valueonly,separator=%x2c)' "base..$S61_B4_BRANCH" | sort -u | wc -l)" -gt 5
wg config --get "branch.$S61_B4_BRANCH.description" >"$t/cover"
check "cover letter has no EDITME" bash -c "! grep -q EDITME '$t/cover'"
check "cover letter has no unfilled placeholder" bash -c "! grep -q '@@[A-Z]*@@' '$t/cover'"
check "cover letter subject from docs/cover-letter.md" grep -qx "mm: shrinker: .*" <(head -1 "$t/cover")
missing=
for b in $(stack_branches); do
	grep -Eq "^  $b +[0-9-]+ +[0-9]+ commits?$" "$t/cover" || missing="$missing $b"
done
check "cover letter lists every topic branch with its count${missing:+ (missing:$missing)}" test -z "$missing"
check "cover letter To: linux-mm, Cc: the mm maintainer" bash -c "grep -qx 'To: linux-mm@kvack.org' '$t/cover' && test \$(grep -c '^To: ' '$t/cover') = 1 && grep -qx 'Cc: Andrew Morton <akpm@linux-foundation.org>' '$t/cover'"
check "cover letter: at most 170 lines of text" test "$(grep -cv '^\(To\|Cc\): ' "$t/cover")" -le 170
echo "# cover letter: $(grep -cv '^\(To\|Cc\): ' "$t/cover") lines of text"
sha=$(sha256sum "$S61_SRC_TARBALL" | cut -d' ' -f1)
check "cover letter names the package, version and the tarball's sha256" bash -c "grep -q 'package: Debian $(stack_base_package) $(stack_base_version)\$' '$t/cover' && grep -qx '    $sha' '$t/cover' && grep -q 'apt-get download $(stack_base_package)=$(stack_base_version)' '$t/cover'"
check "b4 settings are in the worktree's config" test "$(wg config --worktree --get sendemail.smtpserver)" = /bin/false
check "the main checkout does not get them" test "$(kgit config --get sendemail.smtpserver)" != /bin/false
check "the worktree's user is the sender (b4's From:)" test "$(wg config user.name) <$(wg config user.email)>" = "$S61_SENDER"
check "no b4 auto To/Cc command (it would copy every patch's list to all)" bash -c "! git -C '$WT' config --worktree --get b4.send-auto-to-cmd && ! git -C '$WT' config --worktree --get b4.send-auto-cc-cmd"
S61_SENDER='' GIT_CONFIG_GLOBAL=/dev/null check_fails "prep without a sender fails" "$tool" prep
check "  ... saying how to set one" out_has "who sends the series? Set S61_SENDER="
S61_SENDER="$S61_IDENT_NAME <$S61_IDENT_EMAIL>" check_fails "prep as the storage identity fails" "$tool" prep
check "  ... naming it" out_has "is the storage identity"
cid=$(sed -n 's/^change-id: //p' "$t/prep1")
timed "prep again" "$tool" prep
check "prep again keeps change-id and revision" bash -c "grep -qx 'change-id: $cid' '$t/out' && grep -qx 'revision: 1' '$t/out'"
t_prep=$((SECONDS - t0))
# get_maintainer.pl runs through the tool's cache; its answers are the script's.
wg format-patch -1 --stdout "$top" >"$t/one.patch"
gmopt="--nogit --nogit-fallback --nogit-chief-penguins --norolestats"
for o in --nol --nom; do
	# shellcheck disable=SC2086  # a list of options
	(cd "$WT" && scripts/get_maintainer.pl $gmopt $o <"$t/one.patch") >"$t/gm-direct" 2>&1
	for pass_no in 1 2; do
		# shellcheck disable=SC2086
		(cd "$WT" && "$tool" get-maintainer $gmopt $o <"$t/one.patch") >"$t/gm-cached" 2>&1
		check "get-maintainer $o (run $pass_no) answers what get_maintainer.pl does" cmp -s "$t/gm-direct" "$t/gm-cached"
	done
done
check "get-maintainer: --nol and --nom answers differ (options are in the key)" bash -c "! cmp -s <(cd '$WT' && '$tool' get-maintainer $gmopt --nol <'$t/one.patch') <(cd '$WT' && '$tool' get-maintainer $gmopt --nom <'$t/one.patch')"
# b4 makes the date and message ids anew on each run: they are not in the key.
gmc=$S61_CACHE/get-maintainer
sed -e 's/^Date: .*/Date: Thu, 1 Jan 2026 00:00:00 +0000/' -e '1a Message-Id: <s61-selftest@example.org>' \
	-e 's/^Subject: \[PATCH\]/Subject: [PATCH 6.1 v7 53\/53]/' "$t/one.patch" >"$t/one-redated.patch"
before=$(find "$gmc" -maxdepth 1 -type f | wc -l)
check "get-maintainer: another date, message id and [PATCH ...] prefix hit the cache" bash -c "cd '$WT' && '$tool' get-maintainer $gmopt --nol <'$t/one-redated.patch' | cmp -s - <(cd '$WT' && '$tool' get-maintainer $gmopt --nol <'$t/one.patch') && test \$(find '$gmc' -maxdepth 1 -type f | wc -l) = $before"
# (a line of its own in the commit message, so that it is new on every run)
sed -e "0,/^\$/s//\nselftest $(date +%s%N)\n/" "$t/one.patch" >"$t/one-changed.patch"
check "get-maintainer: a changed patch is a new entry" bash -c "cd '$WT' && '$tool' get-maintainer $gmopt --nol <'$t/one-changed.patch' >/dev/null && test \$(find '$gmc' -maxdepth 1 -type f | wc -l) = $((before + 1))"
check_fails "get-maintainer outside a kernel tree fails" bash -c "cd / && '$tool' get-maintainer --nol </dev/null"

s=$SECONDS
timed "send writes the mails" "$tool" send -o "$t/mails"
t_send=$((SECONDS - s))
check "send says how many mails" out_has "^send: $((n + 1)) mails"
check "$((n + 1)) .eml files" test "$(find "$t/mails" -name '*.eml' | wc -l)" = $((n + 1))
nto=$(grep -l '^To: ' "$t/mails"/*.eml | wc -l)
check "every mail has a To: header" test "$nto" = $((n + 1))
check "no mail is signed (no patatt header)" bash -c "! grep -qi '^X-Developer-Signature' '$t/mails'/*.eml"
check "no base-commit: line nobody could resolve" bash -c "! grep -q '^base-commit:' '$t/mails'/0000-*.eml"
# Headers and trailers of every mail: From, Message-Id, change-id, the
# signature, Signed-off-by: the sender's, no storage identity or codename.
for f in "$t/mails"/*.eml; do
	sed -n '1,/^$/p' "$f"
	grep -E '^(change-id|base-commit|Signed-off-by|Cc|To): ' "$f"
	sed -n '/^-- $/,$p' "$f"
done >"$t/heads"
check "no mail header or trailer carries the codename s61 or the storage identity" bash -c "! grep -i -e s61 -e '$S61_IDENT_EMAIL' -e 'example.org' '$t/heads'"
check "every mail is From: the sender" test "$(grep -c "^From: $S61_SENDER\$" "$t/heads")" = $((n + 1))
check "Message-Ids in the sender's domain" test "$(grep -c '^Message-Id: <.*@example.com>$' "$t/heads")" = $((n + 1))
check "send prints the recipients per patch mail" out_has "^send: recipients per patch mail: median .*, max .* (cap 25), $n mails; cover letter: "
echo "# $(grep '^send: recipients' "$t/out")"
check "no patch mail over 25 recipients" bash -c "[ \$(sed -n 's/.*max \([0-9]*\) (cap.*/\1/p' '$t/out') -le 25 ]"
# seen failing with: recipients_report's per-mail printf removed
check "send prints a line per mail with its recipients" test "$(grep -Ec '^send: +[0-9]+ recipients  [0-9]{4}-.*\.eml$' "$t/out")" = $((n + 1))

# Authorship (issue 40): the sender is the only signer, no upstream trailer
# claims a review of the 6.1 code.
# seen failing with: sign_series adding --trailer "Reviewed-by: Muchun Song <songmuchun@bytedance.com>"
check "no patch mail carries a Reviewed-by, Acked-by or Tested-by" bash -c "! grep -qE '^(Reviewed|Acked|Tested)-by: ' '$t/mails'/00[0-9][0-9]-*.eml"
# seen failing with: sign_series adding --trailer "Signed-off-by: Qi Zheng <zhengqi.arch@bytedance.com>" before the sender's
check "each patch mail has one Signed-off-by, the sender's" test "$(for f in "$t/mails"/*.eml; do case $f in */0000-*) continue ;; esac; grep -c '^Signed-off-by: ' "$f"; done | sort -u | tr '\n' ' ')" = "1 "
# The cover letter's body: b4 took the To:/Cc: trailers out of it, and the
# first "---" is b4's, before the shortlog.
# seen failing with: the heading "Motivation" underlined as "---" (and the make_cover check removed)
cbody=$(awk -v end="Selftest Sender ($n):" '$0 == end { exit } b { print } /^$/ { b = 1 }' "$t/mails"/0000-*.eml)
check "cover letter body: no To:/Cc: lines left in it" bash -c "! grep -qE '^(To|Cc): ' <<<\"\$1\"" _ "$cbody"
check "cover letter body: its first '---' is b4's, before the shortlog" bash -c "awk '/^---\$/ { getline; print; exit }' '$(ls "$t/mails"/0000-*.eml)' | grep -q '^Selftest Sender ($n):'"

# Who receives each patch (issue 40): the upstream author and reviewers of
# the commit it ports and the authors of the mainline fixes folded into it
# (docs/upstream-credits.tsv, addresses as moved), and
# the memcg maintainers where it changes include/linux/memcontrol.h.
i=0; miss=; memcg_bad=
for b in $(stack_branches); do
	for pf in "$here/patches/$b"/*.patch; do
		i=$((i + 1))
		mail=$(find "$t/mails" -name "$(printf '%04d' "$i")-*.eml")
		heads=$(awk '/^$/ { exit } { print }' "$mail")
		rel=${pf#"$here/patches/"}
		# (b4 writes each address as the kernel tree's .mailmap has it)
		want=$(awk -F'\t' -v f="$rel" '$1 == f { print $4 "; " $5 "; " $7 }' "$here/docs/upstream-credits.tsv" |
			tr ';' '\n' | sed -n 's/^ *\(.*<.*>\)$/\1/p' |
			sed 's/<songmuchun@bytedance.com>$/<muchun.song@linux.dev>/' |
			while IFS= read -r p; do git -C "$WT" check-mailmap "$p"; done | sed -n 's/.*<\(.*\)>.*/\1/p')
		for a in $want; do
			grep -qiF "$a" <<<"$heads" || miss="$miss $i:$a"
		done
		if grep -q '^diff --git a/include/linux/memcontrol.h ' "$pf"; then
			grep -qF 'hannes@cmpxchg.org' <<<"$heads" || memcg_bad="$memcg_bad $i"
		else
			! grep -qF 'hannes@cmpxchg.org' <<<"$heads" || memcg_bad="$memcg_bad $i(not memcg)"
		fi
	done
done
# seen failing with: credit_people's line removed from patch_ccs
check "each port's mail Cc's the upstream author and reviewers${miss:+ (missing:$miss)}" test -z "$miss"
# seen failing with: memcg_people's line removed from patch_ccs
check "the memcg maintainers are Cc'd exactly where memcontrol.h changes${memcg_bad:+ (wrong:$memcg_bad)}" test -z "$memcg_bad"
# seen failing with: the id of conv-fs/0001 in docs/upstream-credits.tsv changed to 1720f5dd8d3b
bad=$(awk -F'\t' '!/^#/ && $2 != "-" { print $1 "\t" $2 "\t" $3 "\t" $4 }' "$here/docs/upstream-credits.tsv" |
	while IFS=$'\t' read -r rel id title author; do
		name=${author%% <*}
		grep -qF "Upstream commit $id (\"$title\")," "$here/patches/$rel" &&
			grep -A1 -F "Upstream commit $id (" "$here/patches/$rel" | grep -qF "by $name" || echo "$rel"
	done)
check "upstream-credits.tsv names each patch's upstream commit, title and author as its credit line${bad:+ (differs: $bad)}" test -z "$bad"
check "revision v1 recorded as tag $S61_B4_TAGS/v1 at the series branch" test "$(wg rev-parse -q --verify "$S61_B4_TAGS/v1^{commit}")" = "$series_sha"

s=$SECONDS
timed "roundtrip: the mails give the top's tree" "$tool" roundtrip "$t/mails"
t_rt=$((SECONDS - s))
check "roundtrip prints the summary line" grep -qx "roundtrip: $((n + 1)) mails, tree $(kgit rev-parse "$top^{tree}") == top tree" "$t/out"
check "roundtrip removed its temporary branch" test -z "$(wg branch --list 's61-b4-roundtrip-*')"
check "b4 worktree clean and on the series branch" bash -c "test -z \"\$(git -C '$WT' status --porcelain --untracked-files=no)\" && test \"\$(git -C '$WT' symbolic-ref --short HEAD)\" = '$S61_B4_BRANCH'"
# Without DIR: the mails where the last 'send -o DIR' wrote them.
check "roundtrip without DIR after send -o" "$tool" roundtrip
check "  ... takes the mails of that send" out_has "the mails of the last 'send', in $(cd "$t/mails" && pwd -P)\$"

# Broken mail sets must fail.
cp -r "$t/mails" "$t/short"
rm -f "$(find "$t/short" -name '*.eml' | LC_ALL=C sort | tail -1)"
check_fails "roundtrip fails with a mail missing" "$tool" roundtrip "$t/short"
check "  ... and says the tree differs" out_has "!= $top tree"
cp -r "$t/mails" "$t/subj"
sed -i '0,/^Subject: \[PATCH RFC 6.1 03\//s//Subject: [PATCH RFC 6.1 04\//' "$t/subj"/0003-*.eml
check_fails "roundtrip fails with a misnumbered subject" "$tool" roundtrip "$t/subj"
check "  ... and names the mail" out_has "mail 3: subject"
cp -r "$t/mails" "$t/msg"
f=$(find "$t/msg" -name '0005-*.eml')
awk 'done || !/^$/ { print; next } { print; getline; print "Tampered."; print $0; done = 1 }' "$f" >"$f.new" && mv "$f.new" "$f"
check_fails "roundtrip fails with a changed commit message" "$tool" roundtrip "$t/msg"
check "  ... and says the messages differ" out_has "commit messages or authors differ"
check "no temporary branch left after failures" test -z "$(wg branch --list 's61-b4-roundtrip-*')"

check "compare v1" "$tool" compare v1
check "compare v1: $n commits, all unchanged" bash -c "test \$(grep -c ' = ' '$t/out') = $n && test \$(wc -l <'$t/out') = $n"
check_fails "compare v9 (not recorded) fails" "$tool" compare v9
check "send again at the same commit" "$tool" send -o "$t/mails"

timed "prep --reroll starts v2" "$tool" prep --reroll
check "  ... revision 2" out_has "^revision: 2$"
check "send v2" "$tool" send -o "$t/mails2"
check "v2 subjects are [PATCH RFC 6.1 v2 NN/N]" grep -q "^Subject: \[PATCH RFC 6.1 v2 00/$n\]" "$t/mails2"/0000-*.eml
check "roundtrip of v2" "$tool" roundtrip "$t/mails2"
check "compare v1 from v2" "$tool" compare v1
wg tag -f "$S61_B4_TAGS/v2" "$series_sha~1" >/dev/null 2>&1
check_fails "send refuses to record v2 again at another commit" "$tool" send -o "$t/mails2"
check "send --force records it again" "$tool" send --force -o "$t/mails2"
check "  ... tag v2 back at the series branch" test "$(wg rev-parse -q --verify "$S61_B4_TAGS/v2^{commit}")" = "$series_sha"

echo "# timing: prep ${t_prep}s (twice), send ${t_send}s, roundtrip ${t_rt}s"
finish
