#!/usr/bin/python3
"""Fill the binder shrinker's LRU and let drop_caches free it.

Usage: binder-pages.py DEVICE N SIZE

A child process opens DEVICE (/dev/binder, or binder in a binderfs),
maps 4 MiB and becomes the context manager; the parent sends it N one-way
transactions of SIZE bytes each (handle 0). The child receives each one
(its buffer allocated in the child's mapping: binder pages) and frees it
(BC_FREE_BUFFER: the pages go onto binder's LRU, what the android-binder
shrinker counts and frees). With every buffer freed and the child still
alive, the child's "pages: active:lru:free" line of
/sys/kernel/debug/binder/stats and the android-binder shrinker's debugfs
count (/sys/kernel/debug/shrinker/android-binder-ID/count: what its
count_objects sees on the LRU, of every binder process) are read,
drop_caches is written, and both read again: the shell of the test cannot
read the count while the pages are on the LRU (the child frees them when it
exits). Prints "received N", "pages-before A:L:F", "count-before C",
"pages-after A:L:F", "count-after C"; C is '-' without the shrinker
debugfs (CONFIG_SHRINKER_DEBUG off, as in Debian's own kernel), 'none'
when no shrinker is called android-binder. Exit 0 when every transaction
arrived, else 1.
"""
import ctypes
import fcntl
import mmap
import os
import struct
import sys
import time

from shrinker_debugfs import shrinker_count

BINDER_WRITE_READ = 0xc0306201
BINDER_SET_MAX_THREADS = 0x40046205
BINDER_SET_CONTEXT_MGR = 0x40046207
BINDER_VERSION = 0xc0046209
BC_TRANSACTION = 0x40406300
BC_FREE_BUFFER = 0x40086303
BC_ENTER_LOOPER = 0x630c
BR_TRANSACTION = 0x80407202
BR_TRANSACTION_COMPLETE = 0x7206
BR_NOOP = 0x720c
TF_ONE_WAY = 0x01
MAP_SIZE = 4 << 20


def write_read(fd, wbuf, rsize):
    """BINDER_WRITE_READ: consume wbuf, return up to rsize bytes read."""
    wb = ctypes.create_string_buffer(wbuf, len(wbuf)) if wbuf else None
    rb = ctypes.create_string_buffer(rsize) if rsize else None
    bwr = bytearray(struct.pack('<QQQQQQ', len(wbuf), 0, ctypes.addressof(wb) if wb else 0,
                                rsize, 0, ctypes.addressof(rb) if rb else 0))
    fcntl.ioctl(fd, BINDER_WRITE_READ, bwr, True)
    _, _, _, _, rcons, _ = struct.unpack('<QQQQQQ', bwr)
    return rb.raw[:rcons] if rb else b''


def open_binder(dev):
    fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    ver = bytearray(4)
    fcntl.ioctl(fd, BINDER_VERSION, ver, True)
    m = mmap.mmap(fd, MAP_SIZE, mmap.MAP_PRIVATE, mmap.PROT_READ)
    return fd, m, struct.unpack('i', ver)[0]


def pages(pid):
    """The "pages: active:lru:free" of process pid in binder's stats."""
    cur = None
    with open('/sys/kernel/debug/binder/stats') as f:
        for line in f:
            s = line.strip()
            if s.startswith('proc '):
                cur = s.split()[1]
            elif cur == str(pid) and s.startswith('pages:'):
                return s.split()[1]
    return '-'


def child(dev, n, to_parent, from_parent):
    fd, _m, _ = open_binder(dev)
    fcntl.ioctl(fd, BINDER_SET_MAX_THREADS, struct.pack('I', 0))
    fcntl.ioctl(fd, BINDER_SET_CONTEXT_MGR, struct.pack('i', 0))
    write_read(fd, struct.pack('<I', BC_ENTER_LOOPER), 0)
    os.write(to_parent, b'ready\n')
    got = 0
    while got < n:
        data = write_read(fd, b'', 512)
        i = 0
        while i + 4 <= len(data):
            cmd = struct.unpack_from('<I', data, i)[0]
            size = (cmd >> 16) & 0x3fff
            if cmd == BR_TRANSACTION:
                tr = struct.unpack_from('<QQIIiIQQQQ', data, i + 4)
                write_read(fd, struct.pack('<IQ', BC_FREE_BUFFER, tr[8]), 0)
                got += 1
            i += 4 + size
    os.write(to_parent, b'done %d\n' % got)
    os.read(from_parent, 16)
    os._exit(0)


def main():
    dev, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    c2p_r, c2p_w = os.pipe()
    p2c_r, p2c_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            child(dev, n, c2p_w, p2c_r)
        except Exception as e:  # noqa: BLE001 -- report and exit
            os.write(c2p_w, b'error %s\n' % str(e).encode())
            os._exit(1)
    rd = os.fdopen(c2p_r)
    first = rd.readline().strip()
    if first != 'ready':
        print('context manager failed: %s' % first)
        return 1
    fd, _m, ver = open_binder(dev)
    print('binder protocol version %d, context manager pid %d' % (ver, pid))
    payload = ctypes.create_string_buffer(b'b' * size, size)
    for _ in range(n):
        tr = struct.pack('<QQIIiIQQQQ', 0, 0, 1, TF_ONE_WAY, 0, 0, size, 0,
                         ctypes.addressof(payload), 0)
        write_read(fd, struct.pack('<I', BC_TRANSACTION) + tr, 0)
    line = rd.readline().strip()
    if not line.startswith('done '):
        print('context manager: %s' % line)
        return 1
    got = int(line.split()[1])
    print('received %d' % got)
    time.sleep(0.5)
    print('pages-before %s' % pages(pid))
    print('count-before %s' % shrinker_count('android-binder'))
    with open('/proc/sys/vm/drop_caches', 'w') as f:
        f.write('2\n')
    print('pages-after %s' % pages(pid))
    print('count-after %s' % shrinker_count('android-binder'))
    os.write(p2c_w, b'exit\n')
    os.waitpid(pid, 0)
    os.close(fd)
    return 0 if got == n else 1


if __name__ == '__main__':
    sys.exit(main())
