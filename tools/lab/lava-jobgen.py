#!/usr/bin/python3
"""Write and validate LAVA job definitions for tools/lab/lava-jobs.sh.

Not meant to be called by hand: tools/lab/lava-jobs.sh checks the input (branches,
configs, the artifact URL), resolves commits and kernel cache keys, and
hands this script one job per line on stdin (tab-separated: file branch
commit config judged-as kcache-key subject). Each job is written to
--out DIR and validated with lava-common's job schema
(lava_common.schemas.validate, Debian's lava-common 2023.01).

Usage: tools/lab/lava-jobgen.py --out DIR --artifacts URL --root REPO < specs
       tools/lab/lava-jobgen.py --validate FILE...   (exit 1 if a job fails)

Runs with Debian's /usr/bin/python3 (python3-yaml, lava-common); see
docs/lava.md for the job layout, the timeouts and the artifact mapping.
"""
import argparse
import hashlib
import os
import sys
import textwrap

try:
    import yaml
    from lava_common.schemas import validate as lava_validate
    from voluptuous import Invalid
except ImportError as e:  # pragma: no cover - reported to the user
    print(f'lava-jobgen: error: {e}: install Debian\'s lava-common and python3-yaml '
          '(tools/build/deps.sh lava) and run this with /usr/bin/python3', file=sys.stderr)
    sys.exit(1)

# The monitor name: LAVA's test suite name for our results.
MONITOR = 's61-ktap'

# What each config boots, and the time limits the job gets. The suites and
# the extra command line are those of the runs we measure (Makefile: `make`
# and check-top); the figures come from docs/timings.md and are repeated in
# each job's header comment.
CONFIGS = {
    'boot': {
        'suites': 'smoke,lockless',
        'append': '',
        'test_timeout': 300,      # the guest's per-test limit (init default)
        'guest_limit': 600,       # tools/boot/guest-test.sh / qemu/run --timeout default
        'measured': 'boot kernel, smoke + lockless: 55 s host wall clock '
                    '(docs/timings.md, `make` on a fresh clone); smoke alone 18-29 s '
                    '(boot test, every tip)',
    },
    'debug': {
        'suites': 'smoke,kunit,lockless,races',
        'append': 's61.race_secs=60 s61.test_timeout=900',
        'test_timeout': 900,
        'guest_limit': 1800,      # check-top's --timeout
        'measured': 'debug kernel, smoke + KUnit + lockless + races 60 s: 308-366 s '
                    '(docs/timings.md, make check rows); check-top gives it 1800 s',
    },
}
DEPLOY_MIN = 5      # two downloads; LAVA's own default for http-download
BOOT_MIN = 2        # starting QEMU; LAVA's default for boot-qemu-image
MARGIN_MIN = 3


def cmdline(config):
    """The kernel command line qemu/run builds for CONFIG's suites, plus
    the LAVA switch of the guest init (s61.lava=1)."""
    c = CONFIGS[config]
    line = ('console=ttyS0 panic=-1 oops=panic softlockup_panic=1 rdinit=/s61/init '
            'rd.shell=0 rd.emergency=poweroff loglevel=7 s61.suites=' + c['suites'])
    if c['append']:
        line += ' ' + c['append']
    return line + ' s61.lava=1'


def timeouts(config):
    c = CONFIGS[config]
    test_min = -(-c['guest_limit'] // 60)
    conn_min = -(-(c['test_timeout'] + 60) // 60)
    job_min = DEPLOY_MIN + BOOT_MIN + test_min + MARGIN_MIN
    return test_min, conn_min, job_min


def overlay_sha1(root):
    """sha1 over rootfs-overlay/ (names and contents), as a mark of the
    guest side the initramfs must be built from."""
    h = hashlib.sha1()
    base = os.path.join(root, 'rootfs-overlay')
    for d, dirs, files in sorted(os.walk(base)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(os.path.relpath(p, base).encode() + b'\0')
            with open(p, 'rb') as fh:
                h.update(fh.read())
    return h.hexdigest()


def artifact_urls(base, key):
    d = f'{base.rstrip("/")}/kernels/{key}'
    return f'{d}/bzImage', f'{d}/initramfs.cpio'


def job(spec, base, root, stack_base):
    branch, commit, config, judged, key, subject = spec
    c = CONFIGS[config]
    test_min, conn_min, job_min = timeouts(config)
    kernel_url, initrd_url = artifact_urls(base, key)
    tip = not subject
    name = f's61 {branch} {config}' + ('' if tip else f' {commit[:12]}')
    data = {
        'job_name': name,
        'device_type': 'qemu',
        'visibility': 'public',
        'priority': 'medium',
        'timeouts': {
            'job': {'minutes': job_min},
            'action': {'minutes': DEPLOY_MIN},
            'connection': {'minutes': BOOT_MIN},
            'actions': {'lava-test-monitor': {'minutes': test_min}},
            'connections': {'lava-test-monitor': {'minutes': conn_min}},
        },
        # The lab's qemu device-type template (qemu.jinja2) reads these:
        # no KVM, TCG with our CPU model and SMP, the memory of qemu/run,
        # and no reboot at the end (QEMU exits when the guest is done).
        'context': {
            'arch': 'amd64',
            'no_kvm': True,
            'memory': 1024,
            'extra_options': ['-accel tcg', '-cpu max', '-smp 2', '-no-reboot'],
        },
        'metadata': {
            's61.branch': branch,
            's61.commit': commit,
            's61.config': config,
            's61.judged_as': judged,
            's61.suites': c['suites'],
            's61.base': stack_base,
            's61.kcache_key': key,
            's61.artifacts': 'kernels/<kcache key>/bzImage = $S61_CACHE/kernels/<key>/bzImage; '
                             'kernels/<kcache key>/initramfs.cpio = qemu/mkinitramfs with that '
                             "entry's modinst/ and *.ko (docs/lava.md)",
            's61.overlay_sha1': overlay_sha1(root),
        },
        'actions': [
            {'deploy': {
                'to': 'tmpfs',
                'timeout': {'minutes': DEPLOY_MIN},
                'images': {
                    'kernel': {
                        'image_arg': f'-kernel {{kernel}} -append "{cmdline(config)}"',
                        'url': kernel_url,
                    },
                    'ramdisk': {
                        'image_arg': '-initrd {ramdisk}',
                        'url': initrd_url,
                    },
                },
            }},
            {'boot': {
                'method': 'qemu',
                'media': 'tmpfs',
                'timeout': {'minutes': BOOT_MIN},
            }},
            {'test': {
                'timeout': {'minutes': test_min},
                'monitors': [{
                    'name': MONITOR,
                    'start': 's61-lava-start:',
                    'end': 's61-exit: [0-9]+',
                    'pattern': r's61-lava-result: (?P<test_case_id>[A-Za-z0-9_.-]+) '
                               r'(?P<result>PASS|FAIL|SKIP|XFAIL)',
                    # LAVA knows pass/fail/skip/unknown only: an XFAIL (the
                    # old stall, seen on branches below lockless) is a fail
                    # there; qemu/expected says where it is expected.
                    'fixupdict': {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip', 'XFAIL': 'fail'},
                }],
            }},
        ],
    }
    if subject:
        data['metadata']['s61.subject'] = subject
    header = [
        f'# LAVA job for the lockless slab shrink series (s61): {branch} [{config}]'
        + ('' if tip else f' at {commit}'),
        '# Written by tools/lab/lava-jobs.sh; how a lab runs it, the artifact layout and',
        '# the result mapping: docs/lava.md. Submit: lavacli jobs submit FILE',
        '#',
        *textwrap.wrap(f'Timeouts, from our measured runs: {c["measured"]}.', 74,
                       initial_indent='# ', subsequent_indent='#   '),
        f'#   test (lava-test-monitor) {test_min} min = the guest limit tools/boot/guest-test.sh',
        f'#     gives this config ({c["guest_limit"]} s), several times the measured run;',
        f'#   connection of the monitor {conn_min} min = the longest quiet stretch on the',
        f'#     console: one test at its in-guest limit ({c["test_timeout"]} s) + 1 min;',
        f'#   deploy {DEPLOY_MIN} min (two downloads), boot {BOOT_MIN} min (starting QEMU);',
        f'#   job {job_min} min = deploy + boot + test + {MARGIN_MIN} min.',
    ]
    return '\n'.join(header) + '\n' + yaml.safe_dump(data, sort_keys=False, width=1000)


def check(path):
    """Validate one job file; return an error text or None."""
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        return f'cannot read {path}: {e}'
    if not isinstance(data, dict):
        return f'{path}: not a YAML mapping'
    try:
        lava_validate(data, strict=True)
    except Invalid as e:
        return f'{path}: rejected by lava_common.schemas.validate: {e}'
    except (KeyError, TypeError, AttributeError) as e:
        return f'{path}: rejected by lava_common.schemas.validate ({type(e).__name__}: {e})'
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out')
    ap.add_argument('--artifacts')
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    ap.add_argument('--base', default='', help='the base line of branch-stack.txt')
    ap.add_argument('--validate', nargs='+', metavar='FILE')
    args = ap.parse_args()
    if args.validate:
        bad = 0
        for p in args.validate:
            err = check(p)
            if err:
                bad += 1
                print(f'lava-jobgen: error: {err}', file=sys.stderr)
            else:
                print(f'{p}: valid (lava_common.schemas.validate)')
        return 1 if bad else 0
    if not args.out or not args.artifacts:
        ap.error('--out and --artifacts are needed (tools/lab/lava-jobs.sh calls this)')
    n = 0
    for line in sys.stdin:
        line = line.rstrip('\n')
        if not line:
            continue
        f = line.split('\t')
        if len(f) != 7 or f[3] not in CONFIGS:
            print(f'lava-jobgen: error: bad job line: {line!r}', file=sys.stderr)
            return 1
        path = os.path.join(args.out, f[0])
        with open(path, 'w') as out:
            out.write(job(f[1:], args.artifacts, args.root, args.base))
        err = check(path)
        if err:
            print(f'lava-jobgen: error: {err}', file=sys.stderr)
            return 1
        n += 1
    if not n:
        print('lava-jobgen: error: no job to write', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
