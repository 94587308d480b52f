#!/usr/bin/env bash
# Tests of tools/boot/control-off.sh (a negative control run on a kernel without
# its option must fail for its missing splat and nothing else), with a
# stub guest-test (S61_GUEST_TEST) that writes a run directory as qemu/run
# does: console.log, judged, and the "run: DIR" line.
#
# Each check was seen to fail on a deliberately broken variant of the
# tool, named in a comment above it as "broken on: ...".
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
mkdir -p "$P/qemu"
cp "$here/qemu/run" "$here/qemu/splat-patterns" "$P/qemu/"
mkdir -p "$P/tools/lib" && cp "$here/tools/lib/lib.sh" "$P/tools/lib/"
export S61_WORK=$t/work
mkdir -p "$S61_WORK/build/boot"
re='BUG: KASAN: use-after-free in s61_kasan_uaf_write'

# The stub: STUB_RC is its exit; STUB_KTAP/STUB_SPLAT/STUB_PROBLEM/STUB_EXIT
# its judged record; STUB_CONSOLE extra console lines; STUB_MISSING=0 leaves
# out the EXPECTED SPLAT MISSING line; STUB_NORUN=1 prints no run line.
cat >"$t/stub" <<'EOF'
#!/usr/bin/env bash
out=$S61_WORK/runs/r$$
mkdir -p "$out"
{
	echo '[    0.100000] Linux version 6.1.192 (boot)'
	printf '%b' "${STUB_CONSOLE:-}"
	echo 's61-exit: 0'
} >"$out/console.log"
printf 'ktap %s\nsplat %s\nproblem %s\nexit %s\n' "${STUB_KTAP:-0}" "${STUB_SPLAT:-1}" "${STUB_PROBLEM:-}" "${STUB_EXIT:-0}" >"$out/judged"
echo "ok 1 controls.kasan-uaf"
prev=
for a in "$@"; do
	[ "$prev" != --expect-splat ] || [ "${STUB_MISSING:-1}" = 0 ] ||
		echo "EXPECTED SPLAT MISSING: no kernel line on the console ($out/console.log) matches /$a/: the negative control did not fire"
	prev=$a
done
[ "${STUB_NORUN:-0}" = 1 ] || echo "run: $out"
exit "${STUB_RC:-1}"
EOF
chmod +x "$t/stub"
export S61_GUEST_TEST=$t/stub
co=$P/tools/boot/control-off.sh
run() { "$co" --off CONFIG_KASAN -- --config boot --suites controls --only kasan-uaf --expect-splat "$re" BRANCH; }

# broken on: (none needed: the good case; each case below breaks one part).
check "a run that failed for its missing splat only passes" run
expect "... and says so" out_has 'control-off: PASS'
# broken on: control-off accepting any exit (the rc case without 0).
check_fails "a run that passed (the splat seen without the option) fails" env STUB_RC=0 STUB_SPLAT=0 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
expect "... naming the reason" out_has 'the run passed on \[boot\]'
# broken on: control-off taking exit 2 (hang) as the expected failure.
check_fails "a hung run (exit 2) fails" env STUB_RC=2 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
check_fails "a harness error (exit 3) fails" env STUB_RC=3 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
# broken on: control-off without the ktap check.
check_fails "a run whose guest results failed too fails" env STUB_KTAP=1 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
expect "... naming the results" out_has 'did not pass (ktap-summary exit 1)'
check_fails "a run with a problem (no result) fails" env STUB_PROBLEM=1 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
check_fails "a run whose guest init exited 1 fails" env STUB_EXIT=1 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
# broken on: control-off without the EXPECTED SPLAT MISSING check.
check_fails "a failed run without the missing-splat line fails" env STUB_MISSING=0 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
expect "... naming the RE" out_has "no 'EXPECTED SPLAT MISSING' for"
# broken on: control-off without the console rescan.
check_fails "a run whose console has another splat fails" env STUB_CONSOLE='[    5.000000] WARNING: CPU: 0 PID: 1 at mm/shrinker.c:1 x+0x1/0x2\n' "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
expect "... naming the console" out_has 'has a splat or dropped messages of its own'
check_fails "a run whose console dropped printk messages fails" env STUB_CONSOLE='[    5.000000] ** 3 printk messages dropped **\n' "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
# broken on: control-off without the banner check.
check_fails "a kernel that booted with KASAN's banner fails" env STUB_CONSOLE='[    0.138924] kasan: KernelAddressSanitizer initialized\n' "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
expect "... naming the option" out_has 'the kernel has CONFIG_KASAN'
echo 'CONFIG_KASAN=y' >"$S61_WORK/build/boot/.config"
# broken on: control-off without the .config check.
check_fails "a build directory whose .config sets the option fails" run
expect "... naming the line" out_has 'config has CONFIG_KASAN=y'
echo '# CONFIG_KASAN is not set' >"$S61_WORK/build/boot/.config"
check "a .config without it passes" run
check_fails "no run directory in the output fails" env STUB_NORUN=1 "$co" --off CONFIG_KASAN -- --config boot --expect-splat "$re" B
# Usage errors: exit 3 with the way out, nothing booted.
for a in "--off kasan -- --config boot --expect-splat x B" "-- --config boot --expect-splat x B" \
	"--off CONFIG_KASAN -- --config boot B" "--off CONFIG_KASAN -- --expect-splat x B" "--off CONFIG_KASAN" "--bogus"; do
	# shellcheck disable=SC2086  # the words of $a are the arguments
	"$co" $a >"$t/out" 2>&1
	rc=$?
	# broken on: control-off accepting --off without a CONFIG_ name.
	expect "usage error exits 3: $a" test "$rc" = 3
done

echo "1..$((pass + fail))"
echo "control-off-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
