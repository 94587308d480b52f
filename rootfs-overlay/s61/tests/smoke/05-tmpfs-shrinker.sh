#!/bin/bash
# A tmpfs mount registers an sb-tmpfs shrinker; its umount removes it.
# Broken variant: tests/broken/broken-debugfs-keep.diff (the debugfs entry
# outlives the shrinker); its runs: docs/broken-variants.tsv.
. /s61/lib.sh
n0=$(shrinker_count sb-tmpfs)
mkdir -p /mnt/t
mount -t tmpfs smoke /mnt/t || fail "mount tmpfs failed"
n1=$(shrinker_count sb-tmpfs)
umount /mnt/t || fail "umount failed"
n2=$(shrinker_count sb-tmpfs)
echo "sb-tmpfs entries: before $n0, mounted $n1, unmounted $n2"
[ "$n1" -eq $((n0 + 1)) ] || fail "mount did not add an sb-tmpfs shrinker"
[ "$n2" -eq "$n0" ] || fail "umount did not remove the sb-tmpfs shrinker"
pass
