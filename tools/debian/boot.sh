#!/usr/bin/env bash
# Boot the Debian 12 system image of tools/debian/image.sh in QEMU (TCG) with
# systemd as PID 1 and judge its suites on the host (issue #27).
#
# Usage: tools/debian/boot.sh [--image FILE | --kernel stock | --deb FILE...] [options]
#   --image FILE     a disk.img of tools/debian/image.sh; without it the image
#                    of --kernel/--deb (passed to tools/debian/image.sh, which
#                    builds it or takes it from its cache)
#   --kver VERSION   the kernel of the image's /boot to boot (default: the
#                    only one, or the newest); --list-kernels names them
#   --suites LIST    suites of debian-system/overlay/s61/tests (default
#                    debian-smoke; debian-subsys: each converted shrinker's
#                    subsystem with its Debian tool; comma-separated for
#                    both)     --only NAMES  only these tests
#   --n N            s61.n=: the scopes of debian-smoke.memcg-scopes (default
#                    20) and of debian-bench.dcont (default 50); on the
#                    command line only when given, so each test's own
#                    default holds
#   --append ARGS    more kernel command line (s61.memmax=128M s61.files=10 ...);
#                    one that undoes a pinned option (quiet, a loglevel
#                    below 7, another console=, panic=, oops= or
#                    softlockup_panic=) is refused (qemu/run --check-append)
#   --target NAME    judge by debian-system/expected as NAME: base (Debian's
#                    own kernel, the default) or the branch a .deb was built
#                    from (top for 'make deb')
#   --config NAME    the kernel's config for the manifest (default debian:
#                    Debian's own config)
#   --timeout S      limit of the whole run (default 1200)
#   --mem SIZE       guest memory (default 2048M)   --smp N (default 2)
#   --machine M      QEMU's machine: pc (i440fx, the default) or q35. On pc
#                    the guest routes INTx by running a While loop of
#                    128 entries in the DSDT's _PRT, which a debug kernel
#                    under TCG can stretch past ACPICA's 30 s limit (see
#                    the "note: ACPI" line); q35's _PRT has no loop
#   --out DIR        console.log, result.ktap, the kernel and initrd
#                    (default .work/debian-runs/<time>)
#   --quiet          no live console
# The kernel and initrd are taken from the image's /boot with debugfs (no
# mount); the image is the guest's virtio disk /dev/vda with snapshot=on, so
# the cached image never changes. Kernel command line: root=/dev/vda rw
# console=ttyS0 panic=-1 oops=panic softlockup_panic=1 loglevel=7 (every
# WARNING and kmemleak's KERN_INFO report reach the console) and
# s61.suites=, s61.kver= (s61.n= with --n): the image's
# s61-tests.service starts after multi-user.target, writes KTAP and
# "s61-exit: N" to its result port ttyS1 (a 16550 at ISA 0x2f8, IRQ 3, read
# here from a file chardev) and powers off. The verdict comes from that port
# only (qemu/ktap-summary with the manifest debian-system/expected: every
# test of the suites must be reported); the console is only scanned for
# kernel splats (qemu/run --scan-console, qemu/splat-patterns), with
# qemu/run --allow-splat for each entry of debian-system/known-splats whose
# target and config are this run's (a known defect of that kernel, fixed
# upstream; a report entry: qemu/run --allow-report with
# --expect-in-splat, and its taint allowed when it was there): its lines
# do not fail the run, and the report says which entries were allowed and
# how many console lines (reports) each matched (also in
# OUT/known-splats: a line "COUNT<TAB>UPSTREAM-ID<TAB>TITLE" per entry).
# The kernel's taint at the end may be O and N (qemu/ktap-summary), and E
# (unsigned module) for Debian's stock kernel only (--target base --config
# debian): it does not have the key our .debs sign the test module with.
# The guest also has a virtio-balloon-pci device (free-page-hint=on, with
# an iothread) and QEMU a QMP socket (OUT/qmp.sock): a line
# "s61-host: balloon MIB" on the result port (debian-subsys.virtio-balloon)
# makes this script inflate the balloon by MIB MiB below --mem (QMP
# "balloon"; MIB 0 deflates it fully); each request and QEMU's reply go to
# OUT/host-requests.log.
# Environment: S61_POWEROFF_GRACE, the seconds the guest has to power off
# after its result (default 120).
# Exit: 0 pass, 1 a test failed, is missing or not as expected, or a splat;
# 2 hang, crash, no result, or no power-off after the result; 3 bad usage
# or harness error (no image, no such kernel, a failed image build, a
# malformed line of debian-system/known-splats, a console scan that did
# not run: qemu/run --scan-console exiting other than 0 or 1).
. "$(dirname "$0")/../lib/lib.sh"
set -u

SYS=$S61_ROOT/debian-system
TESTS=$SYS/overlay/s61/tests
MANIFEST=$SYS/expected
KNOWN=$SYS/known-splats
# After "s61-exit:" the guest has this long to power off.
POWEROFF_GRACE=${S61_POWEROFF_GRACE:-120}

usage() {
	echo "debian-boot: $*" >&2
	exit 3
}

image='' kver='' suites=debian-smoke only='' n='' n_given=0 append='' target=base config=debian
timeout=1200 mem=2048M smp=2 machine=pc out='' quiet=0 list=0
imgargs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	--image) image=${2:-}; [ -n "$image" ] || usage "--image needs a file"; shift ;;
	--kernel) imgargs+=("$1" "${2:-}"); shift ;;
	--deb)
		imgargs+=("$1")
		while [ $# -ge 2 ] && [ "${2#-}" = "$2" ]; do imgargs+=("$2"); shift; done ;;
	--kver) kver=${2:-}; [ -n "$kver" ] || usage "--kver needs a kernel version (--list-kernels)"; shift ;;
	--list-kernels) list=1 ;;
	--suites) suites=${2:-}; shift ;;
	--only) only=${2:-}; shift ;;
	--n) n=${2:-}; n_given=1; shift ;;
	--append) append=${2:-}; shift ;;
	--target) target=${2:-}; shift ;;
	--config) config=${2:-}; shift ;;
	--timeout) timeout=${2:-}; shift ;;
	--mem) mem=${2:-}; shift ;;
	--smp) smp=${2:-}; shift ;;
	--machine) machine=${2:-}; shift ;;
	--out) out=${2:-}; shift ;;
	--quiet) quiet=1 ;;
	*) usage "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
nv=()
[ "$n_given" = 0 ] || nv=(n:"$n")
for v in "${nv[@]}" timeout:"$timeout" smp:"$smp"; do
	[[ ${v#*:} =~ ^[1-9][0-9]*$ ]] || usage "--${v%%:*} '${v#*:}': want a whole number above 0"
done
case $machine in pc|q35) ;; *) usage "--machine '$machine': want pc or q35" ;; esac
# The guest's memory in MiB (for the balloon requests).
if ! mem_b=$(numfmt --from=iec "${mem%[Bb]}" 2>/dev/null) || [ "$mem_b" -lt 268435456 ]; then
	usage "--mem '$mem': want a size of 256M or more (e.g. 2048M, 2G)"
fi
mem_mib=$((mem_b / 1048576))
[ -z "$image" ] || [ ${#imgargs[@]} = 0 ] ||
	usage "--image and ${imgargs[0]}: give the image, or the kernels to build (or reuse) one with, not both"
[ -n "$image" ] || [ ${#imgargs[@]} -gt 0 ] ||
	usage "which image? --image FILE (tools/debian/image.sh prints it), or --kernel stock / --deb FILE to make one"
why=$("$S61_ROOT/qemu/run" --check-append "$append" 2>&1) || usage "${why#qemu/run: }"
ks() { python3 "$S61_ROOT/qemu/ktap-summary" "$@"; }
kargs=(--suites "$suites" --tests-dir "$TESTS" --expect "$MANIFEST" --target "$target" --config "$config")
[ -z "$only" ] || kargs+=(--only "$only")
ks --check "${kargs[@]}" >&2 || usage "cannot judge --suites $suites${only:+ --only $only} --target $target by $MANIFEST (see above); nothing booted"
# The known splats of this run: every entry of $KNOWN whose target and
# config are --target and --config ("top" the top of the stack on either
# side). The file is parsed whole, strictly: a line that is not an entry
# is a harness error naming it, whichever run it is for.
top_of() { if [ "$1" = top ]; then stack_top; else echo "$1"; fi; }
kre=() kid=() ktitle=() kline=() kin=() ktaint=()
[ -f "$KNOWN" ] || usage "no $KNOWN: the known splats cannot be read"
declare -A kseen=()
lno=0
entry_re='^([^[:space:]"]+)[[:space:]]+([^[:space:]"]+)[[:space:]]+"([^"]+)"[[:space:]]+([^[:space:]"]+)[[:space:]]+"([^"]+)"'
entry_re+='([[:space:]]+report[[:space:]]+"([^"]+)"[[:space:]]+taint[[:space:]]+([A-Z]+))?[[:space:]]*$'
while IFS= read -r kl || [ -n "$kl" ]; do
	lno=$((lno + 1))
	[[ $kl =~ ^[[:space:]]*(#.*)?$ ]] && continue
	where="debian-system/known-splats line $lno"
	[[ $kl =~ $entry_re ]] ||
		usage "$where: want TARGET CONFIG \"REGEX\" UPSTREAM-ID \"TITLE\" [report \"IN-REGEX\" taint LETTERS] (see the top of the file), not: $kl"
	kt=${BASH_REMATCH[1]} kc=${BASH_REMATCH[2]} kr=${BASH_REMATCH[3]} ki=${BASH_REMATCH[4]} kn=${BASH_REMATCH[5]}
	kri=${BASH_REMATCH[7]} krt=${BASH_REMATCH[8]}
	[ "$kt" = top ] || stack_has_branch "$kt" ||
		usage "$where: target '$kt' is not base, top or a branch of branch-stack.txt"
	[[ $kc =~ ^[A-Za-z0-9._-]+$ ]] || usage "$where: config '$kc': want a config name (letters, digits, . _ -)"
	[[ $ki =~ ^[0-9a-f]{12,40}$ ]] || usage "$where: upstream id '$ki': want 12 to 40 hex digits of the upstream fix"
	grep -qE -- "$kr" </dev/null
	[ $? != 2 ] || usage "$where: \"$kr\" is not an extended regular expression (grep -E)"
	if [ -n "$kri" ]; then
		grep -qE -- "$kri" </dev/null
		[ $? != 2 ] || usage "$where: report \"$kri\" is not an extended regular expression (grep -E)"
	fi
	key="$(top_of "$kt") $kc $kr"
	[ -z "${kseen[$key]:-}" ] || usage "$where: the same entry as line ${kseen[$key]}"
	kseen[$key]=$lno
	if [ "$(top_of "$kt")" = "$(top_of "$target")" ] && [ "$kc" = "$config" ]; then
		kre+=("$kr") kid+=("$ki") ktitle+=("$kn") kline+=("$lno") kin+=("$kri") ktaint+=("$krt")
	fi
done <"$KNOWN"
allow=()
for i in "${!kre[@]}"; do
	if [ -n "${kin[i]}" ]; then
		allow+=(--allow-report "${kre[i]}" --expect-in-splat "${kin[i]}")
	else
		allow+=(--allow-splat "${kre[i]}")
	fi
done

for c in qemu-system-x86_64 debugfs; do
	command -v "$c" >/dev/null || usage "$c is missing: apt-get install qemu-system-x86 e2fsprogs (or tools/build/deps.sh)"
done

if [ -z "$image" ]; then
	image=$("$S61_ROOT/tools/debian/image.sh" "${imgargs[@]}") ||
		usage "tools/debian/image.sh ${imgargs[*]} failed (above); nothing booted"
fi
[ -f "$image" ] || usage "--image $image: no such file (tools/debian/image.sh prints the path of the image it built)"

# The kernels of the image: /boot/vmlinuz-VERSION with its initrd.img-VERSION.
boot_ls=$(debugfs -R 'ls -p /boot' "$image" 2>&1) || usage "debugfs cannot read /boot of $image: $boot_ls"
kernels=$(awk -F/ '$6 ~ /^vmlinuz-/ { sub(/^vmlinuz-/, "", $6); print $6 }' <<<"$boot_ls" | sort -V)
[ -n "$kernels" ] || usage "$image has no /boot/vmlinuz-*: not an image of tools/debian/image.sh"
if [ "$list" = 1 ]; then
	echo "$kernels"
	exit 0
fi
if [ -z "$kver" ]; then
	kver=$(tail -n 1 <<<"$kernels")
elif ! grep -qxF -- "$kver" <<<"$kernels"; then
	usage "--kver $kver: the image has no such kernel; it has: $(tr '\n' ' ' <<<"$kernels")"
fi
grep -qx "initrd.img-$kver" <<<"$(awk -F/ '{ print $6 }' <<<"$boot_ls")" ||
	usage "the image has /boot/vmlinuz-$kver but no /boot/initrd.img-$kver (did initramfs-tools run?)"

[ -n "$out" ] || out=$S61_WORK/debian-runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out" || usage "cannot create $out"
console=$out/console.log result=$out/result.ktap qmp=$out/qmp.sock reqlog=$out/host-requests.log
rm -f "$qmp" "$reqlog"
: >"$console"
: >"$result"
for f in vmlinuz initrd.img; do
	rm -f "$out/$f"
	debugfs -R "dump /boot/$f-$kver $out/$f" "$image" >/dev/null 2>&1
	[ -s "$out/$f" ] || usage "debugfs could not dump /boot/$f-$kver of $image"
done

cmdline="root=/dev/vda rw console=ttyS0 panic=-1 oops=panic softlockup_panic=1 loglevel=7"
cmdline="$cmdline s61.suites=$suites s61.kver=$kver${n:+ s61.n=$n}${only:+ s61.only=$only}${append:+ $append}"
echo "$cmdline" >"$out/cmdline"
label="debian $kver ($(basename "$(dirname "$image")"))"
echo "debian-boot: $label: booting with systemd, TCG; run $out" >&2
t0=$SECONDS
timeout -k 5 "$timeout" qemu-system-x86_64 -machine "$machine" -accel tcg -cpu max -smp "$smp" -m "$mem" \
	-nodefaults -display none -no-reboot -monitor none \
	-serial "file:$console" \
	-chardev "file,id=s61res,path=$result" -device isa-serial,chardev=s61res,index=1,iobase=0x2f8,irq=3 \
	-drive "file=$image,if=virtio,format=raw,snapshot=on" \
	-object iothread,id=s61io -device virtio-balloon-pci,id=s61balloon,free-page-hint=on,iothread=s61io \
	-qmp "unix:$qmp,server=on,wait=off" \
	-kernel "$out/vmlinuz" -initrd "$out/initrd.img" -append "$cmdline" >"$out/qemu.out" 2>&1 &
qpid=$!
if [ "$quiet" != 1 ]; then
	tail -n +1 -F "$console" 2>/dev/null &
	tpid=$!
fi
# The guest's requests: "s61-host: balloon MIB" lines of the result port
# (written by a test straight to ttyS1; the runner's copies of a test's
# output start with "# " and never match). Each is handled once.
nreq=0
host_requests() {
	local reqs line n=0 mib
	reqs=$(grep -a '^s61-host: ' "$result" | tr -d '\r')
	[ -n "$reqs" ] || return 0
	while IFS= read -r line; do
		n=$((n + 1))
		[ "$n" -gt "$nreq" ] || continue
		nreq=$n
		mib=${line#s61-host: balloon }
		if [ "$mib" = "$line" ] || ! [[ $mib =~ ^[0-9]+$ ]] || [ "$mib" -ge "$mem_mib" ]; then
			echo "$line: refused: want 's61-host: balloon MIB', MIB below the guest's $mem_mib MiB" >>"$reqlog"
			continue
		fi
		echo "$line: QMP balloon to $((mem_mib - mib)) MiB" >>"$reqlog"
		python3 "$S61_ROOT/qemu/qmp" "$qmp" \
			"{\"execute\": \"balloon\", \"arguments\": {\"value\": $(((mem_mib - mib) * 1048576))}}" >>"$reqlog" 2>&1 ||
			echo "$line: the QMP command failed (above)" >>"$reqlog"
	done <<<"$reqs"
}
# Watch the result port: its first line is the runner's start (the boot
# reached multi-user.target), "s61-exit:" its end, after which the guest
# must power off within POWEROFF_GRACE seconds.
t_first='' t_exit='' nooff=0
while kill -0 "$qpid" 2>/dev/null; do
	[ -n "$t_first" ] || [ ! -s "$result" ] || t_first=$((SECONDS - t0))
	host_requests
	if [ -z "$t_exit" ] && grep -aq '^s61-exit: ' "$result"; then
		t_exit=$((SECONDS - t0))
	fi
	if [ -n "$t_exit" ] && [ $((SECONDS - t0 - t_exit)) -gt "$POWEROFF_GRACE" ]; then
		nooff=1
		kill "$qpid" 2>/dev/null
		break
	fi
	sleep 1
done
wait "$qpid"
qrc=$?
[ -z "${tpid:-}" ] || { sleep 0.2; kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null; }
secs=$((SECONDS - t0))
printf 'run %s s, result port first line at %s s, s61-exit at %s s\n' "$secs" "${t_first:--}" "${t_exit:--}" >"$out/seconds"

verdict=0 problem=''
if [ "$nooff" = 1 ]; then
	problem="the guest reported its result but did not power off within ${POWEROFF_GRACE} s (a hang in shutdown?); console: $console"
	verdict=2
elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
	problem="guest hung: no power-off within ${timeout} s (timeout); console: $console"
	verdict=2
elif [ $qrc != 0 ]; then
	problem="qemu exited with $qrc: $(tail -3 "$out/qemu.out" | tr '\n' ' ')"
	verdict=2
fi
exitline=$(grep -a '^s61-exit: ' "$result" | tail -n 1 | tr -d '\r')
if [ -z "$exitline" ] && [ $verdict = 0 ]; then
	problem="guest reported no result (crash, panic, or s61-tests.service did not run?); console: $console"
	verdict=2
fi
scan=$("$S61_ROOT/qemu/run" --scan-console "$console" "${allow[@]}")
src=$?
[ -z "$scan" ] || printf '%s\n' "$scan"
# The known splats allowed: how many console lines (reports) each matched
# (qemu/run's "KNOWN SPLAT (allowed: /RE/): N ..." or "KNOWN REPORT
# (allowed: /RE/): N ..." line; none: 0). A report entry's taint is
# allowed when its report was there (a WARNING taints W): the console
# then shows it, and no other splat (that fails the run anyway).
: >"$out/known-splats"
targs=()
# E (unsigned module) only on Debian's stock kernel (target base, config
# debian), which does not have our key: it cannot verify a module of ours.
# Never on a .deb of ours (config debian-s61, base or the series): make
# deb signs the test module with the kernel's own key (tools/debian/deb-check.sh
# holds it to that), so E there is a module the kernel could not verify.
[ "$target" != base ] || [ "$config" != debian ] || targs+=(--allow-taint E)
for i in "${!kre[@]}"; do
	cnt=0 what="console line(s)" kind="KNOWN SPLAT"
	[ -z "${kin[i]}" ] || what="report(s)" kind="KNOWN REPORT"
	while IFS= read -r l; do
		rest=${l#"$kind (allowed: /${kre[i]}/): "}
		[ "$rest" != "$l" ] || continue
		cnt=${rest%% *}
		break
	done <<<"$scan"
	printf '%s\t%s\t%s\n' "$cnt" "${kid[i]}" "${ktitle[i]}" >>"$out/known-splats"
	echo "known splat of $target (config $config) allowed, debian-system/known-splats line ${kline[i]}, upstream fix ${kid[i]} \"${ktitle[i]}\": $cnt $what"
	[ "$cnt" = 0 ] || [ -z "${ktaint[i]}" ] || targs+=(--allow-taint "${ktaint[i]}")
done
ks --label "$label" --seconds "$secs" --cmdline "$cmdline" "${kargs[@]}" "${targs[@]}" "$result"
krc=$?
# ACPICA aborts an AML While loop after 30 s of wall time
# (AE_AML_LOOP_TIMEOUT). Under TCG a slow kernel (the debug flavour) can
# take that long in the _PRT method of QEMU's i440fx DSDT, and a PCI device
# without MSI-X is then bound without an INTx route: its interrupts never
# arrive (debian-subsys.virtio-balloon fails; --machine q35 avoids it). Not
# a kernel report, so no verdict; said so that a device's failure is read
# right.
naml=$(grep -ac 'AE_AML_LOOP_TIMEOUT' "$console")
if [ "$naml" -gt 0 ]; then
	noroute=$(grep -ao "[^ ]*: can't derive routing for PCI INT [A-D]" "$console" |
		sed "s/: can't derive routing for PCI INT / INT /" | sort -u | paste -sd, -)
	echo "note: ACPI aborted an AML While loop at its 30 s limit ($naml console lines AE_AML_LOOP_TIMEOUT, the machine's slowness); PCI interrupt pins left without a route: ${noroute:-none}"
fi
# 0 clean, 1 a splat; anything else (3: its harness error; 2, 126, 127: a
# scan that did not run) leaves the console unjudged: never a pass.
case $src in
0) ;;
1) [ $verdict != 0 ] || verdict=1 ;;
*)
	verdict=3
	echo "HARNESS ERROR: the console scan (qemu/run --scan-console) exited $src; the console is not judged"
	;;
esac
if [ -n "$problem" ]; then
	echo "RUN PROBLEM: $problem"
	echo "---- last console lines ----"
	tail -n 15 "$console" | sed 's/\r//'
fi
if [ $verdict = 0 ] && [ $krc != 0 ]; then
	verdict=1
	[ $krc = 1 ] || { verdict=3; echo "HARNESS ERROR: qemu/ktap-summary exited $krc; the run is not judged"; }
fi
[ $verdict != 0 ] || [ "${exitline#s61-exit: }" = 0 ] || verdict=1
echo "times: whole run ${secs} s; multi-user.target reached (runner's first line) at ${t_first:--} s; results done at ${t_exit:--} s"
echo "$verdict" >"$out/verdict"
echo "run: $out"
exit $verdict
