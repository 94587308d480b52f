#!/usr/bin/env bash
# Tests of tools/boot-test-branches' time limit (S61_DEADLINE, set by
# .ci/run): without it every tip runs; with it a tip between base and the
# top whose kernel is not in the kernel cache is skipped, named and counted
# as skipped, when its build would not leave time for the top and
# check-top; cached tips, base and the top always run; the build estimate
# follows the slowest uncached tip seen, and a tip that changes no header
# under include/ counts as an incremental build. tools/guest-test is a stub
# that logs its calls (nothing is built or booted); tools/kcache is the real
# one on a synthetic checkout.
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
P=$t/proj
project_copy "$P"
echo 'kernel image' >"$t/bzImage"
printf 'base linux-source-6.1 1.0-1\none\ntwo\nthree\n' >"$P/branch-stack.txt"
calls=$t/calls
# The stub passes its five smoke tests and says, as guest-test does, when the
# kernel came from the cache; SLOW_BASE=N makes base take N s.
cat >"$P/tools/guest-test" <<EOF
#!/usr/bin/env bash
b=\${*: -1}
echo "guest-test \$b" >>"$calls"
[ "\$b" != base ] || sleep "\${SLOW_BASE:-0}"
! "$P/tools/kcache" get boot "\$b" >/dev/null 2>&1 || echo "guest-test: \$b [boot]: kernel from the cache"
echo "5 passed, 0 failed, 0 skipped"
EOF
chmod +x "$P/tools/guest-test"

export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
mkdir -p "$K" "$S61_WORK/logs"
g() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
g init -q
mkdir -p "$K/include"
echo base >"$K/a.c"
echo base >"$K/include/x.h"
g add a.c include && g commit -qm base && g branch -q base
# one changes a header under include/ (a full build), two and three only a
# .c file (incremental); four, off the stack, a header again.
for b in one:include/x.h two:a.c three:a.c four:include/x.h; do
	g checkout -q -b "${b%%:*}"
	echo "$b" >>"$K/${b#*:}" && g commit -qam "$b"
done
bt=$P/tools/boot-test-branches
kc=$P/tools/kcache
ran() { grep -qx "guest-test $1" "$calls"; }
now() { date +%s; }

unset S61_DEADLINE S61_BUILD_EST S61_INC_EST S61_RESERVE
: >"$calls"
"$bt" >"$t/bt.out" 2>&1
rc=$?
check "without a deadline every tip runs" test $rc = 0
check "... all four tips" test "$(wc -l <"$calls")" = 4
check_fails "... nothing skipped" grep -q SKIP "$t/bt.out"

: >"$calls"
S61_DEADLINE=$(($(now) + 100)) "$bt" >"$t/bt.out" 2>&1
rc=$?
check "a near deadline on a cold cache passes" test $rc = 0
check "... base runs" ran base
check "... the top runs" ran three
check "... the tips between are not built" bash -c "! grep -q 'guest-test one\|guest-test two' '$calls'"
check "... a skip names the tip and the way out" grep -q "== one: SKIP:.*make boot-test" "$t/bt.out"
check "... the table says SKIP" grep -q "^one  *not built.*SKIP" "$t/bt.out"
check "... the skips are counted" grep -q "boot-test: 10 passed, 0 failed, 2 skipped" "$t/bt.out"

"$kc" put boot one "$t/bzImage" >/dev/null 2>&1
: >"$calls"
S61_DEADLINE=$(($(now) + 100)) "$bt" >"$t/out" 2>&1
check "a cached tip runs under a near deadline" ran one
check "... the uncached one next to it does not" bash -c "! grep -q 'guest-test two' '$calls'"

: >"$calls"
S61_DEADLINE=$(($(now) + 100000)) "$bt" >"$t/out" 2>&1
check "a far deadline runs every tip" test "$(wc -l <"$calls")" = 4

"$kc" clear >/dev/null 2>&1
# A tip that changes no header is estimated as an incremental build: with
# 40 s per full build and 1 s per incremental one, one (full) + the top
# (incremental after one) = 41 s fit into 50 s, and two after one takes 2 s.
: >"$calls"
S61_BUILD_EST=40 S61_INC_EST=1 S61_RESERVE=0 S61_DEADLINE=$(($(now) + 50)) "$bt" >"$t/bt.out" 2>&1
check "an incremental build is estimated as one" test "$(wc -l <"$calls")" = 4

# The estimate grows to the slowest uncached tip: base takes 4 s; with the
# estimate of 1 s, one and the top four (both full builds) need 2 s and fit
# into 10 s, with 4 s they need 8 s and do not.
: >"$calls"
SLOW_BASE=4 S61_BUILD_EST=1 S61_INC_EST=1 S61_RESERVE=0 S61_DEADLINE=$(($(now) + 10)) \
	"$bt" base one four >"$t/bt.out" 2>&1
check_fails "the estimate follows the slowest build" grep -qx "guest-test one" "$calls"
: >"$calls"
S61_BUILD_EST=1 S61_INC_EST=1 S61_RESERVE=0 S61_DEADLINE=$(($(now) + 10)) "$bt" base one four >"$t/bt.out" 2>&1
check "... and with quick builds the tip fits" ran one

check_fails "a bad S61_DEADLINE is refused" env S61_DEADLINE=soon "$bt"
if out_has "S61_DEADLINE wants seconds"; then ok "... and named"; else ko "... and named" "$(cat "$t/out")"; fi

echo "1..$((pass + fail))"
echo "boot-test-tests: $pass passed, $fail failed"
[ $fail = 0 ]
