#!/bin/bash
# Dentries created inside a cgroup-v2 memcg are freed by its memory.reclaim
# (memcg-aware slab shrinking through shrink_slab_memcg()).
. /s61/lib.sh
N=50000
mount_ext4 /mnt/m || fail "cannot make an ext4 file system"
mkdir /mnt/m/d
cg=$(memcg_create smoke-reclaim) || fail "cannot create a memcg"
echo 2 >/proc/sys/vm/drop_caches
before=$(nr_negative)
bash -c "echo \$\$ >$cg/cgroup.procs && . /s61/lib.sh && make_negative_dentries /mnt/m/d $N"
made=$(nr_negative)
slab0=$(memcg_stat "$cg" slab_reclaimable)
echo "negative dentries: before $before, made in memcg: $((made - before)); memcg slab_reclaimable $slab0"
[ $((made - before)) -ge $((N * 9 / 10)) ] || fail "only $((made - before)) negative dentries were created"
for _ in 1 2 3; do
	echo 64M >"$cg/memory.reclaim" 2>/dev/null
done
after=$(nr_negative)
slab1=$(memcg_stat "$cg" slab_reclaimable)
echo "after memory.reclaim: negative dentries $after, memcg slab_reclaimable $slab1"
umount /mnt/m
rmdir "$cg"
[ $((made - after)) -ge $((N * 8 / 10)) ] || fail "memory.reclaim freed only $((made - after)) of $((made - before)) dentries"
pass
