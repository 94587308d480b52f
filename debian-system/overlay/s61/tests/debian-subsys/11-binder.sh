#!/bin/bash
# Android binder: the android-binder shrinker registers when the module
# loads (Debian: binder_linux). The device: binder in a binderfs mount
# (mount -t binder) when the kernel has binderfs (CONFIG_ANDROID_BINDERFS),
# else the /dev/binder the module makes (Debian's 6.1 config has no
# binderfs). /s61/binder-pages.py sends 16 one-way transactions of 64 KiB
# from one process to another (the context manager), which frees each
# buffer: its pages go onto binder's LRU; drop_caches must take them off
# (the shrinker frees them), read from /sys/kernel/debug/binder/stats.
# With the shrinker debugfs, binder-pages.py also reads android-binder's
# count while the pages are on the LRU and after drop_caches (the readings
# "work" and "dropped": the receiver still alive; when it exits, binder
# frees its pages itself, so a reading of this shell's after the script
# would show 0 whatever the shrinker did): the count must cover the pages
# on the LRU and fall with drop_caches.
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
sub_reading before
out=$(python3 /s61/binder-pages.py "$dev" 16 65536 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "binder-pages.py failed (exit $rc)"
val() { awk -v k="$1" '$1 == k { print $2 }' <<<"$out"; }
before=$(val pages-before) after=$(val pages-after) c0=$(val count-before) c1=$(val count-after)
sub_reading_given work before "android-binder=$c0"
sub_reading_given dropped before "android-binder=$c1"
sub_reading after
sub_timing "transactions and drop_caches"
IFS=: read -r _ lru0 _ <<<"$before"
IFS=: read -r _ lru1 _ <<<"$after"
echo "binder pages (active:lru:free) of the receiver: $before with its buffers freed, $after after drop_caches"
sub_need_registered android-binder
if [ "$SDBG_ON" = 1 ] && ! [[ $c0 =~ ^[0-9]+$ && $c1 =~ ^[0-9]+$ ]]; then
	fail "binder-pages.py read no count of android-binder ('$c0' with the pages on the LRU, '$c1' after drop_caches)"
fi
sub_report work work dropped
[ "${lru0:-0}" -gt 0 ] || fail "no binder page on the LRU after the buffers were freed ($before)"
[ "${lru1:-x}" -lt "$lru0" ] || fail "drop_caches took no binder page off the LRU ($before -> $after)"
if [ "$SDBG_ON" = 1 ]; then
	[ "$c0" -ge "$lru0" ] || fail "android-binder counted $c0 while the receiver had $lru0 binder pages on its LRU"
	[ "$c1" -lt "$c0" ] || fail "android-binder counted $c0 with the pages on its LRU and $c1 after drop_caches: it freed nothing"
fi
pass
