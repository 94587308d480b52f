#!/usr/bin/python3
"""Give KVM's x86 MMU shadow pages to shrink, and let drop_caches shrink them.

Usage: kvm-mmu.py

Creates a VM (/dev/kvm) with 128 MiB of memory (never backed by huge
pages: MADV_NOHUGEPAGE) and one vCPU, put straight into 32-bit protected
mode without paging, that writes a byte into the first page of each 2 MiB
of its memory and halts. With kvm_amd/kvm_intel loaded with npt=0/ept=0
the guest runs on shadow page tables: a page table page for each 2 MiB,
63 of them, which KVM counts (kvm_total_used_mmu_pages, a per-CPU counter
whose batch is 32: fewer pages stay invisible to the x86-mmu shrinker)
and which mmu_shrink_scan zaps. With the VM still open, drop_caches is
written up to 20 times (the shrinker's seeks of 20 makes it scan a fifth
of its count per call: it defers the rest until a call covers it all)
until the VM's mmu_recycled statistic grows. Prints its debugfs
statistics (/sys/kernel/debug/kvm/PID-FD/) before and after:
"stats-before K=V ...", "stats-after K=V ...", and "drops N".
Exit 0 when the vCPU halted, 1 otherwise.
"""
import ctypes
import fcntl
import mmap
import os
import struct
import sys

from shrinker_debugfs import shrinker_count

KVM_GET_API_VERSION = 0xAE00
KVM_CREATE_VM = 0xAE01
KVM_GET_VCPU_MMAP_SIZE = 0xAE04
KVM_CREATE_VCPU = 0xAE41
KVM_SET_USER_MEMORY_REGION = 0x4020AE46
KVM_RUN = 0xAE80
KVM_SET_REGS = 0x4090AE82
KVM_GET_SREGS = 0x8138AE83
KVM_SET_SREGS = 0x4138AE84
KVM_EXIT_HLT = 5
MEM = 128 << 20
# 32-bit: mov eax,0x200000; l: mov byte [eax],1; add eax,0x200000;
# cmp eax,0x8000000; jne l; hlt
CODE = bytes([0xB8, 0x00, 0x00, 0x20, 0x00, 0xC6, 0x00, 0x01,
              0x05, 0x00, 0x00, 0x20, 0x00, 0x3D, 0x00, 0x00, 0x00, 0x08,
              0x75, 0xF1, 0xF4])
STATS = ('mmu_cache_miss', 'mmu_shadow_zapped', 'mmu_recycled', 'mmu_pte_write',
         'pages_4k')


def stats(d):
    out = ['x86-mmu=%s' % shrinker_count('x86-mmu')]
    for k in STATS:
        try:
            with open(os.path.join(d, k)) as f:
                out.append('%s=%s' % (k, f.read().strip()))
        except OSError:
            out.append('%s=-' % k)
    return ' '.join(out)


def stat(d, key, line=None):
    """Statistic KEY of VM directory D, or from a stats() LINE."""
    if line is not None:
        return dict(x.split('=', 1) for x in line.split()).get(key)
    try:
        with open(os.path.join(d, key)) as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    kvm = os.open('/dev/kvm', os.O_RDWR | os.O_CLOEXEC)
    print('KVM API version %d' % fcntl.ioctl(kvm, KVM_GET_API_VERSION, 0))
    vm = fcntl.ioctl(kvm, KVM_CREATE_VM, 0)
    mem = mmap.mmap(-1, MEM, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                    mmap.PROT_READ | mmap.PROT_WRITE)
    mem.madvise(mmap.MADV_NOHUGEPAGE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mem))
    fcntl.ioctl(vm, KVM_SET_USER_MEMORY_REGION, struct.pack('<IIQQQ', 0, 0, 0, MEM, addr))
    mem[0x1000:0x1000 + len(CODE)] = CODE
    vcpu = fcntl.ioctl(vm, KVM_CREATE_VCPU, 0)
    size = fcntl.ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0)
    run = mmap.mmap(vcpu, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    sregs = bytearray(312)
    fcntl.ioctl(vcpu, KVM_GET_SREGS, sregs, True)
    # flat 32-bit segments (struct kvm_segment: base, limit, selector,
    # type, present, dpl, db, s, l, g, avl, unusable, padding): cs, then
    # ds es fs gs ss; cr0.PE (struct kvm_sregs: cr0 at 224)
    struct.pack_into('<QIHBBBBBBBBBB', sregs, 0, 0, 0xffffffff, 8, 11, 1, 0, 1, 1, 0, 1, 0, 0, 0)
    for off in (24, 48, 72, 96, 120):
        struct.pack_into('<QIHBBBBBBBBBB', sregs, off, 0, 0xffffffff, 16, 3, 1, 0, 1, 1, 0, 1, 0, 0, 0)
    cr0 = struct.unpack_from('<Q', sregs, 224)[0]
    struct.pack_into('<Q', sregs, 224, cr0 | 1)
    fcntl.ioctl(vcpu, KVM_SET_SREGS, bytes(sregs))
    regs = [0] * 18
    regs[16] = 0x1000                          # rip
    regs[17] = 2                               # rflags
    fcntl.ioctl(vcpu, KVM_SET_REGS, struct.pack('<18Q', *regs))
    reason = -1
    for _ in range(100):
        fcntl.ioctl(vcpu, KVM_RUN, 0)
        reason = struct.unpack_from('<I', run, 8)[0]
        if reason == KVM_EXIT_HLT:
            break
    print('vCPU exit reason %d (%s)' % (reason, 'hlt' if reason == KVM_EXIT_HLT else 'not hlt'))
    print('guest wrote %d of 63 pages' % sum(mem[a] == 1 for a in range(2 << 20, MEM, 2 << 20)))
    d = '/sys/kernel/debug/kvm/%d-%d' % (os.getpid(), vm)
    before = stats(d)
    print('stats-before %s' % before)
    drops = 0
    while drops < 20:
        with open('/proc/sys/vm/drop_caches', 'w') as f:
            f.write('2\n')
        drops += 1
        if stat(d, 'mmu_recycled') != stat(d, 'mmu_recycled', before):
            break
    print('drops %d' % drops)
    print('stats-after %s' % stats(d))
    run.close()
    os.close(vcpu)
    os.close(vm)
    os.close(kvm)
    return 0 if reason == KVM_EXIT_HLT else 1


if __name__ == '__main__':
    sys.exit(main())
