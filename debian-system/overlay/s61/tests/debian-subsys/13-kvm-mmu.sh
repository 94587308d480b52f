#!/bin/bash
# KVM's x86 MMU: under TCG, QEMU's "-cpu max" has SVM, so Debian's kvm_amd
# loads in the guest (nested virtualisation, emulated). It is reloaded with
# npt=0 (ept=0 for kvm_intel) so that the guest of /s61/kvm-mmu.py (a vCPU
# in 32-bit protected mode that writes into each 2 MiB of its 128 MiB and
# halts) runs on shadow page tables, which the x86-mmu shrinker counts;
# drop_caches (repeated, at most 20 times: see kvm-mmu.py) with the VM
# still open must zap some (the VM's mmu_recycled statistic, debugfs). The
# module is reloaded with its defaults afterwards.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_tools python3
sub_debugfs
if grep -qw svm /proc/cpuinfo; then
	mod=kvm_amd par=npt
elif grep -qw vmx /proc/cpuinfo; then
	mod=kvm_intel par=ept
else
	fail "the CPU has neither svm nor vmx (tools/debian/boot.sh's TCG -cpu max has svm)"
fi
sub_module KVM "$mod"
modprobe -r "$mod" || fail "cannot unload $mod to reload it with $par=0"
sub_atexit "modprobe -r $mod; modprobe $mod"
modprobe "$mod" "$par=0" || fail "modprobe $mod $par=0 failed"
echo "$mod: $par=$(cat "/sys/module/$mod/parameters/$par")"
wait_until 10 test -c /dev/kvm || fail "no /dev/kvm with $mod loaded"
SUB_SHRINK=(x86-mmu)
sub_reading work
out=$(timeout 120 python3 /s61/kvm-mmu.py 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "kvm-mmu.py failed (exit $rc)"
sub_timing "VM run and drop_caches"
kv() { awk -v s="$1" -v k="$2" '$1 == s { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' <<<"$out"; }
made=$(kv stats-before mmu_cache_miss) r0=$(kv stats-before mmu_recycled) r1=$(kv stats-after mmu_recycled)
c0=$(kv stats-before x86-mmu) c1=$(kv stats-after x86-mmu)
echo "shadow pages made (mmu_cache_miss): $made; zapped by the shrinker (mmu_recycled): $r0 -> $r1 after $(awk '$1 == "drops" { print $2 }' <<<"$out") drop_caches; x86-mmu count: $c0 -> $c1"
sub_need_registered x86-mmu
[ "${made:-0}" -gt 0 ] || fail "the VM made no shadow page (mmu_cache_miss ${made:-none})"
[ "${r1:-0}" -gt "${r0:-0}" ] || fail "drop_caches zapped no shadow page of the open VM (mmu_recycled $r0 -> $r1)"
if [ "$SDBG_ON" = 1 ]; then
	[ "$c1" -lt "$c0" ] || fail "x86-mmu counted $c0 before and $c1 after drop_caches"
fi
modprobe -r "$mod" || fail "cannot unload $mod"
modprobe "$mod" || fail "cannot load $mod again with its defaults"
pass
