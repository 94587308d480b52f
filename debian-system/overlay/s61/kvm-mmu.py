#!/usr/bin/python3
"""Give KVM's x86 MMU shadow pages to shrink, and let drop_caches shrink them.

Usage: kvm-mmu.py

Creates a VM (/dev/kvm) with 1 MiB of memory and one vCPU in real mode
that writes a byte into each 4 KiB page from 0x20000 to 0x8ffff and halts.
With kvm_amd/kvm_intel loaded with npt=0/ept=0 the guest runs on shadow
page tables, which KVM counts (kvm_total_used_mmu_pages: what the x86-mmu
shrinker counts) and which mmu_shrink_scan zaps. With the VM still open,
prints its debugfs statistics (/sys/kernel/debug/kvm/PID-FD/) before and
after drop_caches: "stats-before K=V ...", "stats-after K=V ...".
Exit 0 when the vCPU halted, 1 otherwise.
"""
import ctypes
import fcntl
import mmap
import os
import struct
import sys

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
MEM = 1 << 20
# mov ax,0x2000; l: mov ds,ax; mov byte [0],1; add ax,0x100; cmp ax,0x9000;
# jne l; hlt
CODE = bytes([0xB8, 0x00, 0x20, 0x8E, 0xD8, 0xC6, 0x06, 0x00, 0x00, 0x01,
              0x05, 0x00, 0x01, 0x3D, 0x00, 0x90, 0x75, 0xF1, 0xF4])
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


def shrinker_count(name):
    """The debugfs count of shrinker NAME (summed), '-' without it."""
    base = '/sys/kernel/debug/shrinker'
    try:
        dirs = [e for e in os.listdir(base) if e.rsplit('-', 1)[0] == name]
    except OSError:
        return '-'
    total = 0
    for e in dirs:
        with open(os.path.join(base, e, 'count')) as f:
            total += sum(int(x) for line in f for x in line.split()[1:])
    return str(total) if dirs else 'none'


def main():
    kvm = os.open('/dev/kvm', os.O_RDWR | os.O_CLOEXEC)
    print('KVM API version %d' % fcntl.ioctl(kvm, KVM_GET_API_VERSION, 0))
    vm = fcntl.ioctl(kvm, KVM_CREATE_VM, 0)
    mem = mmap.mmap(-1, MEM, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                    mmap.PROT_READ | mmap.PROT_WRITE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mem))
    fcntl.ioctl(vm, KVM_SET_USER_MEMORY_REGION, struct.pack('<IIQQQ', 0, 0, 0, MEM, addr))
    mem[0x1000:0x1000 + len(CODE)] = CODE
    vcpu = fcntl.ioctl(vm, KVM_CREATE_VCPU, 0)
    size = fcntl.ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0)
    run = mmap.mmap(vcpu, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    sregs = bytearray(312)
    fcntl.ioctl(vcpu, KVM_GET_SREGS, sregs, True)
    struct.pack_into('<Q', sregs, 0, 0)       # cs.base
    struct.pack_into('<H', sregs, 12, 0)      # cs.selector
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
    print('guest wrote %d of 112 pages' % sum(mem[a] == 1 for a in range(0x20000, 0x90000, 0x1000)))
    d = '/sys/kernel/debug/kvm/%d-%d' % (os.getpid(), vm)
    print('stats-before %s' % stats(d))
    with open('/proc/sys/vm/drop_caches', 'w') as f:
        f.write('2\n')
    print('stats-after %s' % stats(d))
    run.close()
    os.close(vcpu)
    os.close(vm)
    os.close(kvm)
    return 0 if reason == KVM_EXIT_HLT else 1


if __name__ == '__main__':
    sys.exit(main())
