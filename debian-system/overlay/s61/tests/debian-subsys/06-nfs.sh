#!/bin/bash
# NFS over loopback: Debian's nfs-kernel-server (running since the boot)
# exports a directory of the root ext4 with exportfs; it is mounted on
# 127.0.0.1 with NFS 4.2 (user xattrs: the client's xattr cache) and NFSv3
# (non-idempotent calls: nfsd's reply cache). In a memcg-limited scope: the
# fill through the 4.2 mount, 200 creates and 100 removes through the v3
# mount, every file listed as 4 other users (setpriv: RPC credentials and
# the access cache); then memory.reclaim of the scope, drop_caches,
# read-back, umount, unexport. Shrinkers: sb-nfs, sb-nfs4, nfs-acl (the access
# cache), nfs-xattr_cache/_entry/_large_entry, nfsd-filecache, nfsd-client,
# nfsd-reply, sunrpc_cred. Without the shrinker debugfs the evidence is the
# nfs_inode_cache slab.
. /s61/lib.sh
# shellcheck source=debian-system/overlay/s61/subsys.sh
. /s61/subsys.sh
sub_module NFSD nfsd
sub_module NFS_FS nfs
sub_tools exportfs mount.nfs setpriv systemd-run python3
sub_debugfs
systemctl is-active -q nfs-server || systemctl start nfs-server ||
	fail "nfs-server.service is not running and does not start: $(systemctl status --no-pager nfs-server | tail -5)"
exp=/srv/s61-nfs
rm -rf "$exp"
mkdir -p "$exp/v4" "$exp/v3"
chmod 1777 "$exp" "$exp/v4" "$exp/v3"
sub_atexit "rm -rf $exp"
exportfs -o rw,no_root_squash,no_subtree_check,fsid=61 "127.0.0.1:$exp" || fail "exportfs of $exp failed"
sub_atexit "exportfs -u 127.0.0.1:$exp"
SUB_SHRINK=(sb-nfs sb-nfs4 nfs-acl "nfs-xattr_cache" "nfs-xattr_entry" "nfs-xattr_large_entry" nfsd-filecache nfsd-client "nfsd-reply*" sunrpc_cred)
SUB_SLABS=(nfs_inode_cache nfs4_xattr_cache_cache)
sub_mount nfs "127.0.0.1:$exp" /mnt/s61-nfs4 vers=4.2
sub_mount nfs "127.0.0.1:$exp" /mnt/s61-nfs3 vers=3,nolock,proto=tcp
sub_timing "export and two mounts (4.2, 3)"
# A smaller fill than on the local file systems: every create, setattr
# and write is an RPC (the whole fill of the others took 73 s under TCG).
export SUB_DIRS=4 SUB_FILES=50 SUB_MIB=8
# nfsd's own counters before each reading: its reply cache (nfsd-reply)
# and its open-file cache (nfsd-filecache)
# shellcheck disable=SC2329,SC2317  # called by sub_cycle
sub_on_reading() {
	echo "nfsd before reading $1: reply cache: $(awk -F: '/^num entries/ { printf "%d entries", $2 }' /proc/fs/nfsd/reply_cache_stats 2>/dev/null); file cache: $(awk -F: '/^total entries|^lru entries/ { printf "%s%s", $1, $2 "; " }' /proc/fs/nfsd/filecache 2>/dev/null)"
}
# shellcheck disable=SC2016  # expanded in the scope
sub_cycle nfs 'sub_fill /mnt/s61-nfs4/v4 || exit 1
python3 -c "import os, sys
n = sum(len(os.getxattr(\"/mnt/s61-nfs4/v4/data/t%d\" % i, \"user.s61\")) == 2000 for i in range(8))
print(\"xattrs read back through the client: %d of 8\" % n); sys.exit(n != 8)" || exit 2
(cd /mnt/s61-nfs3/v3 && touch c{1..200} && rm -f c{1..100}) || exit 3
for u in 1001 1002 1003 1004; do
	setpriv --reuid=$u --regid=$u --clear-groups ls -lR /mnt/s61-nfs4/v4 /mnt/s61-nfs3/v3 >/dev/null || exit 4
done
echo "v3: 200 creates, 100 removes; 4 users listed both mounts"'
sub_check_fill /mnt/s61-nfs4/v4
n=$(find "$exp" -type f | wc -l)
want=$((SUB_DIRS * SUB_FILES + SUB_MIB + 1 + 100))
[ "$n" = "$want" ] || fail "the server's directory has $n files, the clients made $want"
echo "server side: $n files in $exp"
sub_umount /mnt/s61-nfs3
sub_umount /mnt/s61-nfs4
exportfs -u "127.0.0.1:$exp" || fail "exportfs -u failed"
sub_reading after
sub_timing "read-back, umount, unexport"
sub_need_registered "${SUB_SHRINK[@]}"
sub_need_gone sb-nfs sb-nfs4
sub_need_freed s sb-nfs4
sub_need_freed c nfs_inode_cache
pass
