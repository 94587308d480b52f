#!/usr/bin/env bash
# tests-deps: lava
# Tests of the LAVA and KCIDB tools (issue #17): tools/lab/lava-jobs.sh writes jobs
# that lava-common's schema accepts and that boot what tools/boot/guest-test.sh
# boots; bad input fails with a clear message and writes nothing; the
# validator is seen to reject broken jobs; the guest's LAVA lines match the
# job's monitor; tools/lab/kcidb.py turns recorded guest results and LAVA results
# (tests/fixtures/lava) into KCIDB v4 that validates, and a broken document
# is rejected; tools/lab/kcidb.py compare. Nothing boots: the kernel checkout is a
# synthetic one (.work/linux is never used) and lava-run is not called.
# Needs Debian's lava-common, python3-yaml, python3-jsonschema for
# /usr/bin/python3 (make tools-tests installs them first: tools/build/deps.sh lava, by the
# tests-deps line above).
set -u
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
new_project
cp -r "$here/rootfs-overlay" "$P/"
cp "$here/qemu/run" "$here/qemu/ktap-summary" "$here/qemu/expected" "$here/qemu/splat-patterns" "$P/qemu/"
mkdir -p "$P/lava" && cp "$here/lava/kcidb-schema-v04.json" "$P/lava/"
printf '%s\n' '# test stack' 'base linux-source-6.1 1.0-1' prep 'api core' 'lockless core' tests >"$P/branch-stack.txt"
export S61_CACHE=$t/cache S61_WORK=$P/.work
K=$S61_WORK/linux
py=/usr/bin/python3
lj=$P/tools/lab/lava-jobs.sh
kc=$P/tools/lab/kcidb.py
F=$here/tests/fixtures
ART=https://lava-artifacts.example.org/s61

mkdir -p "$K"
g() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
g init -q
fake_stack prep:p1:p2 api:a1 lockless:l1:l2:l3 tests:t1
meta() { awk -v k="  s61.$2:" 'index($0, k) == 1 { sub(/^[^:]*: */, ""); print }' "$1"; }

# --- jobs for every tip -------------------------------------------------------
"$lj" -o "$t/jobs" --artifacts "$ART/" >"$t/out" 2>&1
rc=$?
check "tools/lab/lava-jobs.sh for every tip exits 0" test $rc = 0
check "... one job per branch and config (4 branches x boot, debug)" \
	test "$(find "$t/jobs" -name '*.yaml' | wc -l)" = 8
check "... each named BRANCH-CONFIG.yaml" test -f "$t/jobs/lockless-boot.yaml" -a -f "$t/jobs/prep-debug.yaml"
check "every job passes lava_common.schemas.validate (tools/lab/lava-jobs.sh --validate)" "$lj" --validate "$t"/jobs/*.yaml
check "... the schema is lava-common's own (Debian's package)" \
	"$py" -c 'import lava_common.schemas, sys; sys.exit(0 if lava_common.schemas.__file__.startswith("/usr/lib/python3/dist-packages/") else 1)'
J=$t/jobs/lockless-boot.yaml
check "a job names its commit: the branch tip" test "$(meta "$J" commit)" = "$(g rev-parse lockless)"
key=$("$P/tools/build/kcache.sh" key boot lockless)
check "... fetches the kernel at ARTIFACTS/kernels/<tools/build/kcache.sh key>/bzImage" \
	grep -qF "url: $ART/kernels/$key/bzImage" "$J"
check "... and the initramfs next to it" grep -qF "url: $ART/kernels/$key/initramfs.cpio" "$J"
check "... records the cache key in its metadata" test "$(meta "$J" kcache_key)" = "$key"
# The command line qemu/run builds (its two cmdline= lines), for the
# config's suites, is the start of the job's -append.
# shellcheck disable=SC2034,SC2154  # suites is read and cmdline set by the eval'd lines
qcmd() { (suites=$1; eval "$(grep -E '^cmdline="' "$here/qemu/run" | head -2)"; echo "$cmdline"); }
check "... boots with qemu/run's command line for smoke,lockless (boot) plus s61.lava=1" \
	grep -qF -- "-append \"$(qcmd smoke,lockless) s61.lava=1\"" "$J"
check "... the debug job with check-top's suites and options" \
	grep -qF -- "-append \"$(qcmd smoke,kunit,lockless,races) s61.race_secs=60 s61.test_timeout=900 s61.lava=1\"" \
	"$t/jobs/lockless-debug.yaml"
check "... on device type qemu, TCG, no KVM" \
	"$py" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); c = d["context"]
sys.exit(0 if d["device_type"] == "qemu" and c["no_kvm"] is True and "-accel tcg" in c["extra_options"] else 1)' "$J"
check "... its timeouts stated in a comment, from the measured runs" grep -q '^# Timeouts, from our measured runs' "$J"
check "... a test monitor, no test shell" \
	"$py" -c 'import sys, yaml; a = yaml.safe_load(open(sys.argv[1]))["actions"]
sys.exit(0 if "monitors" in a[2]["test"] and "definitions" not in a[2]["test"] else 1)' "$J"

# --- per commit ---------------------------------------------------------------
"$lj" lockless --per-commit --config debug -o "$t/pc" --artifacts file:///srv/s61 >"$t/out" 2>&1
check "--per-commit: one job per commit of api..lockless" test "$(find "$t/pc" -name '*.yaml' | wc -l)" = 3
c1=$(g rev-parse lockless~2) c3=$(g rev-parse lockless)
check "... named BRANCH-COMMIT12-CONFIG.yaml" test -f "$t/pc/lockless-${c1:0:12}-debug.yaml"
check "... a commit short of the tip judged as PARENT..BRANCH (as tools/boot/guest-test.sh)" \
	test "$(meta "$t/pc/lockless-${c1:0:12}-debug.yaml" judged_as)" = api..lockless
check "... the tip as the branch" test "$(meta "$t/pc/lockless-${c3:0:12}-debug.yaml" judged_as)" = lockless
check "... file:// artifacts" grep -qF "url: file:///srv/s61/kernels/$("$P/tools/build/kcache.sh" key debug "$c1")/bzImage" \
	"$t/pc/lockless-${c1:0:12}-debug.yaml"
check "... all valid" "$lj" --validate "$t"/pc/*.yaml

# --- bad input: exit 1, a message naming the problem, nothing written ---------
# bad NAME PATTERN ARGS...: the run fails with exit 1, says PATTERN, and
# leaves no output directory.
bad() {
	local name=$1 pat=$2 rc
	shift 2
	rm -rf "$t/none"
	"$lj" "$@" >"$t/out" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q -- "$pat" "$t/out" && [ ! -e "$t/none" ]; then
		ok "$name"
	else
		ko "$name" "exit $rc, $(head -2 "$t/out" | tr '\n' ' '), output dir $([ -e "$t/none" ] && echo exists || echo absent)"
	fi
}
bad "unknown branch: error naming the valid branches" "unknown branch 'nosuch'; branch-stack.txt has: base prep api lockless tests" \
	nosuch -o "$t/none" --artifacts "$ART"
bad "missing --artifacts" "--artifacts URL is missing" lockless -o "$t/none"
bad "bad URL (ftp://)" "not an http://, https:// or file:/// URL" -o "$t/none" --artifacts ftp://host/x
bad "bad URL (a plain path)" "not an http://, https:// or file:/// URL" -o "$t/none" --artifacts /srv/s61
bad "bad URL (file:// with a relative path)" "not an http://, https:// or file:/// URL" -o "$t/none" --artifacts file://srv/s61
bad "a config we do not ship" "'nosuch' is not a config of qemu/configs/ (we ship: bench boot" \
	-o "$t/none" --artifacts "$ART" --config nosuch
bad "a shipped config lava-jobs has no suites for" "has no suites and timeouts for it; choose from: boot debug" \
	-o "$t/none" --artifacts "$ART" --config boot,kunit
bad "-o missing" "-o DIR is missing" --artifacts "$ART"
bad "--per-commit of base" "base has no commits of the series" base --per-commit -o "$t/none" --artifacts "$ART"
bad "an unknown option" "unknown option --bogus" --bogus -o "$t/none" --artifacts "$ART"

# --- the validator rejects broken jobs -----------------------------------------
# brk NAME PYTHON: a copy of the lockless boot job changed by PYTHON (on d).
brk() { mutate yaml "$J" "$t/$1.yaml" "$2"; }
brk no-timeouts 'del d["timeouts"]'
brk unknown-action 'd["actions"].append({"flash": {"to": "sd"}})'
brk bad-fixup 'd["actions"][2]["test"]["monitors"][0]["fixupdict"]["XFAIL"] = "xfail"'
brk long-test 'd["timeouts"]["actions"]["lava-test-monitor"] = {"minutes": 600}'
brk no-device 'del d["device_type"]'
for b in no-timeouts unknown-action bad-fixup long-test no-device; do
	"$lj" --validate "$t/$b.yaml" >"$t/out" 2>&1
	rc=$?
	expect "a broken job ($b) is rejected by the validator (exit 1)" \
		bash -c "[ $rc = 1 ] && grep -q 'rejected by lava_common.schemas.validate' '$t/out'"
done
check "... its reason named (the missing timeouts)" \
	bash -c "'$lj' --validate '$t/no-timeouts.yaml' 2>&1 | grep -q \"required key not provided @ data\\['timeouts'\\]\""

# --- the guest's LAVA lines and the job's monitor ------------------------------
# Each result line of the recorded guest results, through the guest's
# ktap_lava_line, must match the monitor's pattern, name the test and map
# (fixupdict) to LAVA's result for the KTAP state.
"$py" - "$J" "$here/rootfs-overlay/s61/ktap.sh" "$F"/judge/result-*.ktap >"$t/mon" 2>&1 <<'PYEOF'
import re, subprocess, sys, yaml
job, ktap_sh, files = sys.argv[1], sys.argv[2], sys.argv[3:]
mon = yaml.safe_load(open(job))["actions"][2]["test"]["monitors"][0]
pat, fix = re.compile(mon["pattern"]), mon["fixupdict"]
want = {"PASS": "pass", "FAIL": "fail", "SKIP": "skip", "XFAIL": "fail"}
res = re.compile(r"^(not ok|ok) \d+ (\S+)(?: # (SKIP|XFAIL|TODO)\b)?")
n = bad = 0
for f in files:
    for line in open(f, errors="replace"):
        m = res.match(line.rstrip("\n"))
        if not m:
            continue
        state = "FAIL" if m.group(1) == "not ok" else {"SKIP": "SKIP", "XFAIL": "XFAIL", "TODO": "XFAIL"}.get(m.group(3), "PASS")
        out = subprocess.run(["bash", "-c", '. "$1"; ktap_lava_line "$2"', "-", ktap_sh, line.rstrip("\n")],
                             capture_output=True, text=True).stdout
        mm = pat.search(out)
        n += 1
        if not mm or mm.group("test_case_id") != m.group(2) or fix.get(mm.group("result")) != want[state]:
            bad += 1
            print(f"{f}: {line.strip()!r} -> {out.strip()!r}")
print(f"{n} lines, {bad} bad")
sys.exit(1 if bad or n < 20 else 0)
PYEOF
rc=$?
expect "every recorded KTAP result, as the guest prints it for LAVA, matches the monitor with its result" \
	bash -c "[ $rc = 0 ] || { cat '$t/mon'; false; }"
check "... the monitor starts at the guest's start line and ends at s61-exit" \
	bash -c "grep -q 'echo \"s61-lava-start: ' '$here/rootfs-overlay/s61/init' && grep -q \"end: 's61-exit: \\[0-9\\]+'\" '$J'"
# Without s61.lava=1 the guest prints nothing more: every line of the init
# that prints a LAVA line is behind the switch.
check "... the guest's LAVA lines only with s61.lava=1" \
	bash -c "grep -n 's61-lava-start\|ktap_lava_line' '$here/rootfs-overlay/s61/init' | grep -v '^[0-9]*:#' | grep -v '\[ \"\$lava\" != 1 \] ||' | { ! grep .; }"
check "... and not on the result port (echo, not out)" \
	bash -c "! grep -n 'out .*s61-lava\|out \"\$(ktap_lava' '$here/rootfs-overlay/s61/init'"

# --- KCIDB from our own results ------------------------------------------------
C40=$(printf '%040d' 7 | tr 0 a)
"$kc" run "$F/judge/result-base-lockless.ktap" --branch base --commit "$C40" --config boot \
	--suites lockless --kcache-key boot-0123456789abcdef01234567 -o "$t/k-base.json" >"$t/out" 2>&1
check "tools/lab/kcidb.py run on a recorded result writes KCIDB" test -s "$t/k-base.json"
check "... that validates against the schema" "$kc" validate "$t/k-base.json"
jq_py() { "$py" -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
check "... version 4, origin s61, ids in the origin:... form" \
	jq_py "$t/k-base.json" 'd["version"]["major"] == 4 and all(o["id"].startswith("s61:") and o["origin"] == "s61" for k in ("checkouts", "builds", "tests") for o in d[k])'
check "... checkout = the commit, build = the kernel cache key" \
	jq_py "$t/k-base.json" 'd["checkouts"][0]["git_commit_hash"] == "'"$C40"'" and d["builds"][0]["id"] == "s61:boot-0123456789abcdef01234567" and d["builds"][0]["checkout_id"] == d["checkouts"][0]["id"]'
check "... one test per result plus the run (path s61)" \
	jq_py "$t/k-base.json" '[x["path"] for x in d["tests"]] == ["s61", "s61.lockless.blocked-shrinker-mount", "s61.lockless.nokmem-umount", "s61.lockless.many-memcg-shrinkers"]'
check "... the XFAIL expected on base is FAIL, waived; the SKIP is SKIP" \
	jq_py "$t/k-base.json" 'd["tests"][1]["status"] == "FAIL" and d["tests"][1]["waived"] is True and d["tests"][2]["status"] == "SKIP" and d["tests"][3]["status"] == "PASS" and d["tests"][3]["duration"] == 95'
"$kc" run "$F/judge/result-base-lockless.ktap" --branch tests --commit "$C40" --config boot \
	--suites lockless --kcache-key boot-x -o "$t/k-top.json" >"$t/out" 2>&1
check "... the same XFAIL on the top of the stack is not waived, and the run FAILs" \
	jq_py "$t/k-top.json" '"waived" not in d["tests"][1] and d["tests"][0]["status"] == "FAIL"'
"$kc" run "$F/bench-quick/runs/r1-tests" --branch tests --commit "$C40" --config bench \
	--suites bench --kcache-key bench-x -o "$t/k-dir.json" >"$t/out" 2>&1
check "... a run directory (make check/boot-test leave them in .work/runs/): its verdict and seconds" \
	jq_py "$t/k-dir.json" 'd["tests"][0]["status"] == "PASS" and d["tests"][0]["duration"] == float(open("'"$F"'/bench-quick/runs/r1-tests/seconds").read()) and len(d["tests"]) == 7'
"$kc" run "$F/judge/result-base-lockless.ktap" --branch base --commit abc --config boot -o "$t/k-bad.json" >"$t/o2" 2>&1
check "... a short commit id is refused" bash -c "[ $? = 1 ] && grep -q 'full 40-digit commit id' '$t/o2' && [ ! -e '$t/k-bad.json' ]"

# A broken KCIDB document is rejected by the schema.
kbreak() { mutate json "$t/k-base.json" "$t/kb-$1.json" "$2"; }
kbreak no-version 'del d["version"]'
kbreak plain-id 'd["tests"][1]["id"] = "blocked-shrinker-mount"'
kbreak xfail-status 'd["tests"][1]["status"] = "XFAIL"'
kbreak extra-field 'd["builds"][0]["kernel"] = "bzImage"'
kbreak major-5 'd["version"]["major"] = 5'
for b in no-version plain-id xfail-status extra-field major-5; do
	"$kc" validate "$t/kb-$b.json" >"$t/out" 2>&1
	expect "a broken KCIDB document ($b) is rejected" bash -c "[ $? = 1 ] && grep -q 'is not valid KCIDB v4' '$t/out'"
done
check "the schema says it is a subset and where it comes from" \
	grep -q 'SUBSET of the KCIDB I/O schema v4.*https://github.com/kernelci/kcidb-io' "$here/lava/kcidb-schema-v04.json"

# --- KCIDB from LAVA results ---------------------------------------------------
"$lj" lockless base --config boot -o "$t/lj2" --artifacts "$ART" >"$t/out" 2>&1
"$kc" lava "$F/lava/results-lockless-boot.yaml" --job "$t/lj2/lockless-boot.yaml" --job-id 42 -o "$t/kl.json" >"$t/out" 2>&1
check "tools/lab/kcidb.py lava on lavacli's results (server export) writes valid KCIDB" "$kc" validate "$t/kl.json"
check "... a test per LAVA case of the monitor, named as the guest named it" \
	jq_py "$t/kl.json" 'len(d["tests"]) == 9 and d["tests"][1]["path"] == "s61.smoke.boot" and d["tests"][7]["status"] == "SKIP"'
# seen failing with: cmd_lava without judge_console (its status PASS: the
# old behaviour, PASS unless a case said fail).
check "... and, the server's export having no console, the run itself ERROR (not judged), saying so" \
	jq_py "$t/kl.json" 'd["tests"][0]["status"] == "ERROR" and "no console to judge" in d["tests"][0]["comment"]'
check "... the branch and commit from the job's metadata" \
	jq_py "$t/kl.json" 'd["checkouts"][0]["git_repository_branch"] == "lockless" and d["checkouts"][0]["git_commit_hash"] == "'"$(g rev-parse lockless)"'" and d["tests"][1]["id"] == "s61:lava-42:s61.smoke.boot"'
"$kc" lava "$F/lava/lava-run-base-boot.log" --job "$t/lj2/base-boot.yaml" --job-id 7 -o "$t/kl2.json" >"$t/out" 2>&1
check "... and on lava-run's log (base): valid" "$kc" validate "$t/kl2.json"
check "... LAVA's fail where qemu/expected expects XFAIL is waived" \
	jq_py "$t/kl2.json" 'd["tests"][1]["status"] == "FAIL" and d["tests"][1]["waived"] is True'
# That log has the lockless suite's three results only, no KTAP plan and no
# state lines: judged as qemu/run judges a run of the job's smoke,lockless,
# it fails. seen failing with: cmd_lava without judge_console (PASS).
check "... but the run of that log (smoke's tests missing, no plan, no kernel state) is FAIL" \
	jq_py "$t/kl2.json" 'd["tests"][0]["status"] == "FAIL" and "results:" in d["tests"][0]["comment"]'
sed 's/"case": "job", "definition": "lava", "result": "pass"/"case": "job", "definition": "lava", "result": "fail"/' \
	"$F/lava/lava-run-base-boot.log" >"$t/incomplete.log"
"$kc" lava "$t/incomplete.log" --job "$t/lj2/base-boot.yaml" -o "$t/kl3.json" >"$t/out" 2>&1
check "... an incomplete LAVA job makes the run ERROR" jq_py "$t/kl3.json" 'd["tests"][0]["status"] == "ERROR"'
"$kc" lava "$F/judge/result-boot-smoke.ktap" --job "$t/lj2/base-boot.yaml" -o "$t/kl4.json" >"$t/o2" 2>&1
check "... a file with no LAVA results is refused" bash -c "[ $? = 1 ] && grep -q 'no LAVA results' '$t/o2'"

# A LAVA run judged as qemu/run judges one (issue 38 §2): the console of a
# lava-run log of base [boot] (det-lava-run-base-boot.log: constructed,
# every test of smoke,lockless, the kernel's state, s61-exit 0) passes;
# each broken copy of it fails the run, naming why.
# lava_root NAME LOG [ARGS]: the run's status and comment in $t/out.
lava_root() {
	"$kc" lava "$2" --job "$t/lj2/base-boot.yaml" -o "$t/kr-$1.json" "${@:3}" >"$t/o2" 2>&1 || { cat "$t/o2" >"$t/out"; return 1; }
	/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["tests"][0]; print(r["status"], r.get("comment", ""))' \
		"$t/kr-$1.json" >"$t/out"
}
good=$F/lava/det-lava-run-base-boot.log
lava_root good "$good"
expect "judged LAVA run: a complete clean console of base [boot] is PASS" grep -q '^PASS ' "$t/out"
sed 's/"msg": "\[    3.210000\] Run \/s61\/init as init process"/"msg": "[    3.210000] WARNING: CPU: 0 PID: 1 at mm\/shrinker.c:487 shrinker_register+0x5a\/0x60"/' "$good" >"$t/l-splat.log"
lava_root splat "$t/l-splat.log"
# seen failing with: judge_console without the splat scan (its qemu/run
# --scan-console call dropped).
expect "judged LAVA run: a kernel splat on the console is FAIL, named" grep -q '^FAIL .*console: KERNEL SPLAT' "$t/out"
sed 's/# s61-tainted: 4096/# s61-tainted: 4608/' "$good" >"$t/l-taint.log"
lava_root taint "$t/l-taint.log"
# seen failing with: judge_console without the qemu/ktap-summary call (each
# check from here to the SKIP's).
expect "judged LAVA run: a kernel tainted W at the end is FAIL" grep -q '^FAIL .*results:' "$t/out"
grep -v 'ok 3 smoke.drop-caches-dentries' "$good" >"$t/l-missing.log"
lava_root missing "$t/l-missing.log"
expect "judged LAVA run: a test of the job's suites not reported is FAIL" grep -q '^FAIL .*results:' "$t/out"
sed 's/ok 2 smoke.shrinker-debugfs # 1s/ok 2 smoke.shrinker-debugfs # SKIP no debugfs/' "$good" >"$t/l-skip.log"
lava_root skip "$t/l-skip.log"
expect "judged LAVA run: a SKIP where qemu/expected wants PASS (LAVA's case says pass) is FAIL" grep -q '^FAIL .*results:' "$t/out"
grep -v 's61-exit: 0' "$good" >"$t/l-noexit.log"
lava_root noexit "$t/l-noexit.log"
# seen failing with: judge_console without its s61-exit check (and
# ktap-summary's own: none there).
expect "judged LAVA run: no s61-exit line is FAIL" grep -q '^FAIL .*no "s61-exit:" line' "$t/out"
# The server's export with the job's log (--log) as its console.
lava_root export "$F/lava/results-lockless-boot.yaml" --log "$good"
expect "judged LAVA run: a server export with --log is judged on that console" grep -q '^PASS ' "$t/out"
# seen failing with: judge_console mapping every exit of the scan but 1 to
# a pass.
mkdir -p "$t/kbroken/tools/lab" "$t/kbroken/qemu"
cp "$kc" "$t/kbroken/tools/lab/"
cp "$here/qemu/ktap-summary" "$here/qemu/expected" "$t/kbroken/qemu/"
cp -r "$P/rootfs-overlay" "$P/lava" "$P/branch-stack.txt" "$t/kbroken/"
printf '#!/bin/sh\nexit 2\n' >"$t/kbroken/qemu/run"
chmod +x "$t/kbroken/qemu/run"
"$t/kbroken/tools/lab/kcidb.py" lava "$good" --job "$t/lj2/base-boot.yaml" -o "$t/kr-broken.json" >"$t/o2" 2>&1
check "judged LAVA run: a splat scan that did not run makes the run ERROR" \
	jq_py "$t/kr-broken.json" 'd["tests"][0]["status"] == "ERROR" and "exited 2" in d["tests"][0]["comment"]'

# --- compare (what tools/lab/lava-local-run.sh does after both runs) ------------------
"$kc" compare --lava "$F/lava/lava-run-base-boot.log" --ktap "$F/judge/result-base-lockless.ktap" >"$t/o2" 2>&1
check "tools/lab/kcidb.py compare: LAVA's cases agree with our KTAP of the same kernel (exit 0)" \
	bash -c "[ $? = 0 ] && grep -q '3 ours, 3 LAVA, 0 differ' '$t/o2'"
"$kc" compare --lava "$F/lava/lava-run-base-boot.log" --ktap "$F/judge/result-nokmem-pass.ktap" >"$t/o2" 2>&1
check "... a difference (missing tests, another result) exits 1" \
	bash -c "[ $? = 1 ] && grep -q 'lockless.nokmem-umount *PASS *skip *NO' '$t/o2'"

# --- tools/lab/lava-local-run.sh: input checks only (it boots; not run here) -----------
"$P/tools/lab/lava-local-run.sh" nosuch >"$t/o2" 2>&1
check "tools/lab/lava-local-run.sh: an unknown branch is an error (nothing staged)" \
	bash -c "[ $? = 1 ] && grep -q \"unknown branch 'nosuch'\" '$t/o2' && [ ! -e '$S61_WORK/lava' ]"
check "... its usage names the lava-run command" bash -c "'$P/tools/lab/lava-local-run.sh' --help | grep -q 'lava-run --job-id N --output-dir'"

echo "1..$((pass + fail))"
echo "lava-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
