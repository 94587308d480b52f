#!/bin/bash
# dm-verity over dm-bufio: Debian's veritysetup (cryptsetup-bin) formats a
# hash tree of a 32 MiB loop device, opens the verity target, and the whole
# device is read (each block verified) in a memcg-limited scope; the hash
# blocks sit in dm-bufio's cache (dm_bufio's current_allocated_bytes, with
# its retain_bytes lowered to one block so that the shrinker may free the
# rest), then drop_caches (dm-bufio's shrinker is not memcg-aware:
# memory.reclaim of the scope does not call it), close. Shrinker:
# dm-bufio:(MAJ:MIN) of the hash device. dm-bufio frees from a work item:
# its bytes are polled for 20 s after drop_caches.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module DM_VERITY dm_verity
sub_tools veritysetup dmsetup losetup systemd-run
sub_debugfs
sub_loopfile verity-data 32
data=$LOOP
seq 1 5000000 2>/dev/null | head -c 33554432 >"$data" || fail "cannot write the data device $data"
sub_loopfile verity-hash 4
hash=$LOOP
p=/sys/module/dm_bufio/parameters
b0=$(cat "$p/current_allocated_bytes" 2>/dev/null || echo 0)
out=$(veritysetup format "$data" "$hash") || fail "veritysetup format failed: $out"
root=$(awk '$1 == "Root" && $2 == "hash:" { print $3 }' <<<"$out")
[ -n "$root" ] || fail "veritysetup format printed no root hash: $out"
veritysetup open "$data" s61-verity "$hash" "$root" || fail "veritysetup open failed"
sub_atexit "veritysetup close s61-verity"
echo "verity: $(dmsetup table s61-verity | cut -d' ' -f1-4) ... root hash ${root:0:16}..."
sub_timing "format and open"
retain=$(cat "$p/retain_bytes")
echo 4096 >"$p/retain_bytes" || fail "cannot set dm_bufio retain_bytes"
sub_atexit "echo $retain >$p/retain_bytes"
SUB_SHRINK=("dm-bufio:($(cat "/sys/block/${hash#/dev/}/dev"))")
bufio() { cat "$p/current_allocated_bytes"; }
# dm-bufio's bytes before each reading; after drop_caches, once they went
# down (for at most 20 s: dm-bufio shrinks from a work item)
# shellcheck disable=SC2329,SC2317  # called by sub_cycle
declare -A bb
low() { [ "$(bufio)" -lt "${bb[work]}" ]; }
sub_on_reading() {
	[ "$1" != dropped ] || wait_until 20 low
	bb[$1]=$(bufio)
}
# shellcheck disable=SC2016  # expanded in the scope
sub_cycle verity 'a=$(cksum </dev/mapper/s61-verity) && b=$(cksum <'"$data"') && echo "read the verity device: cksum ${a% *} (data ${b% *})" && [ "$a" = "$b" ]'
b1=${bb[work]} b3=${bb[dropped]}
echo "dm-bufio current_allocated_bytes: $b0 before veritysetup open, $b1 after the read, ${bb[reclaimed]} after memory.reclaim, $b3 after drop_caches (retain_bytes 4096)"
[ "$(dmsetup status s61-verity | awk '{ print $4 }')" = V ] || fail "verity status is not V (verified): $(dmsetup status s61-verity)"
veritysetup close s61-verity || fail "veritysetup close failed"
sub_reading after
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone "${SUB_SHRINK[@]}"
[ "$b1" -gt 4096 ] || fail "dm-bufio holds no hash blocks after the read ($b0 -> $b1 bytes)"
[ "$b3" -lt "$b1" ] || fail "drop_caches freed nothing of dm-bufio ($b1 -> $b3 bytes)"
sub_need_freed s "${SUB_SHRINK[0]}"
pass
