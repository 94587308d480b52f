#!/bin/bash
# rcu-kfree: objects and cached pages of kfree_rcu()/kvfree_rcu() batching.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
cov_entry 'rcu-kfree'; rk=$COV_DIR
# kvfree_rcu() users: memcg creation/removal, mount/umount; the per-CPU
# page cache of the batching stays filled afterwards.
churn() {
	local i
	for i in $(seq 1 40); do
		mkdir -p /mnt/cov-rk
		mount -t tmpfs rk /mnt/cov-rk && umount /mnt/cov-rk
		mkdir "/sys/fs/cgroup/cov-rk$i" && rmdir "/sys/fs/cgroup/cov-rk$i"
	done
}
churn
c=$(cov_total "$rk")
[ "$c" -gt 0 ] || cov_busy "$rk" "mount/umount and memcg churn" churn
cov_count_min "$rk" 1 "kvfree_rcu() churn"
cov_scan "$rk" must
churn
sleep 1
cov_reclaim "$rk" must
cov_permanent "$rk" "global, registered at RCU init"
cov_end
