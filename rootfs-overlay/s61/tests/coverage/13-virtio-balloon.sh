#!/bin/bash
# virtio-balloon: with free page hinting (QEMU -device
# virtio-balloon-pci,free-page-hint=on) the driver registers a shrinker over
# the hinted free pages; unbinding the driver unregisters it.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
drv=/sys/bus/virtio/drivers/virtio_balloon
[ -d $drv ] || skip "no virtio_balloon driver (CONFIG_VIRTIO_BALLOON)"
dev=$(find $drv -mindepth 1 -maxdepth 1 -name "virtio*" -printf "%f\n" | head -1)
[ -n "$dev" ] || skip "no virtio-balloon device (run with --qemu-arg -device --qemu-arg virtio-balloon-pci,free-page-hint=on)"
cov_entry 'virtio-balloon'; vb=$COV_DIR
cov_count_min "$vb" 0
cov_scan "$vb" try
cov_skip_check "$vb" scan-frees "hinted free pages exist only while the host asks for hints (live migration); the count stays 0 here"
cov_reclaim "$vb" try
echo "$dev" >$drv/unbind || cov_bad "cannot unbind $dev"
cov_gone "$vb"
echo "$dev" >$drv/bind || cov_bad "cannot bind $dev again"
cov_entry 'virtio-balloon'; vb=$COV_DIR
cov_end
