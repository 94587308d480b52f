#!/usr/bin/python3
"""Convert our test results to KCIDB JSON (schema v4) and check them.

Usage: tools/lab/kcidb.py run RESULT --branch B --commit SHA --config C [options]
       tools/lab/kcidb.py lava RESULTS --job JOB.yaml [--log LOG] [--job-id N] [-o FILE]
       tools/lab/kcidb.py validate FILE...
       tools/lab/kcidb.py compare --lava RESULTS --ktap RESULT

run      a run of tools/boot/guest-test.sh / qemu/run (make boot, make check, the
         boot test): RESULT is its run directory (.work/runs/<time>-<pid>:
         result.ktap, seconds, verdict) or a result.ktap file. Options:
         --suites LIST, --cmdline TEXT (default: qemu/run's for --suites),
         --target NAME (what qemu/expected judges it as; default --branch;
         PARENT..BRANCH for a commit inside a branch), --kcache-key KEY
         (the build's id; default: tools/build/kcache.sh key, or CONFIG-COMMIT12
         without a kernel checkout), --run-id ID (default: the directory's
         name, or the file's).
lava     a LAVA job of tools/lab/lava-jobs.sh: RESULTS is what `lavacli results
         JOB --yaml` prints (the server's export) or the log lava-run
         writes (one YAML mapping a line; its "results" lines); JOB.yaml
         the job definition (branch, commit, config from its metadata).
         The run is judged as qemu/run judges one, on the job's console
         (its "target" lines: of RESULTS when it is lava-run's log, else
         of --log LOG, `lavacli jobs logs --raw JOB`): the splat scan
         (qemu/run --scan-console, qemu/splat-patterns) and the guest's
         KTAP on it (its lines without a printk timestamp) by
         qemu/ktap-summary with the job's suites, qemu/expected for its
         target and config and its command line (every test reported,
         the expected outcomes, the taint and lockdep state) and its
         "s61-exit: 0". The run (path s61) is PASS only when all of that
         holds and no case failed; FAIL when one does not; ERROR when
         LAVA failed, there is no console, or a judge could not run.
validate check KCIDB files against lava/kcidb-schema-v04.json (a subset of
         kcidb-io's v4 schema; python3-jsonschema).
compare  LAVA's test cases against our own KTAP for the same kernel: one
         line per test, exit 1 when any differs (tools/lab/lava-local-run.sh).

Every document written is validated first (exit 1 if it fails). Mapping
(docs/lava.md): checkout = the commit (id s61:<commit>), build = the kernel
(id s61:<kcache key>), test = one KTAP result (path s61.<suite>.<test>,
id s61:<run>:<path>) plus the run itself (path s61). KTAP PASS/FAIL/SKIP
are PASS/FAIL/SKIP; XFAIL is FAIL, waived when qemu/expected expects it.
Runs with Debian's /usr/bin/python3 (python3-yaml, python3-jsonschema).
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True    # no __pycache__ next to qemu/ktap-summary

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover
    print(f'kcidb: error: {e}: install python3-jsonschema and python3-yaml (tools/build/deps.sh lava) '
          'and run this with /usr/bin/python3', file=sys.stderr)
    sys.exit(1)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SCHEMA = os.path.join(ROOT, 'lava', 'kcidb-schema-v04.json')
ORIGIN = 's61'
MONITOR = 's61-ktap'
VERSION = {'major': 4, 'minor': 0}
ENVIRONMENT = 'QEMU x86_64 TCG (-accel tcg -cpu max -smp 2 -m 1G), our initramfs'


class Error(Exception):
    pass


def ktap_summary():
    """qemu/ktap-summary as a module: its KTAP parser and manifest."""
    path = os.path.join(ROOT, 'qemu', 'ktap-summary')
    loader = importlib.machinery.SourceFileLoader('ktap_summary', path)
    spec = importlib.util.spec_from_loader('ktap_summary', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


KS = ktap_summary()


def qemu_cmdline(suites):
    """The command line qemu/run gives the guest for SUITES."""
    return ('console=ttyS0 panic=-1 oops=panic softlockup_panic=1 rdinit=/s61/init '
            f'rd.shell=0 rd.emergency=poweroff loglevel=7 s61.suites={suites}')


class Expect:
    """What qemu/expected expects of each test for a target and config."""

    def __init__(self, target, config, cmdline):
        try:
            self.stack = KS.read_stack(os.path.join(ROOT, 'branch-stack.txt'))
            self.ends = [self.stack[-1] if x == 'top' else x for x in target.split('..', 1)]
            for x in self.ends:
                if x not in self.stack:
                    raise Error(f'target "{x}" is not base or a branch of branch-stack.txt')
            self.rules = KS.read_manifest(os.path.join(ROOT, 'qemu', 'expected'), [], self.stack)
        except KS.HarnessError as e:
            raise Error(str(e))
        self.config, self.cmdline, self.target = config, cmdline, target

    def outcomes(self, name):
        out = []
        for end in self.ends:
            r = KS.expected_for(self.rules, end, self.config, self.cmdline, name, self.stack)
            out.append(r.outcome if r else 'PASS')
        return out


def check_doc(doc):
    with open(SCHEMA) as f:
        schema = json.load(f)
    v = jsonschema.Draft202012Validator(schema)
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f'{"/".join(str(p) for p in e.absolute_path) or "(top)"}: {e.message}' for e in errs]


def objects(branch, commit, config, key, base, judged):
    if not re.fullmatch(r'[0-9a-f]{40}', commit or ''):
        raise Error(f'--commit wants the full 40-digit commit id, not "{commit}"')
    checkout = {
        'id': f'{ORIGIN}:{commit}',
        'origin': ORIGIN,
        'tree_name': 's61-lockless-shrink',
        'git_commit_hash': commit,
        'git_repository_branch': branch,
        'comment': f'{base or "linux-source-6.1"} + the lockless slab shrink series, '
                   f'branch {branch}',
        'valid': True,
        'misc': {'judged_as': judged, 'base': base or ''},
    }
    build = {
        'id': f'{ORIGIN}:{key}',
        'origin': ORIGIN,
        'checkout_id': checkout['id'],
        'architecture': 'x86_64',
        'config_name': config,
        'comment': f'{branch} [{config}]: tools/build/kbuild.sh with qemu/configs/{config}',
        'valid': True,
        'misc': {'kcache_key': key},
    }
    return checkout, build


def test_obj(build, run_id, path, status, **kw):
    t = {'id': f'{ORIGIN}:{run_id}:{path}', 'origin': ORIGIN, 'build_id': build['id'],
         'path': path, 'status': status, 'environment': {'comment': ENVIRONMENT}}
    t.update({k: v for k, v in kw.items() if v not in (None, '', {})})
    return t


def kcache_key(config, commit):
    try:
        r = subprocess.run([os.path.join(ROOT, 'tools', 'build', 'kcache.sh'), 'key', config, commit],
                           capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def stack_base():
    try:
        for line in open(os.path.join(ROOT, 'branch-stack.txt')):
            w = line.split('#', 1)[0].split()
            if w and w[0] == 'base' and len(w) >= 3:
                return f'{w[1]} {w[2]}'
    except OSError:
        pass
    return ''


def read_ktap(path):
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError as e:
        raise Error(f'cannot read {path}: {e}')
    return KS.parse_ktap(lines)


def cmd_run(a):
    if os.path.isdir(a.result):
        ktap = os.path.join(a.result, 'result.ktap')
        rundir = a.result
    else:
        ktap, rundir = a.result, None
    for opt in ('branch', 'commit', 'config'):
        if not getattr(a, opt):
            raise Error(f'run: --{opt} is needed (which branch, commit and config the run booted)')
    plan, rows, early = read_ktap(ktap)
    suites = a.suites or ','.join(dict.fromkeys(r[1].split('.', 1)[0] for r in rows)) or 'smoke'
    cmdline = a.cmdline or qemu_cmdline(suites)
    target = a.target or a.branch
    exp = Expect(target, a.config, cmdline)
    key = a.kcache_key or kcache_key(a.config, a.commit) or f'{a.config}-{a.commit[:12]}'
    checkout, build = objects(a.branch, a.commit, a.config, key, stack_base(), target)
    run_id = a.run_id or os.path.basename(os.path.normpath(rundir or ktap)).replace('.ktap', '')
    start = None
    m = re.match(r'^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})', run_id)
    if m:
        start = '{}-{}-{}T{}:{}:{}+00:00'.format(*m.groups())
    tests = []
    unexpected = 0
    for num, name, state, reason, diag in rows:
        want = exp.outcomes(name)
        as_expected = state in want
        unexpected += not as_expected
        status = {'PASS': 'PASS', 'FAIL': 'FAIL', 'SKIP': 'SKIP', 'XFAIL': 'FAIL'}[state]
        dur = None
        if state == 'PASS':
            d = re.fullmatch(r'(\d+)s', reason)
            dur = float(d.group(1)) if d else None
        comment = reason if state != 'PASS' else ''
        if state == 'FAIL' and diag:
            comment = '; '.join(diag[-3:])
        tests.append(test_obj(build, run_id, f'{ORIGIN}.{name}', status,
                              waived=(state == 'XFAIL' and as_expected) or None,
                              duration=dur, comment=comment[:1000],
                              misc={'ktap_number': num, 'ktap_state': state,
                                    'expected': '|'.join(dict.fromkeys(want)),
                                    'as_expected': as_expected}))
    probs = KS.structure_problems(plan, rows, early, ktap)
    verdict = None
    if rundir and os.path.exists(os.path.join(rundir, 'verdict')):
        verdict = open(os.path.join(rundir, 'verdict')).read().strip()
    if verdict is not None:
        root = {'0': 'PASS', '1': 'FAIL'}.get(verdict, 'ERROR')
    elif probs:
        root = 'ERROR'
    else:
        root = 'FAIL' if unexpected or any(t['status'] == 'FAIL' and not t.get('waived')
                                           for t in tests) else 'PASS'
    secs = None
    if rundir and os.path.exists(os.path.join(rundir, 'seconds')):
        try:
            secs = float(open(os.path.join(rundir, 'seconds')).read().strip())
        except ValueError:
            pass
    tests.insert(0, test_obj(build, run_id, ORIGIN, root, duration=secs, start_time=start,
                             comment='; '.join(probs)[:1000] or f'{len(rows)} results, '
                             f'{unexpected} not as qemu/expected expects ({target}, {a.config})',
                             misc={'suites': suites, 'cmdline': cmdline, 'target': target,
                                   'verdict': verdict if verdict is not None else ''}))
    return {'version': VERSION, 'checkouts': [checkout], 'builds': [build], 'tests': tests}


def lava_cases(path):
    """[(suite, case, name, result)] from a lavacli/server export or a
    lava-run log."""
    try:
        text = open(path, errors='replace').read()
    except OSError as e:
        raise Error(f'cannot read {path}: {e}')
    data = None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        pass
    out = []
    if isinstance(data, list) and all(isinstance(x, dict) and 'suite' in x for x in data):
        for x in data:       # the server's export (lavacli results --yaml)
            meta = x.get('metadata') or {}
            name = None
            extra = meta.get('extra') if isinstance(meta, dict) else None
            if isinstance(extra, list):
                for kv in extra:
                    if isinstance(kv, dict) and 'test_case_id' in kv:
                        name = str(kv['test_case_id'])
            elif isinstance(extra, dict):
                name = extra.get('test_case_id')
            out.append((str(x['suite']), str(x.get('name', '')), name or str(x.get('name', '')),
                        str(x.get('result', 'unknown'))))
        return out
    for line in text.splitlines():   # lava-run's log: one mapping a line
        line = line.strip()
        if line.startswith('- '):
            line = line[2:]
        if '"results"' not in line:
            continue
        try:
            rec = yaml.safe_load(line)
        except yaml.YAMLError:
            continue
        if not isinstance(rec, dict) or rec.get('lvl') != 'results' or not isinstance(rec.get('msg'), dict):
            continue
        msg = rec['msg']
        extra = msg.get('extra') if isinstance(msg.get('extra'), dict) else {}
        out.append((str(msg.get('definition', '')), str(msg.get('case', '')),
                    str(extra.get('test_case_id') or msg.get('case', '')), str(msg.get('result', 'unknown'))))
    if not out:
        raise Error(f'{path}: no LAVA results in it (want `lavacli results JOB --yaml` output or a lava-run log)')
    return out


def lava_console(path):
    """The console of a LAVA job log (lava-run's log, `lavacli jobs logs
    --raw`): the text of its "target" records, in order."""
    try:
        text = open(path, errors='replace').read()
    except OSError as e:
        raise Error(f'cannot read {path}: {e}')
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('- '):
            line = line[2:]
        if 'target' not in line:
            continue
        try:
            rec = yaml.safe_load(line)
        except yaml.YAMLError:
            continue
        if isinstance(rec, dict) and rec.get('lvl') == 'target' and isinstance(rec.get('msg'), str):
            out.append(rec['msg'])
    return out


def cmdline_arg(cmdline, name, default=''):
    for w in cmdline.split():
        if w.startswith(name + '='):
            return w[len(name) + 1:]
    return default


PRINTK_RE = re.compile(r'^\[ *[0-9]+\.[0-9]+\]')


def judge_console(console, judged, config, cmdline):
    """qemu/run's judgement of a LAVA job's console: (status, reasons),
    status 'PASS', 'FAIL' or 'ERROR' (a judge that could not run)."""
    if not console:
        return 'ERROR', ['no console to judge (give the job log: --log, `lavacli jobs logs --raw JOB`)']
    why, errors = [], []
    with tempfile.TemporaryDirectory(prefix='kcidb-lava-') as d:
        con, res = os.path.join(d, 'console.log'), os.path.join(d, 'result.ktap')
        with open(con, 'w') as f:
            f.write('\n'.join(console) + '\n')
        # The guest's own lines (the init writes them to the console as to
        # its result port); kernel lines carry a printk timestamp.
        ktap = [x for x in console if not PRINTK_RE.match(x) and not x.startswith('s61-lava-')]
        with open(res, 'w') as f:
            f.write('\n'.join(ktap) + '\n')
        scan = subprocess.run([os.path.join(ROOT, 'qemu', 'run'), '--scan-console', con],
                              capture_output=True, text=True)
        if scan.returncode == 1:
            why.append('console: ' + ' '.join(scan.stdout.split('\n')[:3]).strip())
        elif scan.returncode != 0:
            errors.append(f'the splat scan (qemu/run --scan-console) exited {scan.returncode}: '
                          + (scan.stderr or scan.stdout).strip()[:300])
        ks = [sys.executable, os.path.join(ROOT, 'qemu', 'ktap-summary'),
              '--suites', cmdline_arg(cmdline, 's61.suites', 'smoke'),
              '--expect', os.path.join(ROOT, 'qemu', 'expected'), '--target', judged,
              '--config', config, '--cmdline', cmdline]
        only = cmdline_arg(cmdline, 's61.only')
        if only:
            ks += ['--only', only]
        k = subprocess.run(ks + [res], capture_output=True, text=True)
        if k.returncode == 1:
            bad = [x.strip() for x in k.stdout.splitlines() + k.stderr.splitlines()
                   if re.search(r'FAIL|not |missing|expected|tainted|debug_locks|no ', x)]
            why.append('results: ' + ('; '.join(bad[:5]) or 'qemu/ktap-summary failed them'))
        elif k.returncode != 0:
            errors.append(f'qemu/ktap-summary exited {k.returncode}: ' + (k.stderr or k.stdout).strip()[:300])
    exits = [x for x in ktap if x.startswith('s61-exit: ')]
    if not exits:
        why.append('no "s61-exit:" line (the guest stopped before its end)')
    elif exits[-1] != 's61-exit: 0':
        why.append(f'the guest ended with "{exits[-1]}"')
    if errors:
        return 'ERROR', errors + why
    return ('FAIL' if why else 'PASS'), why


def read_job(path):
    try:
        job = yaml.safe_load(open(path))
        meta = job['metadata']
        arg = job['actions'][0]['deploy']['images']['kernel']['image_arg']
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError) as e:
        raise Error(f'{path}: not a job of tools/lab/lava-jobs.sh ({type(e).__name__}: {e})')
    m = re.search(r'-append "([^"]*)"', arg)
    return meta, (m.group(1) if m else '')


def cmd_lava(a):
    meta, cmdline = read_job(a.job)
    for k in ('s61.branch', 's61.commit', 's61.config', 's61.kcache_key'):
        if k not in meta:
            raise Error(f'{a.job}: metadata has no {k} (not written by tools/lab/lava-jobs.sh?)')
    judged = meta.get('s61.judged_as', meta['s61.branch'])
    exp = Expect(judged, meta['s61.config'], cmdline)
    checkout, build = objects(meta['s61.branch'], meta['s61.commit'], meta['s61.config'],
                              meta['s61.kcache_key'], meta.get('s61.base', ''), judged)
    cases = lava_cases(a.results)
    console = lava_console(a.log or a.results)
    run_id = f'lava-{a.job_id}' if a.job_id else 'lava-' + os.path.basename(a.results).split('.')[0]
    tests, infra_fail, failed = [], [], False
    for suite, case, name, result in cases:
        if suite == 'lava':
            if result == 'fail':
                infra_fail.append(case)
            continue
        if suite != MONITOR:
            continue
        want = exp.outcomes(name)
        status = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP'}.get(result, 'ERROR')
        waived = status == 'FAIL' and 'XFAIL' in want
        failed |= status == 'FAIL' and not waived
        tests.append(test_obj(build, run_id, f'{ORIGIN}.{name}', status, waived=waived or None,
                              comment='fail where qemu/expected expects XFAIL (LAVA has no xfail)'
                              if waived else '',
                              misc={'lava_case': case, 'lava_result': result,
                                    'expected': '|'.join(dict.fromkeys(want))}))
    jstatus, jwhy = judge_console(console, judged, meta['s61.config'], cmdline)
    if infra_fail:
        root, comment = 'ERROR', 'LAVA reported failures: ' + ', '.join(infra_fail)
    elif jstatus == 'ERROR':
        root, comment = 'ERROR', 'not judged: ' + '; '.join(jwhy)
    elif failed or jstatus == 'FAIL':
        root = 'FAIL'
        comment = '; '.join((['a LAVA case failed'] if failed else []) + jwhy)
    else:
        root, comment = 'PASS', (f'{len(tests)} LAVA test cases of {MONITOR}; console judged as qemu/run '
                                 'judges a run: no splat, every test as expected, state clean')
    for w in jwhy:
        print(f'kcidb lava: {root}: {w}', file=sys.stderr)
    tests.insert(0, test_obj(build, run_id, ORIGIN, root,
                             comment=comment[:1000],
                             misc={'lava_job_id': a.job_id or '', 'cmdline': cmdline,
                                   'target': judged}))
    return {'version': VERSION, 'checkouts': [checkout], 'builds': [build], 'tests': tests}


LAVA_OF = {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip', 'XFAIL': 'fail'}


def cmd_compare(a):
    _plan, rows, _early = read_ktap(a.ktap)
    ours = {name: state for _n, name, state, _r, _d in rows}
    lava = {name: result for suite, _c, name, result in lava_cases(a.lava) if suite == MONITOR}
    diff = 0
    print(f'{"test":40} {"ours (KTAP)":12} {"LAVA":8} agree')
    for name in list(dict.fromkeys(list(ours) + list(lava))):
        o, lv = ours.get(name), lava.get(name)
        same = o is not None and lv is not None and LAVA_OF[o] == lv
        diff += not same
        print(f'{name:40} {o or "-":12} {lv or "-":8} {"yes" if same else "NO"}')
    print(f'{len(ours)} ours, {len(lava)} LAVA, {diff} differ')
    return 1 if diff else 0


def write(doc, out):
    errs = check_doc(doc)
    if errs:
        raise Error('the KCIDB document does not validate against lava/kcidb-schema-v04.json:\n  '
                    + '\n  '.join(errs[:10]))
    text = json.dumps(doc, indent=1) + '\n'
    if out and out != '-':
        with open(out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    ap = argparse.ArgumentParser(prog='tools/lab/kcidb.py', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd')
    r = sub.add_parser('run')
    r.add_argument('result')
    for o in ('branch', 'commit', 'config', 'suites', 'cmdline', 'target', 'kcache-key', 'run-id'):
        r.add_argument('--' + o)
    r.add_argument('-o', '--out')
    lv = sub.add_parser('lava')
    lv.add_argument('results')
    lv.add_argument('--job', required=True)
    lv.add_argument('--job-id')
    lv.add_argument('--log', help="the job's log, for its console (lavacli jobs logs --raw JOB)")
    lv.add_argument('-o', '--out')
    v = sub.add_parser('validate')
    v.add_argument('files', nargs='+')
    c = sub.add_parser('compare')
    c.add_argument('--lava', required=True)
    c.add_argument('--ktap', required=True)
    a = ap.parse_args()
    try:
        if a.cmd == 'run':
            write(cmd_run(a), a.out)
        elif a.cmd == 'lava':
            write(cmd_lava(a), a.out)
        elif a.cmd == 'validate':
            bad = 0
            for p in a.files:
                try:
                    doc = json.load(open(p))
                except (OSError, ValueError) as e:
                    print(f'kcidb: error: {p}: {e}', file=sys.stderr)
                    bad += 1
                    continue
                errs = check_doc(doc)
                if errs:
                    bad += 1
                    print(f'kcidb: error: {p} is not valid KCIDB v4 (lava/kcidb-schema-v04.json):',
                          file=sys.stderr)
                    for e in errs[:10]:
                        print(f'  {e}', file=sys.stderr)
                else:
                    print(f'{p}: valid KCIDB v4 (subset schema)')
            return 1 if bad else 0
        elif a.cmd == 'compare':
            return cmd_compare(a)
        else:
            ap.print_help()
            return 2
    except Error as e:
        print(f'kcidb: error: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
