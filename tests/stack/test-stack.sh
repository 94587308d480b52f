#!/usr/bin/env bash
# Tests of tools/stack/stack.sh on a tiny synthetic "linux-source" tarball and project:
# init, export/apply round trip, refusal to drop unexported commits, a patch
# that does not apply, rebase, dirty checkout and wrong base version; and the
# mistakes of issue 25: branch-stack.txt that disagrees with patches/, a git
# am/rebase/cherry-pick of one's own in progress, apply interrupted (SIGINT,
# SIGTERM, kill -9) and repaired, export of a dirty checkout, plain git add
# under Debian's top-level "/*" ignore rule. After each refusal, nothing
# changed: the checkout's refs and HEAD, its am/rebase state, its files,
# patches/ and branch-stack.txt.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

# A fake source package: a tarball with a top directory, like linux-source.
mkdir -p "$t/src/linux-source-6.1/lib"
printf 'all:\n' >"$t/src/linux-source-6.1/Makefile"
seq 1 20 >"$t/src/linux-source-6.1/lib/a.c"
seq 1 20 >"$t/src/linux-source-6.1/lib/b.c"
# Debian's tarball ends its .gitignore with a rule for its packaging.
printf '*.o\nignored.c\n/*\n!/debian/\n' >"$t/src/linux-source-6.1/.gitignore"
echo 'kept despite .gitignore' >"$t/src/linux-source-6.1/ignored.c"
tar -C "$t/src" -cJf "$t/src.tar.xz" linux-source-6.1

# A project with the tools and a two-branch stack.
mkdir -p "$t/proj"
cp -r "$here/tools" "$t/proj/"
printf ".work/\n" >"$t/proj/.gitignore"
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$t/proj/branch-stack.txt"
(cd "$t/proj" && git init -q && git add . && git -c user.name=t -c user.email=t@t commit -qm init)
export S61_CACHE=$t/cache S61_WORK=$t/proj/.work S61_SRC_TARBALL=$t/src.tar.xz S61_SRC_VERSION=1.0-1
st=$t/proj/tools/stack/stack.sh
K=$t/proj/.work/linux
g() { git -C "$K" "$@"; }

# Everything a refused command must leave as it was.
# refuses NAME CMD...: CMD fails, and nothing changed.
refuses() {
	local name=$1 before
	shift
	before=$(snapshot 2>&1)
	check_fails "$name" "$@"
	if [ "$(snapshot 2>&1)" = "$before" ]; then
		ok "  ... and changed nothing"
	else
		ko "  ... and changed nothing" "$(diff <(echo "$before") <(snapshot 2>&1) | tr '\n' ' ')"
	fi
}
# says NAME PATTERN...: the last command's output has every PATTERN.
no_leftovers() {
	expect "$1: no temporary refs, no apply or am state" \
		bash -c "test -z \"\$(git -C '$K' for-each-ref refs/stack/new/)\" && ! test -e '$K/.git/rebase-apply' && ! test -e '$K/.git/s61-stack-apply'"
}
# Back to the stack of the last good apply ($applied), whatever the case
# before left, so that each case starts from a known state.
restore_applied() {
	local ref sha
	g am --abort >/dev/null 2>&1; g rebase --abort >/dev/null 2>&1; g cherry-pick --abort >/dev/null 2>&1
	rm -rf "$K/.git/s61-stack-apply"
	git -C "$t/proj" checkout -q -- patches branch-stack.txt
	git -C "$t/proj" clean -qfdx patches
	g checkout -q -f --detach
	g for-each-ref --format='%(refname)' refs/heads refs/stack | while read -r ref; do
		echo "$applied" | grep -q "^$ref " || g update-ref -d "$ref"
	done
	echo "$applied" | while read -r ref sha; do
		case $ref in refs/*) g update-ref "$ref" "$sha" ;; esac
	done
	g checkout -q -f two
	g clean -qfdx
}

check "init imports the tarball" "$st" init
check "init again is a no-op" "$st" init
check "imported base keeps files a .gitignore in the tarball names" test -f "$K/ignored.c"
check "path prints the checkout" test "$("$st" path)" = "$K"
# Another version installed: init fetches the wanted one with apt-get
# download (tests/stack/test-stack-move.sh); here the archive does not have it.
mkdir -p "$t/noapt"
printf '#!/bin/sh\necho "E: Version not found" >&2\nexit 100\n' >"$t/noapt/apt-get"
chmod +x "$t/noapt/apt-get"
PATH=$t/noapt:$PATH S61_SRC_VERSION=2.0-1 S61_CACHE=$t/cache2 check_fails "init fails when the wanted version is neither installed nor in the archive" "$st" init
if out_has "could not download linux-source-6.1 1.0-1"; then ok "init names the wanted version"; else ko "init names the wanted version" "$(cat "$t/out")"; fi

# An upload with no linux-source .deb: Debian's source package instead (a
# stub tools/debian/quilt.sh prints a .dsc; a stub dpkg-source unpacks it with
# Debian's debian/ and quilt's .pc/, which the import leaves out).
mkdir -p "$t/srcpkg/bin" "$t/srcpkg/tree/lib" "$t/srcpkg/tree/debian/patches" "$t/srcpkg/tree/.pc"
cp -r "$t/src/linux-source-6.1/." "$t/srcpkg/tree/"
echo 'debian patch applied' >>"$t/srcpkg/tree/lib/a.c"
echo 'series' >"$t/srcpkg/tree/debian/patches/series"
echo 'applied' >"$t/srcpkg/tree/.pc/applied-patches"
touch "$t/srcpkg/linux_3.0-1.dsc"
# shellcheck disable=SC2016  # the stub's own $4
printf '#!/bin/sh
mkdir -p "$4" && cp -r %s/. "$4"/\n' "$t/srcpkg/tree" >"$t/srcpkg/bin/dpkg-source"
chmod +x "$t/srcpkg/bin/dpkg-source"
cp "$t/proj/tools/debian/quilt.sh" "$t/debian-quilt.real"
# shellcheck disable=SC2016  # the stub's own $1 and $2
printf '#!/bin/sh
[ "$1 $2" = "source 3.0-1" ] && echo %s && exit 0
echo "debian-quilt: error: the archive has no source package linux $2" >&2
exit 1
' \
	"$t/srcpkg/linux_3.0-1.dsc" >"$t/proj/tools/debian/quilt.sh"
srcinit() { PATH=$t/srcpkg/bin:$t/noapt:$PATH S61_SRC_VERSION=9.0-1 S61_CACHE=$t/cache3 "$@"; }
sed -i 's/^base linux-source-6.1 1.0-1$/base linux-source-6.1 3.0-1/' "$t/proj/branch-stack.txt"
rm -rf "$t/proj/.work"
# broken on: source_tree without the source package fallback (init fails).
check "init takes Debian's source package when the archive has no .deb" srcinit "$st" init
says "  ... and says so" "trying Debian's source package linux 3.0-1"
check "  ... the import is of the .dsc (orig tarball + debian/patches)" \
	bash -c "git -C '$t/cache3/base.git' log -1 --format=%B base-3.0-1 | grep -q 'linux_3.0-1.dsc (orig tarball + debian/patches)'"
# broken on: debian/ and .pc/ kept in the tree.
check "  ... the tree: the patched sources, without debian/ and .pc/" \
	bash -c "git -C '$t/cache3/base.git' ls-tree -r --name-only base-3.0-1 | grep -vq '^debian/\|^\.pc/' && ! git -C '$t/cache3/base.git' ls-tree -r --name-only base-3.0-1 | grep -q '^debian/\|^\.pc/' && git -C '$t/cache3/base.git' show base-3.0-1:lib/a.c | grep -q 'debian patch applied'"
rm -rf "$t/proj/.work"
check_fails "S61_IMPORT_FROM=deb forbids the source package" srcinit env S61_IMPORT_FROM=deb S61_CACHE="$t/cache4" "$st" init
says "  ... and says so" "S61_IMPORT_FROM=deb forbids the source package"
rm -rf "$t/proj/.work"
check_fails "a wrong S61_IMPORT_FROM is refused" srcinit env S61_IMPORT_FROM=tarball S61_CACHE="$t/cache4" "$st" init
says "  ... naming what it takes" "it takes auto (the default), deb or source"
sed -i 's/^base linux-source-6.1 3.0-1$/base linux-source-6.1 8.0-1/' "$t/proj/branch-stack.txt"
rm -rf "$t/proj/.work"
check_fails "an upload with neither form fails" srcinit env S61_CACHE="$t/cache4" "$st" init
says "  ... with one error line naming both and why" "could not download linux-source-6.1 8.0-1, nor Debian's source package linux 8.0-1 (the archive has no source package linux 8.0-1)"
expect "  ... one error line" test "$(grep -c 'error:' "$t/out")" = 1
cp "$t/debian-quilt.real" "$t/proj/tools/debian/quilt.sh"
sed -i 's/^base linux-source-6.1 8.0-1$/base linux-source-6.1 1.0-1/' "$t/proj/branch-stack.txt"
rm -rf "$t/proj/.work"
check "back on the installed upload" "$st" init

# Work on the branches in the checkout, as a developer would.
g config user.name dev; g config user.email dev@x
g checkout -q -b one base
sed -i 's/^3$/three/' "$K/lib/a.c"; g commit -qam "lib: a: spell three"
sed -i 's/^5$/five/' "$K/lib/a.c"; g commit -qam "lib: a: spell five"
g checkout -q -b two one
sed -i 's/^7$/seven/' "$K/lib/b.c"; g commit -qam "lib: b: spell seven"
refuses "export refuses branches without a folder in patches/" "$st" export
says "  ... and says how to make one" "mkdir patches/one && touch patches/one/.keep"
mkdir -p "$t/proj/patches/one" "$t/proj/patches/two"
touch "$t/proj/patches/one/.keep" "$t/proj/patches/two/.keep"
check_fails "status reports unexported work" "$st" status
check "export writes patches" "$st" export
check "export wrote 2+1 patches" test "$(find "$t/proj/patches/one" -name "*.patch" | wc -l)$(find "$t/proj/patches/two" -name "*.patch" | wc -l)" = 21
check "status is clean after export" "$st" status
(cd "$t/proj" && git add -A && git -c user.name=t -c user.email=t@t commit -qm patches)
check "export again changes nothing" "$st" export
check "repository clean after re-export" test -z "$(git -C "$t/proj" status --porcelain)"
check "apply recreates the stack" "$st" apply
check "export after apply leaves the repository clean" bash -c "'$st' export && test -z \"\$(git -C '$t/proj' status --porcelain)\""
check "patches carry no commit hash" bash -c "! grep -h '^From [0-9a-f]' '$t/proj/patches/one/'* | grep -v '^From 0000000000000000000000000000000000000000 '"
# (--force: recreated by git am, the commits carry the checkout's storage
# identity as committer from here on, not the developer's "dev")
check "apply --force recreates the stack from patches/" "$st" apply --force
applied=$(snapshot)

# branch-stack.txt that disagrees with patches/: refused before anything.
cp "$t/proj/branch-stack.txt" "$t/stack.good"
sed -i 's/^two$/tow/' "$t/proj/branch-stack.txt"
for c in apply export rebase status; do
	refuses "a typo in branch-stack.txt: $c refuses" "$st" $c
	says "  ... names the line and the folder meant" "line 3: branch 'tow' has no folder" "did you mean 'two'" "patches/two/ belongs to no branch"
done
check "the typo made no branch" test -z "$(g for-each-ref refs/heads/tow)"
cp "$t/stack.good" "$t/proj/branch-stack.txt"
mkdir "$t/proj/patches/three"
refuses "an orphaned folder in patches/: export refuses" "$st" export
says "  ... names it" "patches/three/ belongs to no branch of branch-stack.txt (orphaned)"
rmdir "$t/proj/patches/three"
echo lockles >>"$t/proj/branch-stack.txt"
refuses "a branch without a folder: apply refuses" "$st" apply
says "  ... and says how to add a branch" "line 4: branch 'lockles' has no folder" "mkdir patches/lockles && touch patches/lockles/.keep"
cp "$t/stack.good" "$t/proj/branch-stack.txt"
echo one >>"$t/proj/branch-stack.txt"
refuses "a branch named twice: status refuses" "$st" status
says "  ... names both lines" "line 4: branch 'one' is listed twice (also on line 2)"
cp "$t/stack.good" "$t/proj/branch-stack.txt"
printf 'one\ntwo..x\n' | sed -i '3r /dev/stdin' "$t/proj/branch-stack.txt"
sed -i '4d' "$t/proj/branch-stack.txt"
refuses "a name git refuses as a branch: apply refuses" "$st" apply
says "  ... names it" "line 4: 'two..x' is not a valid git branch name"
cp "$t/stack.good" "$t/proj/branch-stack.txt"
check "the good stack file is back" "$st" status

# export of a checkout with uncommitted edits or new files.
restore_applied
g checkout -q two
echo edit >>"$K/lib/a.c"
refuses "export refuses uncommitted edits" "$st" export
says "  ... names the file and the ways out" "lib/a.c" "git -C $K commit -a" "add -f" "stash"
check_fails "status is not clean with uncommitted edits" "$st" status
g checkout -q -- lib/a.c
echo new >"$K/lib/new.c"
check "plain git add of a new file works despite Debian's '/*' rule" g add -n lib/new.c
refuses "export refuses a new file that is not committed" "$st" export
says "  ... names it" "lib/new.c"
check_fails "status is not clean with a new file" "$st" status
rm "$K/lib/new.c"
check "the edited .gitignore is not an uncommitted change" test -z "$(g status --porcelain)"

# A git am of one's own stopped on a conflict: never touched, named.
restore_applied
sed 's/^-7$/-seventy/; s/^ 6$/ sixty/' "$t/proj/patches/two/0001-"*.patch >"$t/bad.patch"
g checkout -q two
g am -q "$t/bad.patch" >/dev/null 2>&1
check "(a git am of one's own is stopped)" test -d "$K/.git/rebase-apply"
for c in apply export rebase "apply --force"; do
	# shellcheck disable=SC2086
	refuses "an am in progress: $c refuses" "$st" $c
	says "  ... and names the way out" "git am is in progress" "git -C $K am --continue" "git -C $K am --abort"
done
check_fails "an am in progress: status fails" "$st" status
says "  ... and says so" "git am is in progress"
if out_has "checkout: clean"; then ko "  ... never 'clean'"; else ok "  ... never 'clean'"; fi
g am --abort

# A cherry-pick stopped on a conflict.
restore_applied
g checkout -q -b scratch one
sed -i 's/^7$/SEVEN/' "$K/lib/b.c"; g commit -qam scratch
g cherry-pick two >/dev/null 2>&1
check "(a cherry-pick is stopped)" test -e "$K/.git/CHERRY_PICK_HEAD"
refuses "a cherry-pick in progress: apply refuses" "$st" apply --force
says "  ... and names the way out" "cherry-pick --continue" "cherry-pick --abort"
check_fails "a cherry-pick in progress: status fails" "$st" status
g cherry-pick --abort; g checkout -q two; g branch -q -D scratch
check "back to the applied stack" test "$(snapshot)" = "$applied"

# apply interrupted: everything as before, nothing left, a rerun works. A
# git in front of the real one models Ctrl-C (or kill) during an am: right
# after the tool's Nth 'git am -q', the signal goes to the tool and to that
# git. patches/ holds a newer series of both branches, so that a half-made
# stack would show.
git_signaller " am -q " parent
# signal_at_am N SIGNAL CMD...: CMD with that git (and bash's "Killed"
# report in $t/out, not on the terminal).
signal_at_am() {
	rm -f "$t/git-count"
	# (env: a background job of a script starts with SIGINT ignored, which
	# bash can then not trap; the tool must see the signal as from a terminal)
	S61_TEST_SIGNAL_AT="$1 $2" PATH=$t/bin:$PATH env --default-signal=INT,QUIT bash -c '"$@"; exit $?' signal_at_am "${@:3}"
}
newer_series() {
	local f
	sed -i 's/^\(Subject: \[PATCH\] .*\)$/\1, as a word/' "$t/proj/patches/one/0002-"*.patch "$t/proj/patches/two/0001-"*.patch
	# (named as export names them: the applied stack is then exported, not
	# behind patches/)
	for f in "$t/proj/patches/one/0002-"*.patch "$t/proj/patches/two/0001-"*.patch; do
		mv "$f" "${f%.patch}-as-a-word.patch"
	done
}
restore_applied
newer_series
refuses "apply stopped by SIGINT in the middle of the first branch" signal_at_am 2 INT "$st" apply
says "  ... says the stack is unchanged" "the stack is unchanged"
no_leftovers "SIGINT"
g checkout -q one
refuses "apply stopped by SIGTERM in the last branch" signal_at_am 3 TERM "$st" apply
says "  ... says the stack is unchanged" "the stack is unchanged"
no_leftovers "SIGTERM"
check_fails "apply killed (-9) in the last branch" signal_at_am 3 KILL "$st" apply
check "  ... the branches are as before" test "$(g for-each-ref --format='%(refname) %(objectname)' refs/heads refs/stack/synced)" = "$(echo "$applied" | grep -E '^refs/(heads|stack/synced)/')"
check_fails "status after kill -9 fails" "$st" status
says "  ... and says an apply was interrupted" "interrupted 'tools/stack/stack.sh apply'"
refuses "export after kill -9 refuses" "$st" export
says "  ... and says to run apply" "run 'tools/stack/stack.sh apply'"
check "apply after kill -9 repairs and applies" "$st" apply
says "  ... says it repaired" "repairing"
no_leftovers "after the repair"
check "  ... the stack is the newer series" test "$(g log --format=%s base..two | grep -c ', as a word$')" = 2
check "  ... and status says all is exported" "$st" status
restore_applied
cp "$t/bad.patch" "$t/proj/patches/two/0001-"*.patch
g checkout -q one
check_fails "apply killed (-9) while its git am is stopped" signal_at_am 3 KILL "$st" apply --force
check "  ... (it left the am state)" test -d "$K/.git/rebase-apply"
check_fails "status says so" "$st" status
says "  ... and names apply" "interrupted 'tools/stack/stack.sh apply'"
git -C "$t/proj" checkout -q -- patches
check "apply repairs it: aborts its own am" "$st" apply --force
no_leftovers "after the repair of the am"
check "  ... the stack is the one of patches/" test "$(snapshot)" = "$applied"

# Unexported work must not be dropped.
restore_applied
g checkout -q two
sed -i 's/^9$/nine/' "$K/lib/b.c"; g commit -qam "lib: b: spell nine"
check_fails "apply refuses to drop an unexported commit" "$st" apply
if out_has "spell nine"; then ok "apply names the unexported commit"; else ko "apply names the unexported commit" "$(cat "$t/out")"; fi
check "the unexported commit is still there" bash -c "git -C '$K' log --format=%s two | grep -q 'spell nine'"
g commit -q --amend -m "lib: b: spell nine (amended)"
check_fails "apply refuses to drop an amended commit" "$st" apply
check "apply --force drops it" "$st" apply --force
check "after --force the branch is as patches/ says" bash -c "! git -C '$K' log --format=%s two | grep -q 'spell nine'"

# Dirty checkout.
echo dirty >>"$K/lib/a.c"
refuses "apply refuses a dirty checkout" "$st" apply --force
if out_has "uncommitted changes"; then ok "dirty: says why"; else ko "dirty: says why" "$(cat "$t/out")"; fi
g checkout -q -- lib/a.c

# A patch that does not apply.
restore_applied
cp -r "$t/proj/patches" "$t/patches.good"
sed -i 's/^-7$/-seventy/; s/^ 6$/ sixty/' "$t/proj/patches/two/0001-"*.patch
g checkout -q one
refuses "apply fails on a patch that does not apply" "$st" apply
if out_has "0001-lib-b-spell-seven.patch" && out_has "branch two"; then ok "apply names the patch and the branch"; else ko "apply names the patch and the branch" "$(cat "$t/out")"; fi
says "  ... its files, that the stack is unchanged, how to fix it" "(files: lib/b.c)" "the stack is unchanged" "am -3 " "am --continue"
no_leftovers "a patch that does not apply"
rm -rf "$t/proj/patches"; cp -r "$t/patches.good" "$t/proj/patches"
check "apply works again with good patches" "$st" apply

# patches/ moved on (a newer series pulled into the repository): the branch
# is behind, not unexported; status fails, export refuses to undo patches/
# (issue 41), apply brings the branch up to date.
sed -i 's/^Subject: \[PATCH\] lib: b: spell seven$/&, as a word/' "$t/proj/patches/two/0001-"*.patch
# seen failing with: status returning 0 for a branch behind patches/
check_fails "status: a branch behind patches/ is not the stack of patches/ (exit 1)" "$st" status
if out_has "^two .*behind patches/"; then ok "status says the branch is behind patches/"; else ko "status says the branch is behind patches/" "$(cat "$t/out")"; fi
# seen failing with: export without the export_would_undo check
refuses "export refuses to undo a newer series in patches/" "$st" export
says "  ... names the file and both ways out" "patches/two/0001-lib-b-spell-seven.patch" "tools/stack/stack.sh apply" "checkout -- patches/two/0001-lib-b-spell-seven.patch"
check "apply updates a branch that is behind" "$st" apply
check "  ... to the new commit" bash -c "git -C '$K' log -1 --format=%s two | grep -qx 'lib: b: spell seven, as a word'"
rm -rf "$t/proj/patches"; cp -r "$t/patches.good" "$t/proj/patches"
check "apply goes back to the good patches" "$st" apply

# A patch file edited by hand so that it no longer applies (what apply's
# advice on a failure asks for, half done): apply keeps the stack, and the
# edit must survive an export (issue 41).
sed -i 's/^-7$/-seventy/; s/^+seven$/+SEVEN/' "$t/proj/patches/two/0001-"*.patch
cp "$t/proj/patches/two/0001-"*.patch "$t/edited.patch"
refuses "a hand-edited patch that does not apply: apply fails" "$st" apply
# seen failing with: status returning 0 for a branch behind patches/
check_fails "  ... status fails" "$st" status
says "  ... and says the branch is behind patches/" "behind patches/"
refuses "  ... export refuses" "$st" export
says "  ... names the file and the ways out" "patches/two/0001-lib-b-spell-seven.patch" "tools/stack/stack.sh apply" "git -C $t/proj checkout -- patches/two/0001-lib-b-spell-seven.patch"
# seen failing with: export without the export_would_undo check
check "  ... the edit survives" cmp "$t/edited.patch" "$t/proj/patches/two/0001-"*.patch
# The same edit with a commit of one's own on the branch (NOT EXPORTED).
g checkout -q two
sed -i 's/^9$/nine/' "$K/lib/b.c"; g commit -qam "lib: b: spell nine"
check_fails "an edited patch and a new commit: status fails" "$st" status
# seen failing with: export_would_undo ignoring the branches that are not behind
refuses "  ... export refuses" "$st" export
says "  ... names the edited file" "patches/two/0001-lib-b-spell-seven.patch"
if out_has "0002-lib-b-spell-nine"; then ko "  ... not the new commit"; else ok "  ... not the new commit"; fi
g reset -q --hard HEAD~1
check "the way out: git checkout -- the file" git -C "$t/proj" checkout -- patches/two/0001-lib-b-spell-seven.patch
check "  ... status 0 again" "$st" status
check "  ... export works" "$st" export
check "  ... and changes nothing" test -z "$(git -C "$t/proj" status --porcelain)"
# A patch file deleted by hand: export would bring it back.
rm "$t/proj/patches/one/0002-"*.patch
check_fails "a patch file deleted by hand: status fails" "$st" status
refuses "  ... export refuses" "$st" export
says "  ... names it and how to get it back" "patches/one/0002-lib-a-spell-five.patch (the branch has it, patches/ not)" "checkout -- patches/one/0002-lib-a-spell-five.patch"
git -C "$t/proj" checkout -- patches/one
# A new commit alone (no edit of patches/): export writes it as before.
sed -i 's/^9$/nine/' "$K/lib/b.c"; g commit -qam "lib: b: spell nine"
check "a new commit alone: export writes it" "$st" export
check "  ... as patches/two/0002" test -f "$t/proj/patches/two/0002-lib-b-spell-nine.patch"
g reset -q --hard HEAD~1
rm -rf "$t/proj/patches"; cp -r "$t/patches.good" "$t/proj/patches"
check "(the good patches applied again)" "$st" apply --force

# The checkout commits as the series' storage identity, also one made
# before that identity changed (a checkout whose config still names the
# old placeholder gets the new one on the next apply).
ident=$(bash -c ". '$t/proj/tools/lib/lib.sh'; echo \"\$S61_IDENT_NAME <\$S61_IDENT_EMAIL>\"")
g config user.name "s61 backport team"; g config user.email s61-backport@example.org
check "apply with an old identity in the checkout's config" "$st" apply --force
check "  ... the checkout commits as the storage identity again (broken variant: identity set only at init)" \
	test "$(g config user.name) <$(g config user.email)>" = "$ident"

# Rebase after a lower branch changed.
g checkout -q one
sed -i 's/^1$/one/' "$K/lib/a.c"; g commit -qam "lib: a: spell one"
check_fails "status: upper branch not on its parent" "$st" status
check "rebase restacks the upper branch" "$st" rebase
check "two is on the new one" g merge-base --is-ancestor one two
check "export after rebase" "$st" export
check "three patches in one/" test "$(find "$t/proj/patches/one" -name "*.patch" | wc -l)" = 3

# A rebase that stops on a conflict: the way out is --continue/--abort.
g checkout -q one
sed -i 's/^7$/SEVEN/' "$K/lib/b.c"; g commit -qam "lib: b: shout seven"
check_fails "rebase stops on a conflict" "$st" rebase
says "  ... and says how to go on" "git -C $K rebase --continue" "then 'tools/stack/stack.sh rebase' again" "rebase --abort"
if out_has "stash"; then ko "  ... not 'commit or stash'"; else ok "  ... not 'commit or stash'"; fi
for c in rebase export apply; do
	refuses "a rebase in progress: $c refuses" "$st" $c
	says "  ... and names the way out" "a rebase is in progress" "git -C $K rebase --continue" "git -C $K rebase --abort"
done
check_fails "a rebase in progress: status fails" "$st" status
says "  ... and says so" "a rebase is in progress"
g rebase --abort
g checkout -q one; g reset -q --hard HEAD~1; g checkout -q two

# A base version that branch-stack.txt does not want.
sed -i 's/^base .*/base linux-source-6.1 9.9-9/' "$t/proj/branch-stack.txt"
check_fails "apply refuses a base of another version" "$st" apply
if out_has "9.9-9"; then ok "wrong base: names both versions"; else ko "wrong base: names both versions" "$(cat "$t/out")"; fi

# Per-clone checkouts share the imported base.
mkdir -p "$t/clone2"; cp -r "$t/proj/tools" "$t/clone2/"; cp "$t/patches.good/../proj/branch-stack.txt" "$t/clone2/" 2>/dev/null
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$t/clone2/branch-stack.txt"
S61_WORK=$t/clone2/.work check "a second clone gets its own checkout" "$t/clone2/tools/stack/stack.sh" init
check "it shares objects with the base import" test -s "$t/clone2/.work/linux/.git/objects/info/alternates"
check "the first clone's checkout is untouched" g rev-parse -q --verify two

echo "1..$((pass + fail))"
echo "stack-tests: $pass passed, $fail failed"
[ $fail = 0 ]
