#!/bin/bash
# 100k negative dentries on ext4 are freed by "echo 2 > drop_caches".
. /s61/lib.sh
N=100000
mount_ext4 /mnt/e || fail "cannot make an ext4 file system"
mkdir /mnt/e/d
echo 2 >/proc/sys/vm/drop_caches
before=$(nr_negative)
make_negative_dentries /mnt/e/d $N
made=$(nr_negative)
echo "negative dentries: before $before, after creating $N: $made"
[ $((made - before)) -ge $((N * 9 / 10)) ] || fail "only $((made - before)) negative dentries were created"
echo 2 >/proc/sys/vm/drop_caches
after=$(nr_negative)
echo "after drop_caches: $after"
umount /mnt/e
[ $((made - after)) -ge $((N * 9 / 10)) ] || fail "drop_caches freed only $((made - after)) of $N negative dentries"
pass
