"""The shrinker debugfs (CONFIG_SHRINKER_DEBUG) as the guest's Python
helpers read it: kvm-mmu.py and binder-pages.py take the count of their
shrinker at moments the test's shell cannot see (mid-workload)."""
import os

BASE = '/sys/kernel/debug/shrinker'


def shrinker_count(name):
    """The debugfs count of shrinker NAME (summed over its directories
    NAME-ID, memcgs and nodes): '-' without the debugfs, 'none' when no
    shrinker is called NAME."""
    try:
        dirs = [e for e in os.listdir(BASE) if e.rsplit('-', 1)[0] == name]
    except OSError:
        return '-'
    total = 0
    for e in dirs:
        with open(os.path.join(BASE, e, 'count')) as f:
            total += sum(int(x) for line in f for x in line.split()[1:])
    return str(total) if dirs else 'none'
