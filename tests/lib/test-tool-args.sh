#!/usr/bin/env bash
# Tests of how the tools take their arguments (issue #25 §2): a name or a
# value that is wrong is refused, with a message that names it and the way
# out, before any side effect. tools/build/kbuild.sh checks the branch/commit, the
# config and -j before it takes the machine-wide build lock; tools/bench/bench.sh
# exits 2 on a bad option or value and never calls tools/build/deps.sh (or apt-get)
# for one; tools/boot/guest-test.sh names the branches for a name that is neither
# a branch nor a commit (--expect-target is for a commit off the stack);
# tools/lib/query.sh says why 'parent NAME' fails and puts its usage on
# stderr; tools/stack/b4-series.sh roundtrip without DIR takes the mails of the last
# 'send -o DIR'. A synthetic kernel checkout (branches one and two); make,
# ccache, apt-get and b4 are stubs in PATH, tools/build/deps.sh in the project copy
# is one, and so are tools/build/kbuild.sh and tools/build/kcache.sh in guest-test's copy:
# nothing is installed, built or booted.
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
mkdir -p "$P/rootfs-overlay/s61/tests"
cp -r "$here/rootfs-overlay/s61/tests/bench" "$P/rootfs-overlay/s61/tests/"
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$P/branch-stack.txt"
calls=$t/calls
: >"$calls"
# stub NAME EXIT: a command that logs its arguments to $calls (after its
# name without .sh) and exits EXIT.
stub() {
	local n=${1##*/}
	printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit %s\n' "${n%.sh}" "$calls" "$2" >"$1"
	chmod +x "$1"
}
mkdir -p "$t/bin"
stub "$t/bin/make" 1
stub "$t/bin/ccache" 0
stub "$t/bin/apt-get" 1
stub "$P/tools/build/deps.sh" 1
export PATH=$t/bin:$PATH
# No call of a stub since the last 'mark'.
mark() { : >"$calls"; }
no_calls() { [ ! -s "$calls" ]; }

export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
mkdir -p "$K"
ident_name=$(sed -n 's/^S61_IDENT_NAME="\(.*\)"$/\1/p' "$here/tools/lib/lib.sh")
ident_email=$(sed -n 's/^S61_IDENT_EMAIL="\(.*\)"$/\1/p' "$here/tools/lib/lib.sh")
g() { git -C "$K" "$@"; }
g init -q
g config user.name "$ident_name"
g config user.email "$ident_email"
fake_stack one:o1 two:t1:t2
lock=$S61_CACHE/kbuild.lock

# ---- tools/build/kbuild.sh: the name first, then the lock ------------------------
kb=$P/tools/build/kbuild.sh
mark
check_fails "kbuild: an unknown name fails" "$kb" nosuch
expect "... naming it, as neither a branch nor a commit" out_has "'nosuch' is neither a branch of branch-stack.txt nor a commit"
expect "... and the branches" out_has "branches: base one two"
expect "... before the build lock (no lock file)" test ! -e "$lock"
expect "... and before any build directory or log" test ! -e "$S61_WORK/build" -a ! -e "$S61_WORK/logs"
expect "... and nothing run" no_calls
check_fails "kbuild: an unknown config fails" "$kb" --config nosuch one
expect "... naming it" out_has "no config fragment qemu/configs/nosuch"
expect "... before the build lock" test ! -e "$lock"
check_fails "kbuild: a bad -j fails" "$kb" -j x one
expect "... naming it, before the build lock" bash -c "grep -q -- \"-j wants a positive number, not 'x'\" '$t/out' && test ! -e '$lock'"
printf 'three\n' >>"$P/branch-stack.txt"
check_fails "kbuild: a branch of branch-stack.txt missing in the checkout fails" "$kb" three
expect "... saying to run tools/stack/stack.sh apply" out_has "branch 'three' of branch-stack.txt is not in .*tools/stack/stack.sh apply"
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$P/branch-stack.txt"
# While another build holds the lock, a wrong name fails at once.
mkdir -p "$S61_CACHE"
exec 8>>"$lock"
flock -n 8
expect "kbuild: an unknown name fails at once while another build holds the lock" rc_is 1 timeout 20 "$kb" nosuch
expect "... without waiting for it" out_lacks "waiting for another kernel build"
# A good name goes on to the lock (and to make, a stub that fails here).
expect "kbuild: a good name waits for the lock" rc_is 124 timeout 3 "$kb" one
expect "... saying so" out_has "waiting for another kernel build"
exec 8>&-
check_fails "kbuild: a good name builds (the stub make fails)" "$kb" one
expect "... after taking the lock" grep -q "building one \[boot\]" "$lock.owner"
expect "... and running make" grep -q "^make " "$calls"

# ---- tools/bench/bench.sh: arguments before tools/build/deps.sh -----------------------------
bench=$P/tools/bench/bench.sh
bench_refuses() {
	local name=$1 want=$2
	shift 2
	mark
	expect "bench $name: exit 2" rc_is 2 "$bench" "$@"
	expect "... naming it" out_has "$want"
	expect "... tools/build/deps.sh and apt-get not called" no_calls
}
bench_refuses "an unknown option" "unknown argument '--bogus'" --bogus
bench_refuses "--rounds without a value" "--rounds needs a value" --rounds
bench_refuses "--rounds x" "--rounds wants a positive number, not 'x'" --rounds x
bench_refuses "--mem 3X" "--mem wants a size like 3G or 2048M, not '3X'" --mem 3X
bench_refuses "--mem G" "not 'G'" --mem G
bench_refuses "--smp 0" "--smp wants a positive number" --smp 0
bench_refuses "-a nosuch" "-a 'nosuch' is not a branch or commit" -a nosuch
expect "... naming the branches" out_has "branches: base one two"
bench_refuses "-b nosuch" "-b 'nosuch' is not a branch or commit" -b nosuch
bench_refuses "-a two (the top, B's default)" "kernel A and B are both 'two'" -a two
bench_refuses "--only nosuch" "--only: no bench test 'nosuch' (have: 10-p5-memory" --only p1-blocked,nosuch
bench_refuses "--out on a file" "--out $P/branch-stack.txt exists and is not a directory" --out "$P/branch-stack.txt"
bench_refuses "--report-only without a run" "--report-only: $t is not a tools/bench/bench.sh run directory" --report-only "$t"
# Good arguments do get to tools/build/deps.sh (a stub that says packages are missing).
mark
check_fails "bench with good arguments stops at the missing packages" \
	"$bench" --only 20-p1-blocked,p2-ramfs -a one --mem 2048 --rounds 1
expect "... after calling tools/build/deps.sh bench" grep -qx "deps bench" "$calls"

# ---- tools/boot/guest-test.sh: the branches for a name that is none -------------
# A copy whose tools/build/kbuild.sh and tools/build/kcache.sh are stubs (a miss, a failed
# build: exit 125), so that a good name shows where it would build.
G=$t/gt
project_copy "$G"
cp "$P/branch-stack.txt" "$G/"
stub "$G/tools/build/kbuild.sh" 1
stub "$G/tools/build/kcache.sh" 1
gt=$G/tools/boot/guest-test.sh
mark
check_fails "guest-test: an unknown name fails" "$gt" nosuch
expect "... naming it: not a branch of branch-stack.txt nor a commit" out_has "'nosuch' is neither a branch of branch-stack.txt nor a commit"
expect "... and the branches" out_has "branches: base one two"
expect "... not suggesting --expect-target" out_lacks "expect-target"
expect "... before the kernel cache or a build" no_calls
check_fails "guest-test: an unknown --expect-target fails" "$gt" --expect-target nosuch one
expect "... naming it and the branches" out_has "expect-target: 'nosuch' is not base, top or a branch of branch-stack.txt (branches: base one two)"
expect "... before the kernel cache or a build" no_calls
check_fails "guest-test: an unknown config fails" "$gt" --config nosuch one
expect "... naming it, before the kernel cache or a build" bash -c "grep -q 'no config fragment qemu/configs/nosuch' '$t/out' && test ! -s '$calls'"
# A commit on no branch of the stack (a scratch commit off it): this is
# what --expect-target is for, and the message says so.
g checkout -q --orphan scratch
g commit -qm scratch
scratch=$(g rev-parse HEAD)
g checkout -q -f two
check_fails "guest-test: a commit off the stack fails" "$gt" "$scratch"
expect "... suggesting --expect-target and the branches" out_has "pass --expect-target BRANCH to judge it as one of: base one two"
expect "... before the kernel cache or a build" no_calls
expect "guest-test: a commit off the stack with --expect-target goes on to the build" rc_is 125 "$gt" --expect-target one..two "$scratch"
expect "... (the stub kbuild was called)" grep -q "^kbuild --config boot $scratch" "$calls"
mark
expect "guest-test: a branch goes on to the build" rc_is 125 "$gt" one
expect "... (the stub kbuild was called)" grep -q "^kbuild --config boot one" "$calls"

# ---- tools/lib/query.sh ------------------------------------------------------
lq=$P/tools/lib/query.sh
expect "lib-query parent nosuch: exit 1" rc_is 1 "$lq" parent nosuch
expect "... saying why, with the branches" out_has "^lib-query: error: nosuch is not a branch of branch-stack.txt (branches: one two)$"
expect "lib-query parent base: exit 1" rc_is 1 "$lq" parent base
expect "... saying why" out_has "base is the bottom of the stack; it has no parent"
check "lib-query parent two, one, top, branches" \
	test "$("$lq" parent two) $("$lq" parent one) $("$lq" top) $("$lq" branches | paste -sd,)" = "one base two one,two"
expect "lib-query frob: exit 2" rc_is 2 "$lq" frob
expect "... naming it" out_has "unknown query 'frob'"
expect "... usage on stderr, nothing on stdout" bash -c "'$lq' frob 2>/dev/null | cmp -s - /dev/null && '$lq' frob 2>&1 >/dev/null | grep -q '^Usage: tools/lib/query.sh'"
expect "lib-query parent (no BRANCH): exit 2" rc_is 2 "$lq" parent
expect "lib-query without a query: exit 2" rc_is 2 "$lq"
expect "lib-query top extra: exit 2" rc_is 2 "$lq" top extra
expect "lib-query --help: exit 0, usage on stdout" bash -c "'$lq' --help 2>/dev/null | grep -q '^Usage: tools/lib/query.sh'"

# ---- tools/stack/b4-series.sh roundtrip without DIR --------------------------------
# A stub b4 whose 'send -o DIR' writes the mails with git format-patch
# (numbered as b4 numbers them) and reports a dry run; the series branch
# is set up as 'prep' leaves it (enrolled, a cover letter).
b4t=$P/tools/stack/b4-series.sh
WT=$S61_WORK/b4/linux
cat >"$t/bin/b4" <<'EOF'
#!/usr/bin/env bash
echo "b4 $*" >>"$S61_STUB_CALLS"
[ "$1 $2" = "send -o" ] || exit 1
git format-patch -q --cover-letter --subject-prefix="PATCH RFC 6.1" -o "$3" base..HEAD || exit 1
for f in "$3"/*.patch; do
	sed -E 's/^Subject: \[PATCH RFC 6\.1 ([0-9])\//Subject: [PATCH RFC 6.1 0\1\//' "$f" >"${f%.patch}.eml" && rm "$f"
done
echo "DRYRUN: Would have sent $(find "$3" -name '*.eml' | wc -l) messages"
EOF
chmod +x "$t/bin/b4"
export S61_STUB_CALLS=$calls
mkdir -p "$S61_WORK/b4"
g worktree add -q --detach "$WT" two
git -C "$WT" checkout -q -b b4/lockless-shrink-6.1
# The series branch as prep leaves it: the stack's commits authored and
# signed off by the sender, who is also the worktree's user.
export S61_SENDER="Tool Args Sender <tool.args@example.com>"
git -C "$WT" -c user.name="Tool Args Sender" -c user.email=tool.args@example.com \
	rebase -q --exec 'git commit -q --amend --no-edit --reset-author -s' base
g config user.name "Tool Args Sender"
g config user.email tool.args@example.com
g config branch.b4/lockless-shrink-6.1.b4-tracking '{"series": {"revision": 1, "change-id": "20260101-tool-args"}}'
g config branch.b4/lockless-shrink-6.1.description "$(printf 'mm: the selftest series\n\nBody.')"
check_fails "b4-series roundtrip without DIR before any send fails" "$b4t" roundtrip
expect "... saying that no 'send -o DIR' was recorded, and what to run" \
	out_has "no DIR given and no earlier 'send -o DIR' recorded; run: tools/stack/b4-series.sh roundtrip DIR"
check "b4-series send -o DIR (stub b4)" "$b4t" send -o "$t/mails"
expect "... 4 mails" out_has "^send: 4 mails"
expect "... and the recipients per patch mail" out_has "^send: recipients per patch mail: median .*, max .* (cap 25), 3 mails; cover letter: "
check "b4-series roundtrip without DIR" "$b4t" roundtrip
expect "... takes the mails of the last send -o" out_has "the mails of the last 'send', in $t/mails"
expect "... and checks them" out_has "^roundtrip: 4 mails, tree .* == top tree"
check "b4-series roundtrip DIR still takes DIR" "$b4t" roundtrip "$t/mails"
expect "... (and says nothing of the last send)" out_lacks "the mails of the last"
mv "$t/mails" "$t/moved"
check_fails "b4-series roundtrip without DIR after the mails were removed fails" "$b4t" roundtrip
expect "... saying where the last send wrote" out_has "the last 'send' wrote to $t/mails, which is gone"

# ---- tools/debian/deb.sh: names and values before the config and the lock ----
# Seen failing on: the branch check removed ("naming it and the branches"
# and "no apt-get was run" fail: git refuses later, after apt-get); the
# flavour check removed ("naming the two flavours"); the fetch error
# without the madison hint ("naming the package version").
dd=$P/tools/debian/deb.sh
mark
check_fails "debian-deb: an unknown branch fails" "$dd" nosuch
expect "... naming it and the branches, base included" out_has "'nosuch' is not a branch of branch-stack.txt (branches: one two base)"
expect "... before the build lock and without apt-get" bash -c "! grep -q apt-get '$calls'"
check_fails "debian-deb: an unknown flavour fails" "$dd" --flavour dbg one
expect "... naming the two flavours" out_has "--flavour is plain or debug, not 'dbg'"
check_fails "debian-deb: a bad -j fails" "$dd" -j 0 one
expect "... naming it" out_has "-j needs a positive number, not '0'"
check_fails "debian-deb: two branches fail" "$dd" one two
expect "... saying one at a time" out_has "one branch at a time ('one' and 'two')"
check_fails "debian-deb: an unknown option fails" "$dd" --falvour debug
expect "... pointing to --help" out_has "unknown option '--falvour' (tools/debian/deb.sh --help)"
# Seen failing on: each of the three --broken checks removed (the run went
# on to the config and apt-get).
mkdir -p "$P/tests/broken"
echo '# s61-broken: planted.' >"$P/tests/broken/v-one.diff"
check_fails "debian-deb: --broken of a diff that is not there fails" "$dd" --broken v-none one
expect "... naming it and the variants there" out_has "no tests/broken/v-none.diff (the variants: v-one )"
check_fails "debian-deb: --broken with the debug flavour fails" "$dd" --broken v-one --flavour debug one
expect "... saying plain only" out_has "--broken builds the plain flavour only"
check_fails "debian-deb: --broken of base fails" "$dd" --broken v-one.diff base
expect "... saying a branch of the stack" out_has "--broken applies to a branch of the stack, not to base"
printf 'three\n' >>"$P/branch-stack.txt"
check_fails "debian-deb: a branch missing in the checkout fails" "$dd" three
expect "... saying to run tools/stack/stack.sh apply" out_has "no branch 'three': run 'tools/stack/stack.sh apply'"
printf 'base linux-source-6.1 1.0-1\none\ntwo\n' >"$P/branch-stack.txt"
expect "... and no apt-get was run for any of these" bash -c "! grep -q apt-get '$calls'"
check_fails "debian-deb: Debian's config not fetchable fails" "$dd" one
expect "... naming the package version and the way to look" out_has "apt-get download linux-config-6.1=1.0-1 failed: .*apt-cache madison linux-config-6.1"
expect "... before taking the build lock" bash -c "! grep -q 'debian-' '$lock.owner' 2>/dev/null"
expect "... and without a config in the cache" test ! -e "$S61_CACHE/debian-config/1.0-1/config.amd64_none_amd64"

# ---- every command answers --help -----------------------------------------
# Each command of tools/*/ (what tools/s61 runs) prints its usage text on
# stdout and exits 0 for --help, before anything else (the repository's
# own tools, with the stubs on PATH and this test's cache and work dirs).
for f in "$here"/tools/*/*.sh "$here"/tools/*/*.py; do
	[ -x "$f" ] || continue
	rel=${f#"$here/"}
	rc=0
	"$f" --help >"$t/out" 2>"$t/err" </dev/null || rc=$?
	if [ "$rc" = 0 ] && [ -s "$t/out" ]; then
		ok "$rel --help: exit 0, its usage on stdout"
	else
		ko "$rel --help: exit 0, its usage on stdout" "exit $rc, $(wc -l <"$t/out") lines on stdout: $(head -2 "$t/err" | tr '\n' ' ')"
	fi
done
find "$here/tools" -name __pycache__ -prune -exec rm -rf {} +

# ---- every S61_* variable a command names is documented -------------------
# in its --help, or, for those every command shares, in the header of
# tools/lib/lib.sh (which tools/s61 help prints). Seen failing on: a
# variable of a command's own left out of its usage text.
sed -n '2,/^[^#]/p' "$here/tools/lib/lib.sh" >"$t/lib-header"
for f in "$here"/tools/*/*.sh "$here"/tools/*/*.py "$here/tools/s61"; do
	[ -x "$f" ] || continue
	rel=${f#"$here/"}
	"$f" --help >"$t/help" 2>/dev/null </dev/null
	missing=''
	while read -r v; do
		grep -qw -- "$v" "$t/help" || grep -qw -- "$v" "$t/lib-header" || missing="$missing $v"
	done < <(grep -oE 'S61_[A-Z0-9_]+' "$f" | sort -u)
	if [ -z "$missing" ]; then
		ok "$rel: every S61_* variable it names is in its --help or lib.sh's header"
	else
		ko "$rel: every S61_* variable it names is in its --help or lib.sh's header" "not documented:$missing"
	fi
done
find "$here/tools" -name __pycache__ -prune -exec rm -rf {} +

echo "1..$((pass + fail))"
echo "tool-args-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
