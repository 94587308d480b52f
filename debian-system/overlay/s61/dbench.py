#!/usr/bin/python3
"""Timed mount and umount system calls for the suite debian-bench.

Under TCG a fork and an exec cost tens of milliseconds, so a time taken
around mount(8) would be mostly process start-up. This helper times the
system call alone (time.perf_counter_ns around the ctypes call); the
Python start-up comes before it and is never counted.

  dbench.py loop DIR GAP_MS STATS
      The mounter of debian-bench.dcont (containers that come and go):
      until SIGTERM, each round enters a fresh mount namespace
      (unshare(CLONE_NEWNS), / made private; not timed), mounts a tmpfs
      "s61-dc-loop" on DIR (timed), unmounts it (timed), sleeps GAP_MS.
      Writes "ready" to STATS.ready once the first round is about to
      start; at the end writes STATS: "ops N", "mount_p50_ms X",
      "mount_p99_ms X", "mount_max_ms X", "umount_p50_ms X",
      "umount_p99_ms X", "umount_max_ms X", and "mount_ms" and
      "umount_ms" with every value. A failed call ends the loop at once:
      exit 1, the error on stderr and in STATS ("error ...").

  dbench.py timed GO OUT mount SOURCE DIR FSTYPE
  dbench.py timed GO OUT umount DIR
      One call for debian-bench.dp1: writes OUT.ready, waits (polling
      every 2 ms) until the file GO exists, then makes the call and writes
      to OUT "MS END_US": its milliseconds and the end as microseconds of
      the wall clock (bash's EPOCHREALTIME without the dot). Exit 1 on
      error (errno on stderr).

Percentiles are nearest-rank: the value at position ceil(p * n) of the
sorted times.
"""
import ctypes
import math
import os
import signal
import sys
import time

CLONE_NEWNS = 0x00020000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                       ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.unshare.argtypes = [ctypes.c_int]


def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def timed_call(fn, *args):
    """Run fn(*args); return (rc, milliseconds of the call alone)."""
    t0 = time.perf_counter_ns()
    rc = fn(*args)
    t1 = time.perf_counter_ns()
    return rc, (t1 - t0) / 1e6


def pct(values, p):
    s = sorted(values)
    k = max(1, math.ceil(p * len(s)))
    return s[k - 1]


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def loop(d, gap_ms, stats):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    bd = d.encode()
    mounts, umounts = [], []
    err = None
    write(stats + ".ready", "ready\n")
    try:
        while not stop:
            check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
            check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None),
                  "mount --make-rprivate /")
            rc, ms = timed_call(libc.mount, b"s61-dc-loop", bd, b"tmpfs", 0,
                                b"size=1m")
            check(rc, "mount tmpfs on %s" % d)
            mounts.append(ms)
            rc, ms = timed_call(libc.umount2, bd, 0)
            check(rc, "umount %s" % d)
            umounts.append(ms)
            if gap_ms > 0 and not stop:
                time.sleep(gap_ms / 1000.0)
    except OSError as e:
        err = str(e)
    lines = ["ops %d" % len(umounts)]
    for name, v in (("mount", mounts), ("umount", umounts)):
        if v:
            lines += ["%s_p50_ms %.3f" % (name, pct(v, 0.50)),
                      "%s_p99_ms %.3f" % (name, pct(v, 0.99)),
                      "%s_max_ms %.3f" % (name, max(v))]
        lines.append("%s_ms %s" % (name, " ".join("%.3f" % x for x in v)))
    if err:
        lines.append("error " + err)
    write(stats, "\n".join(lines) + "\n")
    if err:
        print("dbench.py loop: " + err, file=sys.stderr)
        return 1
    return 0


def timed(go, out, op, args):
    if op == "mount" and len(args) == 3:
        fn, cargs = libc.mount, (args[0].encode(), args[1].encode(),
                                 args[2].encode(), 0, None)
    elif op == "umount" and len(args) == 1:
        fn, cargs = libc.umount2, (args[0].encode(), 0)
    else:
        print("dbench.py timed: want 'mount SOURCE DIR FSTYPE' or 'umount DIR'",
              file=sys.stderr)
        return 2
    write(out + ".ready", "ready\n")
    while not os.path.exists(go):
        time.sleep(0.002)
    rc, ms = timed_call(fn, *cargs)
    end_us = time.time_ns() // 1000
    if rc != 0:
        e = ctypes.get_errno()
        print("dbench.py timed: %s %s: %s" % (op, " ".join(args), os.strerror(e)),
              file=sys.stderr)
        return 1
    write(out, "%.3f %d\n" % (ms, end_us))
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "loop":
        return loop(argv[2], float(argv[3]), argv[4])
    if len(argv) >= 5 and argv[1] == "timed":
        return timed(argv[2], argv[3], argv[4], argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
