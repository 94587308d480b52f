#!/bin/bash
# virtio-balloon: tools/debian/boot.sh gives the guest a virtio-balloon-pci
# device (free-page-hint=on: the only case in which 6.1's driver registers
# its virtio-balloon shrinker) and a QMP socket. The test asks the host,
# with a line "s61-host: balloon MIB" on the result port, to inflate the
# balloon by 256 MiB (QMP "balloon" to the guest's memory minus that);
# MemTotal must drop by at least 200 MiB (the driver takes the pages from
# the guest), then drop_caches under the smaller memory, then
# "s61-host: balloon 0" (deflate): MemTotal must come back. The shrinker
# counts the pages hinted to the host, which only a migration asks for:
# judged registered, its evidence row "registered only"
# (debian-system/registered-only).
# The device has no MSI-X: on QEMU's pc machine a debug kernel can be too
# slow for ACPI's _PRT and leave it without an interrupt route, and the
# host's request never arrives (tools/debian/boot.sh's "note: ACPI" line says
# so); tools/debian/debug-run.sh boots q35 for that reason.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module VIRTIO_BALLOON virtio_balloon
sub_debugfs
d=$(find /sys/bus/virtio/drivers/virtio_balloon -mindepth 1 -maxdepth 1 -name 'virtio[0-9]*' -printf '%f\n' 2>/dev/null | head -n 1)
[ -n "$d" ] || fail "no virtio-balloon device bound to virtio_balloon (tools/debian/boot.sh adds -device virtio-balloon-pci)"
feat=$(cat "/sys/bus/virtio/devices/$d/features")
# VIRTIO_BALLOON_F_*: bit 2 deflate-on-oom, 3 free-page-hint, 5 reporting
echo "balloon $d: features $feat (deflate-on-oom ${feat:2:1}, free-page-hint ${feat:3:1}, page-reporting ${feat:5:1})"
# 6.1's driver registers its shrinker only with free-page-hint (bit 3),
# which tools/debian/boot.sh gives the device: without it there is no
# shrinker to judge, and the test fails saying so.
[ "${feat:3:1}" = 1 ] ||
	fail "balloon $d has no free-page-hint (bit 3 of its features $feat): 6.1's virtio_balloon registers no shrinker without it (tools/debian/boot.sh gives -device virtio-balloon-pci,free-page-hint=on)"
[ "$(cat /sys/class/tty/ttyS1/type 2>/dev/null || echo 0)" != 0 ] || fail "no result port ttyS1 to ask the host"
mt() { awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo; }
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
ask() { printf 's61-host: balloon %s\n' "$1" >/dev/ttyS1; }
SUB_SHRINK=(virtio-balloon)
# The device's interrupts, "NAME COUNT" each (virtio0-config ...).
irqs() { awk -v d="$d" '$NF == d || index($NF, d "-") == 1 { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; printf "%s %s ", $NF, n }' /proc/interrupts; }
m0=$(mt) i0=$(vm balloon_inflate) f0=$(vm balloon_deflate) q0=$(irqs)
sub_reading work
ask 256
inflated() { [ "$(mt)" -le $((m0 - 200 * 1024)) ]; }
# What the guest shows when the balloon does not move: the driver's page
# counts (vmstat balloon_inflate grows by each page the driver takes, before
# it tells the host), the device's interrupts (the host's new size comes
# as a config interrupt) and the tasks that are running or blocked, with
# where they wait (the driver inflates from a work item of
# system_freezable_wq).
state() {
	echo "MemTotal $(mt) kB, vmstat balloon_inflate +$(($(vm balloon_inflate) - i0)), balloon_deflate +$(($(vm balloon_deflate) - f0)) pages"
	echo "interrupts of $d (name count): before the request: ${q0:-none}; now: $(irqs)"
	ps -eo pid,stat,wchan:30,comm --no-headers | awk '$2 ~ /^[RD]/ || $4 ~ /balloon/' | head -n 20
}
if ! wait_until 60 inflated; then
	echo "not inflated after 60 s:"
	state
	wait_until 60 inflated || {
		state
		ask 0
		fail "MemTotal $m0 -> $(mt) kB 120 s after asking the host to inflate the balloon by 256 MiB (did tools/debian/boot.sh get the request? its host-requests.log)"
	}
fi
m1=$(mt)
sub_timing "inflate by 256 MiB"
sub_drop
sub_reading dropped
ask 0
deflated() { [ "$(mt)" -ge $((m0 - 1024)) ]; }
wait_until 120 deflated || fail "MemTotal $(mt) kB 120 s after asking the host to deflate the balloon (was $m0 kB)"
m2=$(mt)
sub_timing "deflate"
echo "MemTotal: $m0 kB, $m1 kB inflated, $m2 kB deflated; vmstat balloon_inflate +$(($(vm balloon_inflate) - i0)), balloon_deflate +$(($(vm balloon_deflate) - f0)) pages"
sub_report work work dropped
sub_need_registered virtio-balloon
pass
