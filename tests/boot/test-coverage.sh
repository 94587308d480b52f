#!/usr/bin/env bash
# Tests of tools/boot/coverage.sh's host side on synthetic runs: --summary prints the
# per-shrinker lines; --compare passes on equal name sets (boot and test
# names, order and CRs ignored) and fails, naming the difference, otherwise.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

run() { # DIR, then KTAP lines on stdin
	mkdir -p "$t/$1"
	cat >"$t/$1/result.ktap"
}
run a <<'EOT'
KTAP version 1
1..2
# COVBOOT rcu-kfree 1
# COVBOOT sb-tmpfs 3
# COVNAME sb-ext4:loop0
# COV name=sb-ext4:loop0 exists=yes count=3001 scan=3001->0 teardown=gone
ok 1 coverage.names
ok 2 coverage.ext4
EOT
printf '# COVNAME sb-ext4:loop0\r\n# COVBOOT sb-tmpfs 1\r\n# COVBOOT rcu-kfree 1\r\n' | run b
run c <<'EOT'
# COVBOOT rcu-kfree 1
# COVBOOT sb-tmpfs 3
# COVNAME ext4-es:loop0
EOT
export S61_WORK=$t/work
cov=$here/tools/boot/coverage.sh

check "--summary lists the shrinker results" "$cov" --summary "$t/a"
expect "--summary shows the checks" out_has 'sb-ext4:loop0 exists=yes count=3001 scan=3001->0'
check "--compare: same names (order, counts, CRs ignored)" "$cov" --compare "$t/a" "$t/b"
expect "--compare says how many" out_has 'same 3 shrinker names'
check_fails "--compare: a name differs" "$cov" --compare "$t/a" "$t/c"
expect "--compare names the missing name" out_has '< sb-ext4:loop0'
expect "--compare names the extra name" out_has '> ext4-es:loop0'
check_fails "--compare: a run without results" "$cov" --compare "$t/a" "$t/none"

# An empty name list is a failure, not a comparison that passes (issue #29).
# Broken on: the tool before issue #29, which said "same 0 shrinker names"
# and passed on the first two, and ran no check of a single branch's names.
printf 'KTAP version 1\n1..1\nok 1 coverage.names\n' | run empty1
printf 'KTAP version 1\n1..1\nok 1 coverage.names\n' | run empty2
check_fails "--compare: two runs without shrinker names" "$cov" --compare "$t/empty1" "$t/empty2"
expect "... named as such" out_has 'no shrinker names'
check_fails "--compare: two runs without results" "$cov" --compare "$t/none1" "$t/none2"
# A whole run with a stub guest-test that prints the run of $t/BRANCH.
project_copy "$t/proj"
cat >"$t/proj/tools/boot/guest-test.sh" <<EOF
#!/usr/bin/env bash
echo "run: $t/\${*: -1}"
EOF
chmod +x "$t/proj/tools/boot/guest-test.sh"
check "a coverage run with shrinker names passes" "$t/proj/tools/boot/coverage.sh" a
check_fails "a coverage run without shrinker names fails" "$t/proj/tools/boot/coverage.sh" empty1
check_fails "... also beside one with names" "$t/proj/tools/boot/coverage.sh" a empty1

echo "1..$((pass + fail))"
echo "coverage tool tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
