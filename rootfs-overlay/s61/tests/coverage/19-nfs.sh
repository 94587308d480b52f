#!/bin/bash
# NFS client and server over loopback (rpcbind, rpc.mountd, rpc.nfsd; an
# ext4 export): nfs-acl (the client's access cache), nfs-xattr_cache,
# nfs-xattr_entry, nfs-xattr_large_entry (NFSv4.2 xattr caching),
# nfsd-filecache (v3 I/O), nfsd-reply (v3 duplicate reply cache),
# nfsd-client (courtesy clients), sunrpc_cred; stopping nfsd removes the
# per-net nfsd shrinkers.
. /s61/lib.sh
# shellcheck source=rootfs-overlay/s61/tests/coverage/cov-lib
. /s61/tests/coverage/cov-lib
for b in rpcbind:rpcbind rpc.nfsd:nfs-kernel-server rpc.mountd:nfs-kernel-server \
	exportfs:nfs-kernel-server mount.nfs:nfs-common setfattr:attr; do
	cov_need "${b%%:*}" "${b#*:}"
done
grep -qw nfsd /proc/filesystems || skip "no nfsd (CONFIG_NFSD)"
here=$(dirname "$0")
# What the daemons expect of a Debian system.
for f in netconfig protocols services; do
	[ -s /etc/$f ] || cp "$here/$f" /etc/$f
done
grep -q '^_rpc:' /etc/passwd 2>/dev/null || echo '_rpc:x:100:65534::/run/rpcbind:/usr/sbin/nologin' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
grep -q '^nobody:' /etc/passwd || echo 'nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin' >>/etc/passwd
mkdir -p /run/rpcbind /var/lib/nfs/v4recovery /var/lib/nfs/sm /srv/cov /mnt/cov-nfs3 /mnt/cov-nfs4
: >/var/lib/nfs/etab
: >/var/lib/nfs/rmtab
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
dev=$(cov_loop nfs 128) || fail "no loop device"
mkfs.ext4 -q -F -O ea_inode "$dev" || fail "mkfs.ext4 failed"
mount -t ext4 "$dev" /srv/cov || fail "mount of the export failed"
cov_files /srv/cov/d 1 400 4096
echo "/srv/cov 127.0.0.1(rw,no_root_squash,no_subtree_check,insecure,fsid=1)" >/etc/exports

cov_entry 'nfs-acl'; acl=$COV_DIR
cov_entry 'nfs-xattr_cache'; xc=$COV_DIR
cov_entry 'nfs-xattr_entry'; xe=$COV_DIR
cov_entry 'nfs-xattr_large_entry'; xl=$COV_DIR
cov_entry 'sunrpc_cred'; cred=$COV_DIR

rpcbind -w || fail "rpcbind failed"
grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || fail "cannot mount the nfsd file system"
exportfs -ra || fail "exportfs failed"
rpc.mountd --no-udp -p 20048 || fail "rpc.mountd failed"
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 10 >/proc/fs/nfsd/nfsv4gracetime
rpc.nfsd --no-udp 4 || fail "rpc.nfsd failed"
echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null
cov_entry 'nfsd-filecache'; fc=$COV_DIR
cov_entry 'nfsd-client'; cl=$COV_DIR
cov_entry 'nfsd-reply:*'; rc=$COV_DIR

mount.nfs 127.0.0.1:/srv/cov /mnt/cov-nfs3 -o vers=3,proto=tcp,mountproto=tcp,nolock ||
	fail "NFSv3 mount over loopback failed"
mount.nfs 127.0.0.1:/srv/cov /mnt/cov-nfs4 -o vers=4.2 || fail "NFSv4.2 mount over loopback failed"
cov_msg "mounts: $(grep nfs /proc/mounts | cut -d' ' -f1-3 | tr '\n' ';')"

# v3: non-idempotent calls fill the duplicate reply cache; reads and writes
# use (and leave) cached nfsd files.
cov_files /mnt/cov-nfs3/w 1 300 100
t_drc=$SECONDS
cat /mnt/cov-nfs3/d/* >/dev/null
cov_count_min "$rc" 100 "300 NFSv3 creates and writes"
cov_count_min "$fc" 10 "NFSv3 reads of 400 files"
cov_scan "$fc" must
# v4.2: access checks (access cache), xattrs (xattr caches).
big=$(printf 'x%.0s' $(seq 4020))
for i in $(seq 1 80); do
	setfattr -n user.small -v "v$i" "/mnt/cov-nfs4/d/f$i" || { cov_bad "setfattr over NFSv4.2 failed"; break; }
	setfattr -n user.big -v "$big" "/mnt/cov-nfs4/d/f$i" || { cov_bad "large setfattr over NFSv4.2 failed"; break; }
done
sync
echo 2 >/proc/sys/vm/drop_caches
for i in $(seq 1 40); do
	getfattr -n user.small "/mnt/cov-nfs4/d/f$i" >/dev/null 2>&1
	getfattr -n user.big "/mnt/cov-nfs4/d/f$i" >/dev/null 2>&1
done
ls -l /mnt/cov-nfs4/d >/dev/null
cat /mnt/cov-nfs4/d/* >/dev/null
cov_count_min "$acl" 10 "permission checks on 400 NFSv4 files"
cov_count_min "$xc" 10 "getxattr on 40 NFSv4.2 files"
cov_count_min "$xe" 10 "small getxattr on 40 NFSv4.2 files"
cov_count_min "$xl" 10 "4 kB getxattr on 40 NFSv4.2 files"
# Reclaim first: one drop_caches pass runs all of them.
echo 1 >/proc/sys/vm/drop_caches
cat /mnt/cov-nfs3/d/* >/dev/null
cov_count_min "$fc" 10 "NFSv3 reads of 400 files again"
cov_reclaim_all must "$acl" "$xc" "$xe" "$xl" "$fc"
# Then the scans, after filling again (the other 40 files' xattrs).
for i in $(seq 41 80); do
	getfattr -n user.small "/mnt/cov-nfs4/d/f$i" >/dev/null 2>&1
	getfattr -n user.big "/mnt/cov-nfs4/d/f$i" >/dev/null 2>&1
done
ls -l /mnt/cov-nfs4/d >/dev/null
cov_count_min "$acl" 10 "permission checks again"
cov_count_min "$xc" 10 "getxattr on 40 other files"
cov_count_min "$xe" 10 "small getxattr on 40 other files"
cov_count_min "$xl" 10 "4 kB getxattr on 40 other files"
cov_scan "$acl" must
cov_scan "$xe" must
cov_scan "$xl" must
cov_scan "$xc" must

# sunrpc_cred caches only RPCSEC_GSS-style credentials: AUTH_UNIX has none.
cov_count_min "$cred" 0
cov_scan "$cred" try
cov_skip_check "$cred" scan-frees "AUTH_SYS credentials are not cached; the cache fills only with Kerberos (RPCSEC_GSS), which this guest has no KDC for"
# nfsd-client counts courtesy clients: clients whose lease expired while
# they still held state. Not provoked here (the client stays alive).
cov_count_min "$cl" 0
cov_scan "$cl" try
cov_skip_check "$cl" scan-frees "needs a client that vanishes while holding state, then a lease expiry"

# The reply cache frees only entries older than RC_EXPIRE (120 s) while
# under its size limit: wait for that, then scan.
left=$((125 - (SECONDS - t_drc)))
[ $left -le 0 ] || { cov_msg "waiting ${left}s for the DRC entries to expire"; sleep $left; }
cov_scan "$rc" must
# the rest expire over the next seconds: reclaim frees what has by then
cov_reclaim "$rc" try

umount /mnt/cov-nfs3 || cov_bad "umount of the NFSv3 mount failed"
umount /mnt/cov-nfs4 || cov_bad "umount of the NFSv4 mount failed"
rpc.nfsd 0 || cov_bad "rpc.nfsd 0 failed"
cov_gone "$fc"
cov_gone "$cl"
cov_gone "$rc"
exportfs -ua
for p in $(pidof rpc.mountd rpcbind); do kill "$p"; done
umount /srv/cov
cov_unloop "$dev"
for d in "$acl" "$xc" "$xe" "$xl" "$cred"; do
	cov_permanent "$d" "global, registered at NFS/SUNRPC init (built in)"
done
cov_end
