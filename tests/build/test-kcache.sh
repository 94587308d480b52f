#!/usr/bin/env bash
# Tests of tools/build/kcache.sh and of tools/boot/guest-test.sh's use of it, on a synthetic
# kernel checkout: the key follows the tree and the build recipe (not the
# commit id), "." and S61_KCACHE=0 never hit, put replaces whole entries and
# keeps the newest; guest-test boots a cached kernel without calling
# tools/build/kbuild.sh, and builds and stores one it does not have; tools/bench/bench.sh
# takes its two kernels (and both test modules) from the same cache.
# tools/build/kbuild.sh, tools/build/testmod.sh, tools/build/deps.sh, qemu/mkinitramfs and qemu/run are
# stubs here that log their calls: nothing is compiled or booted.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

P=$t/proj
project_copy "$P"
mkdir -p "$P/fakebuild/arch/x86/boot" "$P/fakebuild/modinst/lib/modules"
echo 'kernel image' >"$P/fakebuild/arch/x86/boot/bzImage"
echo 'module' >"$P/fakebuild/s61_shrinker_test.ko"
echo 'module' >"$P/fakebuild/s61_shrinker_aux.ko"
printf 'base linux-source-6.1 1.0-1\none\n' >"$P/branch-stack.txt"
calls=$t/calls
cat >"$P/tools/build/kbuild.sh" <<EOF
#!/usr/bin/env bash
echo "kbuild \$*" >>"$calls"
echo "$P/fakebuild/arch/x86/boot/bzImage"
EOF
cat >"$P/tools/build/testmod.sh" <<EOF
#!/usr/bin/env bash
echo "testmod \$*" >>"$calls"
[ -z "\${FAIL_TESTMOD:-}" ] || { echo "testmod: error: no headers" >&2; exit 1; }
name=s61_shrinker_test
[ "\${3:-}" != --name ] || name=\$4
echo "$P/fakebuild/\$name.ko"
EOF
cat >"$P/tools/build/deps.sh" <<EOF
#!/usr/bin/env bash
echo "deps \$*" >>"$calls"
EOF
cat >"$P/qemu/mkinitramfs" <<EOF
#!/usr/bin/env bash
echo "mkinitramfs \$*" >>"$calls"
echo "$t/initrd.img"
EOF
cat >"$P/qemu/run" <<EOF
#!/usr/bin/env bash
echo "run \$*" >>"$calls"
EOF
chmod +x "$P/tools/build/kbuild.sh" "$P/tools/build/testmod.sh" "$P/tools/build/deps.sh" "$P/qemu/mkinitramfs" "$P/qemu/run"

export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
mkdir -p "$K" "$S61_WORK/logs"
g() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
g init -q
seq 1 10 >"$K/a.c"
g add a.c && g commit -qm base && g branch -q base
g checkout -q -b one
echo change >>"$K/a.c" && g commit -qam "one: change"
# The same tree under another commit id (a rebase that changed nothing).
g checkout -q -b same base
echo change >>"$K/a.c" && g commit -qam "same tree, other message"
g checkout -q one
kc=$P/tools/build/kcache.sh
gt=$P/tools/boot/guest-test.sh

key_one=$("$kc" key boot one)
check "key is stable" test "$("$kc" key boot one)" = "$key_one"
check "key names the config" test "${key_one%%-*}" = boot
check "another commit with the same tree has the same key" test "$("$kc" key boot same)" = "$key_one"
check "another tree has another key" test "$("$kc" key boot base)" != "$key_one"
check "another config has another key" test "$("$kc" key debug one)" != "$key_one"
check_fails "'.' has no key" "$kc" key boot .
check_fails "an unknown commit has no key" "$kc" key boot nosuchbranch
if out_has "neither a branch nor a commit"; then ok "an unknown commit is named"; else ko "an unknown commit is named" "$(cat "$t/out")"; fi
check_fails "get misses on an empty cache" "$kc" get boot one

check "put stores" "$kc" put boot one "$P/fakebuild/arch/x86/boot/bzImage" \
	--modules "$P/fakebuild/modinst" --testmod "$P/fakebuild/s61_shrinker_test.ko"
e=$("$kc" get boot one)
check "get hits after put" test -n "$e"
check "the entry has the image, modules, test module and info" \
	test -f "$e/bzImage" -a -d "$e/modinst" -a -f "$e/s61_shrinker_test.ko" -a -f "$e/info" -a -f "$e/complete"
check "the same tree hits under another commit id" test "$("$kc" get boot same)" = "$e"
check_fails "another tree misses" "$kc" get boot base
S61_KCACHE=0 check_fails "S61_KCACHE=0 misses" "$kc" get boot one
check "put of '.' stores nothing and succeeds" "$kc" put boot . "$P/fakebuild/arch/x86/boot/bzImage"
check_fails "put of a missing image fails" "$kc" put boot base "$t/no-such-bzImage"
if out_has "no kernel image"; then ok "the missing image is named"; else ko "the missing image is named" "$(cat "$t/out")"; fi
check_fails "a failed put leaves no entry" "$kc" get boot base
echo 'CONFIG_EXTRA=y' >>"$P/qemu/configs/boot"
check_fails "a changed config fragment misses" "$kc" get boot one
git -C "$here" show HEAD:qemu/configs/boot >"$P/qemu/configs/boot" 2>/dev/null || cp "$here/qemu/configs/boot" "$P/qemu/configs/boot"
check "the restored fragment hits again" "$kc" get boot one
echo '/* more */' >>"$P/testmod/s61_shrinker_test.c"
check_fails "a changed test module misses" "$kc" get boot one
cp "$here/testmod/s61_shrinker_test.c" "$P/testmod/"

# guest-test: a hit boots the cached kernel and never builds.
: >"$calls"
check "guest-test on a cached kernel runs" "$gt" one
if out_has "kernel from the cache"; then ok "guest-test says the kernel came from the cache"; else ko "guest-test says the kernel came from the cache" "$(cat "$t/out")"; fi
check "guest-test on a hit did not call kbuild" bash -c "! grep -q '^kbuild' '$calls'"
check "guest-test booted the cached image" grep -q -- "--kernel $e/bzImage" "$calls"
check "guest-test put the cached test module in the initramfs" grep -q -- "--add $e/s61_shrinker_test.ko:/s61/modules/s61_shrinker_test.ko" "$calls"
check "guest-test used the cached modules" grep -q -- "--modules $e/modinst" "$calls"
check "the label names the branch, not the checkout" grep -q -- "--label one \[boot\]" "$calls"

# A miss builds, and stores what it built.
: >"$calls"
check "guest-test on base builds" "$gt" base
check "guest-test on a miss called kbuild" grep -q '^kbuild --config boot base' "$calls"
check "the miss was stored" "$kc" get boot base
: >"$calls"
check "guest-test on base again" "$gt" base
check "the second run of base did not build" bash -c "! grep -q '^kbuild' '$calls'"
: >"$calls"
S61_KCACHE=0 check "guest-test with S61_KCACHE=0" "$gt" base
check "S61_KCACHE=0 builds" grep -q '^kbuild' "$calls"

# A test module that did not build is remembered as such.
: >"$calls"
FAIL_TESTMOD=1 check_fails "guest-test with a failing test module fails" "$gt" --config debug one
if out_has "test module did not build"; then ok "the failing test module is reported"; else ko "the failing test module is reported" "$(cat "$t/out")"; fi
ed=$("$kc" get debug one)
check "the entry records the failed test module" test -s "$ed/testmod-failed.log" -a ! -f "$ed/s61_shrinker_test.ko"
check_fails "guest-test on that entry fails again" "$gt" --config debug one
if out_has "test module did not build"; then ok "the cached failure is reported"; else ko "the cached failure is reported" "$(cat "$t/out")"; fi

# "." is never cached: a build every time.
: >"$calls"
check "guest-test on '.' runs" "$gt" .
check "guest-test on '.' built" grep -q '^kbuild --config boot \.' "$calls"
check "the label of '.' says edits" grep -q -- "--label one+edits \[boot\]" "$calls"

# put stores every --testmod it is given (tools/bench/bench.sh stores two).
check "put with two test modules" "$kc" put bench base "$P/fakebuild/arch/x86/boot/bzImage" \
	--testmod "$P/fakebuild/s61_shrinker_test.ko" --testmod "$P/fakebuild/s61_shrinker_aux.ko"
eb=$("$kc" get bench base)
check "the entry has both test modules" test -f "$eb/s61_shrinker_test.ko" -a -f "$eb/s61_shrinker_aux.ko"
"$kc" clear >/dev/null 2>&1

# tools/bench/bench.sh: a miss builds both kernels with both modules and stores them;
# the next run boots them from the cache without building. The stub qemu/run
# reports nothing, so the runs themselves fail: only the calls count here.
: >"$calls"
"$P/tools/bench/bench.sh" --rounds 1 --p2-pairs 0 --no-docs --out "$t/bench1" >"$t/out" 2>&1
check "bench on a cold cache built base and one" \
	test "$(grep -c '^kbuild --config bench' "$calls")" = 2
check "bench built the second test module under its own name" grep -q -- '--name s61_shrinker_aux' "$calls"
eb=$("$kc" get bench base)
ep=$("$kc" get bench one)
check "bench stored both kernels with both modules" \
	test -f "$eb/s61_shrinker_aux.ko" -a -f "$ep/s61_shrinker_aux.ko" -a -f "$ep/s61_shrinker_test.ko"
check "bench booted the cached image" grep -q -- "--kernel $ep/bzImage" "$calls"
check "bench put both modules into the initramfs" \
	grep -q -- "--add $ep/s61_shrinker_aux.ko:/s61/modules/s61_shrinker_aux.ko" "$calls"
: >"$calls"
"$P/tools/bench/bench.sh" --rounds 1 --p2-pairs 0 --no-docs --out "$t/bench2" >"$t/out" 2>&1
if out_has "from the kernel cache"; then ok "bench says its kernels came from the cache"; else ko "bench says its kernels came from the cache" "$(cat "$t/out")"; fi
check "a second bench run built nothing" bash -c "! grep -q '^kbuild\|^testmod' '$calls'"
: >"$calls"
S61_KCACHE=0 "$P/tools/bench/bench.sh" --rounds 1 --p2-pairs 0 --no-docs --out "$t/bench3" >"$t/out" 2>&1
check "bench with S61_KCACHE=0 builds" test "$(grep -c '^kbuild --config bench' "$calls")" = 2
check "without the cache, bench boots a copy kept with the run" grep -q -- "--kernel $t/bench3/kernels/one/bzImage" "$calls"
"$kc" clear >/dev/null 2>&1
"$gt" one >/dev/null 2>&1
"$gt" base >/dev/null 2>&1
"$gt" --config debug one >/dev/null 2>&1

# Pruning keeps the newest entries.
n=$(find "$S61_CACHE/kernels" -mindepth 1 -maxdepth 1 -type d | wc -l)
check "three entries before pruning" test "$n" = 3
touch "$e"
check "prune --keep 1" "$kc" prune --keep 1
check "prune kept one entry" test "$(find "$S61_CACHE/kernels" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 1
check "prune kept the newest" test -d "$e"
check_fails "prune refuses a bad number" "$kc" prune --keep x
check "list shows the entry" bash -c "'$kc' list | grep -q ' one '"
check "clear empties the cache" bash -c "'$kc' clear && ! test -d '$S61_CACHE/kernels'"

echo "1..$((pass + fail))"
echo "kcache-tests: $pass passed, $fail failed"
[ $fail = 0 ]
