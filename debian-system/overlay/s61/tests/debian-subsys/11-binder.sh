#!/bin/bash
# Android binder: the android-binder shrinker registers when the module
# loads (Debian: binder_linux). The device: binder in a binderfs mount
# (mount -t binder) when the kernel has binderfs (CONFIG_ANDROID_BINDERFS),
# else the /dev/binder the module makes (Debian's 6.1 config has no
# binderfs). /s61/binder-pages.py sends 16 one-way transactions of 64 KiB
# from one process to another (the context manager), which frees each
# buffer: its pages go onto binder's LRU; drop_caches must take them off
# (the shrinker frees them), read from /sys/kernel/debug/binder/stats.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module ANDROID_BINDER_IPC binder_linux binder
sub_tools python3
sub_debugfs
if grep -qw binder /proc/filesystems; then
	mkdir -p /dev/binderfs
	sub_mount binder binder /dev/binderfs
	dev=/dev/binderfs/binder
	[ -e "$dev" ] || fail "binderfs mounted, but no $dev in it: $(ls /dev/binderfs)"
	echo "binderfs: $(sub_config ANDROID_BINDERFS); device $dev"
else
	dev=/dev/binder
	wait_until 10 test -c "$dev" || fail "no binderfs and no $dev after loading the module ($(sub_config ANDROID_BINDER_DEVICES))"
	echo "no binderfs ($(sub_config ANDROID_BINDERFS)): the module's $dev"
fi
[ -r /sys/kernel/debug/binder/stats ] || fail "no /sys/kernel/debug/binder/stats"
SUB_SHRINK=(android-binder)
sub_reading work
out=$(python3 /s61/binder-pages.py "$dev" 16 65536 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "binder-pages.py failed (exit $rc)"
sub_reading dropped
sub_timing "transactions and drop_caches"
before=$(awk '$1 == "pages-before" { print $2 }' <<<"$out")
after=$(awk '$1 == "pages-after" { print $2 }' <<<"$out")
IFS=: read -r _ lru0 _ <<<"$before"
IFS=: read -r _ lru1 _ <<<"$after"
echo "binder pages (active:lru:free) of the receiver: $before with its buffers freed, $after after drop_caches"
sub_report work work dropped
sub_need_registered android-binder
[ "${lru0:-0}" -gt 0 ] || fail "no binder page on the LRU after the buffers were freed ($before)"
[ "${lru1:-x}" -lt "$lru0" ] || fail "drop_caches took no binder page off the LRU ($before -> $after)"
pass
