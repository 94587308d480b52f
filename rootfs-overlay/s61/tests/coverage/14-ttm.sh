#!/bin/bash
# drm-ttm_pool: TTM's global page pool shrinker, registered when the first
# TTM device (bochs-drm on QEMU -vga std) initialises.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
[ -e /dev/dri/card0 ] || ls /sys/class/drm/card0 >/dev/null 2>&1 ||
	skip "no DRM device (run with --qemu-arg -vga --qemu-arg std; CONFIG_DRM_BOCHS)"
cov_msg "drm: $(grep DRIVER /sys/class/drm/card0/device/uevent 2>/dev/null)"
cov_entry 'drm-ttm_pool'; tt=$COV_DIR
cov_count_min "$tt" 0
cov_scan "$tt" try
cov_skip_check "$tt" scan-frees "bochs' buffers are VRAM or cached system pages, which TTM never pools; the pool stays empty"
cov_reclaim "$tt" try
cov_permanent "$tt" "global, registered by ttm_pool_mgr_init() for the kernel's lifetime (built in)"
cov_end
