#!/usr/bin/env bash
# Tests of tools/stack on a tiny synthetic "linux-source" tarball and project:
# init, export/apply round trip, refusal to drop unexported commits, a patch
# that does not apply, rebase, dirty checkout and wrong base version.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

# A fake source package: a tarball with a top directory, like linux-source.
mkdir -p "$t/src/linux-source-6.1/lib"
printf 'all:\n' >"$t/src/linux-source-6.1/Makefile"
seq 1 20 >"$t/src/linux-source-6.1/lib/a.c"
seq 1 20 >"$t/src/linux-source-6.1/lib/b.c"
printf '*.o\nignored.c\n' >"$t/src/linux-source-6.1/.gitignore"
echo 'kept despite .gitignore' >"$t/src/linux-source-6.1/ignored.c"
tar -C "$t/src" -cJf "$t/src.tar.xz" linux-source-6.1

# A project with the tools and a two-branch stack.
mkdir -p "$t/proj"
cp -r "$here/tools" "$t/proj/"
printf ".work/\n" >"$t/proj/.gitignore"
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$t/proj/branch-stack.txt"
(cd "$t/proj" && git init -q && git add . && git -c user.name=t -c user.email=t@t commit -qm init)
export S61_CACHE=$t/cache S61_WORK=$t/proj/.work S61_SRC_TARBALL=$t/src.tar.xz S61_SRC_VERSION=1.0-1
st=$t/proj/tools/stack
K=$t/proj/.work/linux
g() { git -C "$K" "$@"; }

check "init imports the tarball" "$st" init
check "init again is a no-op" "$st" init
check "imported base keeps files a .gitignore in the tarball names" test -f "$K/ignored.c"
check "path prints the checkout" test "$("$st" path)" = "$K"
S61_SRC_VERSION=2.0-1 S61_CACHE=$t/cache2 check_fails "init refuses another package version" "$st" init
if out_has "wants 1.0-1"; then ok "init names the wanted version"; else ko "init names the wanted version" "$(cat "$t/out")"; fi

# Work on the branches in the checkout, as a developer would.
g config user.name dev; g config user.email dev@x
g checkout -q -b one base
sed -i 's/^3$/three/' "$K/lib/a.c"; g commit -qam "lib: a: spell three"
sed -i 's/^5$/five/' "$K/lib/a.c"; g commit -qam "lib: a: spell five"
g checkout -q -b two one
sed -i 's/^7$/seven/' "$K/lib/b.c"; g commit -qam "lib: b: spell seven"
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

# Unexported work must not be dropped.
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
check_fails "apply refuses a dirty checkout" "$st" apply
if out_has "uncommitted changes"; then ok "dirty: says why"; else ko "dirty: says why" "$(cat "$t/out")"; fi
g checkout -q -- lib/a.c

# A patch that does not apply.
cp -r "$t/proj/patches" "$t/patches.good"
sed -i 's/^-7$/-seventy/; s/^ 6$/ sixty/' "$t/proj/patches/two/0001-"*.patch
check_fails "apply fails on a patch that does not apply" "$st" apply
if out_has "0001-lib-b-spell-seven.patch" && out_has "branch two"; then ok "apply names the patch and the branch"; else ko "apply names the patch and the branch" "$(cat "$t/out")"; fi
check "checkout is left in git am state" test -d "$K/.git/rebase-apply"
check_fails "apply refuses while git am is in progress" "$st" apply
check "git am --abort works" g am --abort
rm -rf "$t/proj/patches"; cp -r "$t/patches.good" "$t/proj/patches"
check "apply works again with good patches" "$st" apply

# patches/ moved on (a newer series pulled into the repository): the branch
# is behind, not unexported, and apply brings it up to date.
sed -i 's/^Subject: \[PATCH\] lib: b: spell seven$/&, as a word/' "$t/proj/patches/two/0001-"*.patch
check "status: a branch behind patches/ is not unexported work (exit 0)" "$st" status
if out_has "^two .*behind patches/"; then ok "status says the branch is behind patches/"; else ko "status says the branch is behind patches/" "$(cat "$t/out")"; fi
check "apply updates a branch that is behind" "$st" apply
check "  ... to the new commit" bash -c "git -C '$K' log -1 --format=%s two | grep -qx 'lib: b: spell seven, as a word'"
rm -rf "$t/proj/patches"; cp -r "$t/patches.good" "$t/proj/patches"
check "apply goes back to the good patches" "$st" apply

# Rebase after a lower branch changed.
g checkout -q one
sed -i 's/^1$/one/' "$K/lib/a.c"; g commit -qam "lib: a: spell one"
check_fails "status: upper branch not on its parent" "$st" status
check "rebase restacks the upper branch" "$st" rebase
check "two is on the new one" g merge-base --is-ancestor one two
check "export after rebase" "$st" export
check "three patches in one/" test "$(find "$t/proj/patches/one" -name "*.patch" | wc -l)" = 3

# A base version that branch-stack.txt does not want.
sed -i 's/^base .*/base linux-source-6.1 9.9-9/' "$t/proj/branch-stack.txt"
check_fails "apply refuses a base of another version" "$st" apply
if out_has "9.9-9"; then ok "wrong base: names both versions"; else ko "wrong base: names both versions" "$(cat "$t/out")"; fi

# Per-clone checkouts share the imported base.
mkdir -p "$t/clone2"; cp -r "$t/proj/tools" "$t/clone2/"; cp "$t/patches.good/../proj/branch-stack.txt" "$t/clone2/" 2>/dev/null
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$t/clone2/branch-stack.txt"
S61_WORK=$t/clone2/.work check "a second clone gets its own checkout" "$t/clone2/tools/stack" init
check "it shares objects with the base import" test -s "$t/clone2/.work/linux/.git/objects/info/alternates"
check "the first clone's checkout is untouched" g rev-parse -q --verify two

echo "1..$((pass + fail))"
echo "stack-tests: $pass passed, $fail failed"
[ $fail = 0 ]
