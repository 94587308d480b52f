#!/usr/bin/python3
"""Put unused dquots on the quota cache, the list dquota-cache shrinks.

Usage: dquots.py DEVICE FIRST COUNT

For each of COUNT ids from FIRST, quotactl(Q_GETQUOTA) of the user and of
the group quota of the file system on DEVICE: the kernel reads the id's
dquot (dqget) and lets go of it (dqput); a dquot no inode holds stays on
the free list of the quota code, which the dquota-cache shrinker counts
(/proc/sys/fs/quota/free_dquots) and frees under reclaim. Ids that own no
file are asked for, so that no inode keeps its dquot. Prints
"dquots: asked N, free_dquots BEFORE -> AFTER". Exit 0 when every call
succeeded, else 1 (the first error named).
"""
import ctypes
import os
import sys

Q_GETQUOTA = 0x800007
SUBCMDSHIFT = 8
USRQUOTA, GRPQUOTA = 0, 1


def qcmd(cmd, qtype):
    """QCMD() of <linux/quota.h>, as the signed int quotactl(2) takes."""
    v = (cmd << SUBCMDSHIFT) | (qtype & 0xff)
    return ctypes.c_int(v - (1 << 32) if v >= 1 << 31 else v)


def free_dquots():
    with open("/proc/sys/fs/quota/free_dquots") as f:
        return int(f.read())


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    dev = sys.argv[1].encode()
    first, count = int(sys.argv[2]), int(sys.argv[3])
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(128)  # struct if_dqblk: 72 bytes
    before = free_dquots()
    for i in range(first, first + count):
        for qtype, name in ((USRQUOTA, "user"), (GRPQUOTA, "group")):
            if libc.quotactl(qcmd(Q_GETQUOTA, qtype), dev, ctypes.c_int(i), buf) != 0:
                e = ctypes.get_errno()
                print("quotactl(Q_GETQUOTA, %s %d) on %s: %s"
                      % (name, i, sys.argv[1], os.strerror(e)), file=sys.stderr)
                return 1
    print("dquots: asked %d, free_dquots %d -> %d" % (2 * count, before, free_dquots()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
