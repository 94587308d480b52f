"""Parse: a tools/bench/bench.sh run directory (meta.env, runs.env, runs/*/result.ktap)
into meta and runs, and the per-metric figures over the rounds (Stats).

Every "S61BENCH {json}" line of the guests' KTAP results is a sample. Per run
(one boot of one kernel in one round) a metric's value is the median of its
samples; Stats keeps those values per kernel and the ratio B/A (kernel B over
kernel A, i.e. series over base) computed round by round: the pair ratios.
The samples of the P4-at-scale sweep and P6 carry "n", the number of memcgs:
Sweep takes them per (w, m, n), the same way, and pools P6's latency
distributions per kernel and N. Also the number helpers (med, fmt) that
judge and draw share.
"""

import json
import os
import re
import statistics
import sys

PROG = "bench-report"


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(1)


def read_env(path):
    env = {}
    if not os.path.exists(path):
        return env
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def load(rundir):
    meta = read_env(os.path.join(rundir, "meta.env"))
    if not meta:
        die(f"{rundir} has no meta.env: not a tools/bench/bench.sh run directory")
    runs = []
    rinfo = {}
    rpath = os.path.join(rundir, "runs.env")
    if os.path.exists(rpath):
        with open(rpath) as f:
            for line in f:
                d = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
                d = {k: v.strip('"') for k, v in d.items()}
                if "round" in d:
                    rinfo[(int(d["round"]), d["kernel"])] = d
                if "pair" in d:
                    rinfo[("p2par", int(d["pair"]), d["kernel"])] = d
    rounds = int(meta.get("rounds", "0"))
    pairs = int(meta.get("p2_pairs", "0") or 0)
    todo = [(r, k, f"r{r}-{k}", "") for r in range(1, rounds + 1)
            for k in (meta["kernel_a"], meta["kernel_b"])]
    # P2 pairs booted at the same time: their samples count as "p2par".
    todo += [(r, k, f"p2par-r{r}-{k}", "p2par") for r in range(1, pairs + 1)
             for k in (meta["kernel_a"], meta["kernel_b"])]
    if True:
        for r, k, name, phase in todo:
            d = os.path.join(rundir, "runs", name)
            ktap = os.path.join(d, "result.ktap")
            run = {"round": r, "kernel": k, "phase": phase or "rounds", "samples": [], "tests": {},
                   "uname": "", "seconds": None,
                   "rc": (rinfo.get((r, k), {}) if not phase else {}).get("rc"),
                   "host_load_before": rinfo.get((r, k), {}).get("load_before"),
                   "host_load_after": rinfo.get((r, k), {}).get("load_after")}
            if os.path.exists(os.path.join(d, "verdict")):
                with open(os.path.join(d, "verdict")) as f:
                    run["rc"] = f.read().strip()
            if os.path.exists(os.path.join(d, "seconds")):
                with open(os.path.join(d, "seconds")) as f:
                    run["seconds"] = int(f.read().strip() or 0)
            if os.path.exists(ktap):
                run["samples"], run["tests"], run["uname"] = read_ktap(ktap, phase)
            derive(run)
            runs.append(run)
    return meta, runs


def read_ktap(ktap, phase=""):
    """The samples ("S61BENCH {json}" lines, the workload renamed to phase
    when given), the results (name -> "ok ..." or "not ok ...") and the
    kernel ("# kernel RELEASE") of one guest's KTAP result file."""
    samples, tests, uname = [], {}, ""
    with open(ktap, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.search(r"S61BENCH (\{.*\})\s*$", line)
            if m:
                try:
                    smp = json.loads(m.group(1))
                    if not isinstance(smp, dict):
                        raise ValueError("not an object")
                    if phase:
                        smp["w"] = phase
                    samples.append(smp)
                except ValueError:
                    print(f"{PROG}: warning: bad sample in {ktap}: {line}", file=sys.stderr)
                continue
            m = re.match(r"# kernel (\S+)", line)
            if m and not uname:
                uname = m.group(1)
            m = re.match(r"(not ok|ok) \d+ (\S+)(.*)", line)
            if m:
                tests[m.group(2)] = (m.group(1) + m.group(3)).strip()
    return samples, tests, uname


def derive(run):
    """Samples computed from a run's raw ones, marked "derived": P3's
    memory.reclaim time per dentry it freed (each memcg reclaim's latency
    over its freed count): the series frees several times as many dentries
    per reclaim as base, so the latency alone does not compare the cost."""
    p3 = [s for s in run["samples"] if s.get("w") == "p3"]
    ms = {(s.get("pass"), s.get("memcg")): s["v"] for s in p3 if s.get("m") == "memcg_reclaim_ms"}
    for s in p3:
        if s.get("m") != "memcg_freed_dentries" or not s["v"]:
            continue
        k = (s.get("pass"), s.get("memcg"))
        if k in ms:
            run["samples"].append({"w": "p3", "m": "us_per_freed_dentry", "v": 1000.0 * ms[k] / s["v"],
                                   "pass": k[0], "memcg": k[1], "derived": True})


def med(xs):
    return statistics.median(xs) if xs else None


def sample_n(s):
    """The sweep point of a sample (its "n" member: the number of memcgs of
    the P4-at-scale sweep), None for a sample without one."""
    n = s.get("n")
    if n is None:
        return None
    try:
        return int(n)
    except (TypeError, ValueError):
        return None


def matches(s, w, m, n=None):
    """Sample s is of workload w, metric m and, when n is given, sweep point n."""
    return s.get("w") == w and s.get("m") == m and (n is None or sample_n(s) == n)


def run_value(run, w, m, how="median", n=None):
    xs = [s["v"] for s in run["samples"] if matches(s, w, m, n)]
    if not xs:
        return None
    if how == "sum":
        return sum(xs)
    if how == "max":
        return max(xs)
    return statistics.median(xs)


class Stats:
    """One metric on both kernels over the rounds; with n, of the samples of
    that sweep point only (their "n" member), so per (w, m, n)."""

    def __init__(self, meta, runs, w, m, how="median", n=None):
        self.w, self.m, self.n = w, m, n
        ka, kb = meta["kernel_a"], meta["kernel_b"]
        self.a, self.b, self.ratios = [], [], []
        self.all_a, self.all_b = [], []
        phase = "p2par" if w == "p2par" else "rounds"
        runs = [r for r in runs if r.get("phase", "rounds") == phase]
        rounds = sorted({r["round"] for r in runs})
        for rnd in rounds:
            ra = next((r for r in runs if r["round"] == rnd and r["kernel"] == ka), None)
            rb = next((r for r in runs if r["round"] == rnd and r["kernel"] == kb), None)
            va = run_value(ra, w, m, how, n) if ra else None
            vb = run_value(rb, w, m, how, n) if rb else None
            if va is not None:
                self.a.append(va)
            if vb is not None:
                self.b.append(vb)
            if va is not None and vb is not None and va != 0:
                self.ratios.append(vb / va)
            for run, acc in ((ra, self.all_a), (rb, self.all_b)):
                if run:
                    acc.extend(s["v"] for s in run["samples"] if matches(s, w, m, n))

    def ma(self):
        return med(self.a)

    def mb(self):
        return med(self.b)

    def ratio(self):
        return med(self.ratios)



def fmt(v, digits=None):
    if v is None:
        return "–"
    if digits is None:
        a = abs(v)
        digits = 0 if a >= 100 else (1 if a >= 10 else (2 if a >= 0.1 else 3))
    return f"{v:,.{digits}f}".replace(",", " ")



# (workload, metric, how, label, unit)
ROWS = [
    ("p1", "mount_ms", "median", "P1 tmpfs mount while a shrinker is held", "ms"),
    ("p1", "umount_ms", "median", "P1 tmpfs umount while held", "ms"),
    ("p1", "insmod_ms", "median", "P1 insmod of a module with a shrinker while held", "ms"),
    ("p1", "rmmod_ms", "median", "P1 rmmod of it while held", "ms"),
    ("p1", "second_freed", "median", "P1 dentries a second reclaimer freed (of the made ones)", "dentries"),
    ("p2", "ops_per_s", "median", "P2 stress-ng --ramfs", "bogo ops/s"),
    ("p2par", "ops_per_s", "median", "P2 the same, A and B booted at the same time", "bogo ops/s"),
    ("p3", "pass_freed_dentries", "median", "P3 dentries (slab) freed per memcg reclaim pass", "dentries"),
    ("p3", "memcg_reclaim_ms", "median", "P3 memory.reclaim latency under churn", "ms"),
    ("p3", "us_per_freed_dentry", "median", "P3 memory.reclaim time per dentry it freed", "µs"),
    ("p3", "drop_caches_freed_dentries", "median", "P3 dentries freed by drop_caches under churn", "dentries"),
    ("p3", "drop_caches_ms", "median", "P3 drop_caches latency under churn", "ms"),
    ("p3", "skipped", "sum", "P3 memcg reclaims that freed <10% (skipped)", "count"),
    ("p4", "drop_caches_ms", "median", "P4 full pass: drop_caches over all memcgs", "ms"),
    ("p4", "memcg_reclaim_ms", "median", "P4 full pass: memory.reclaim of the parent", "ms"),
    ("p4", "pct_rwsem_in_shrink", "median", "P4 profile: rwsem ops under shrink_slab", "% samples"),
    ("p4", "pct_down_read_trylock", "median", "P4 profile: down_read_trylock (all callers)", "% self"),
    ("p4", "pct_up_read", "median", "P4 profile: up_read (all callers)", "% self"),
    ("p4", "pct_shrink_slab", "median", "P4 profile: shrink_slab", "% self"),
    ("p4", "pct_shrink_slab_memcg", "median", "P4 profile: shrink_slab_memcg", "% self"),
    ("p4", "pct_shrink_on_stack", "median", "P4 profile: samples with shrink_slab* on the stack", "%"),
    ("p4", "setup_ms", "median", "P4 setup of the memcgs (mkdir, mount, 1 MiB file)", "ms"),
    ("p5", "bytes_per_memcg", "median", "P5 memory per memcg for the extra shrinkers", "bytes"),
]

# The P4-at-scale sweep (bench test 70-p4-sweep): workloads whose samples
# carry "n", the number of memcgs, and are taken per (w, m, n).
# (workload, metric, how, label, unit)
SWEEP_ROWS = [
    ("p4s", "setup_ms", "median", "setup: adding the memcgs up to N", "ms"),
    ("p4s", "write_ms", "median", "write phase under the parent's limit", "ms"),
    ("p4s", "reclaim_ms", "median", "memory.reclaim pass of the parent after it", "ms"),
    ("p4s", "wlat_p50_us", "median", "writers' write() latency p50", "µs"),
    ("p4s", "wlat_p99_us", "median", "writers' write() latency p99", "µs"),
    ("p4s", "wlat_max_us", "median", "writers' write() latency max", "µs"),
    ("p4s", "limit_events", "median", "parent memory.events max", "events"),
    ("p4s", "pgscan", "median", "parent pgscan", "pages"),
    ("p4s", "pgsteal", "median", "parent pgsteal", "pages"),
    ("p4s", "slabs_scanned", "median", "slabs_scanned", "objects"),
    ("p4s", "slab_kb_before", "median", "slab before the write phase", "kB"),
    ("p4s", "slab_kb_after", "median", "slab after it", "kB"),
    ("p4s", "pct_down_read_trylock", "median", "profile: down_read_trylock", "% self"),
    ("p4s", "pct_up_read", "median", "profile: up_read", "% self"),
    ("p4s", "pct_shrink_slab", "median", "profile: shrink_slab", "% self"),
    ("p4s", "pct_shrink_slab_memcg", "median", "profile: shrink_slab_memcg", "% self"),
    ("p4s", "pct_do_shrink_slab", "median", "profile: do_shrink_slab", "% self"),
    ("p4s", "pct___rcu_read_lock", "median", "profile: __rcu_read_lock", "% self"),
    ("p4s", "pct___rcu_read_unlock", "median", "profile: __rcu_read_unlock", "% self"),
    ("p4s", "pct__find_next_bit", "median", "profile: _find_next_bit", "% self"),
    ("p4s", "profile_samples", "median", "profile samples", "samples"),
    ("p6", "mount_p50_ms", "median", "P6 tmpfs mount p50 during the write phase", "ms"),
    ("p6", "mount_p99_ms", "median", "P6 tmpfs mount p99", "ms"),
    ("p6", "mount_max_ms", "median", "P6 tmpfs mount max", "ms"),
    ("p6", "umount_p50_ms", "median", "P6 tmpfs umount p50", "ms"),
    ("p6", "umount_p99_ms", "median", "P6 tmpfs umount p99", "ms"),
    ("p6", "umount_max_ms", "median", "P6 tmpfs umount max", "ms"),
    ("p6", "ops", "median", "P6 mount+umount pairs done", "pairs"),
]
SWEEP_WORKLOADS = ("p4s", "p6")
# Distribution samples: v is a count, "ms" a sorted list of latencies.
SWEEP_DISTS = (("p6", "mount_dist"), ("p6", "umount_dist"))


class Sweep:
    """The P4-at-scale sweep and P6 of a run: the sweep points N measured
    (ns), the skipped ones with their reasons, Stats per (w, m, n) of
    SWEEP_ROWS, and the latency distributions pooled per kernel and N over
    the rounds (dist[(w, m, kernel, n)], sorted). False when the run has no
    p4s/p6 sample at all."""

    def __init__(self, meta, runs):
        runs = [r for r in runs if r.get("phase", "rounds") == "rounds"]
        self.ka, self.kb = meta["kernel_a"], meta["kernel_b"]
        self.boots = {(r["kernel"], r["round"]) for r in runs}
        smp = [(r, s) for r in runs for s in r["samples"]
               if s.get("w") in SWEEP_WORKLOADS and sample_n(s) is not None]
        self.present = bool(smp)
        self.ns = sorted({sample_n(s) for _, s in smp if s.get("m") != "skipped"})
        # N -> [(kernel, round, why)]
        self.skipped = {}
        for r, s in smp:
            if s.get("m") == "skipped":
                self.skipped.setdefault(sample_n(s), []).append(
                    (r["kernel"], r["round"], str(s.get("why") or "no reason given")))
        self.all_ns = sorted(set(self.ns) | set(self.skipped))
        self.S = {(w, m, n): Stats(meta, runs, w, m, how, n)
                  for w, m, how, _, _ in SWEEP_ROWS for n in self.ns}
        self.dist = {}
        for w, m in SWEEP_DISTS:
            for k in (self.ka, self.kb):
                for n in self.ns:
                    xs = [x for r in runs if r["kernel"] == k for s in r["samples"]
                          if matches(s, w, m, n) for x in (s.get("ms") or [])
                          if isinstance(x, (int, float))]
                    if xs:
                        self.dist[(w, m, k, n)] = sorted(xs)

    def __bool__(self):
        return self.present

    def get(self, w, m, n):
        return self.S.get((w, m, n))

    def skipped_why(self, n):
        """Why N was skipped, with the boots that skipped it: "why (r1 base,
        r1 tests, ...)" or "why (every boot)", one such part per distinct
        reason."""
        by = {}
        for k, r, why in sorted(self.skipped.get(n, []), key=lambda t: (t[1], t[0])):
            by.setdefault(why, []).append((k, r))
        return "; ".join(f"{why} (" + ("every boot" if set(boots) == self.boots else
                                       ", ".join(f"r{r} {k}" for k, r in boots)) + ")"
                         for why, boots in by.items())

    def summary(self):
        """For the JSON: "w.m" -> {N: {a, b, ratios_b_over_a}}, the sweep
        points, the skipped ones and the pooled distributions."""
        out = {"ns": self.ns, "skipped": {str(n): [{"kernel": k, "round": r, "why": w} for k, r, w in v]
                                          for n, v in sorted(self.skipped.items())},
               "summary": {}, "dists": {}}
        for w, m, _, _, _ in SWEEP_ROWS:
            out["summary"][f"{w}.{m}"] = {str(n): {"a": st.a, "b": st.b, "ratios_b_over_a": st.ratios}
                                          for (w2, m2, n), st in self.S.items() if (w2, m2) == (w, m)}
        for (w, m, k, n), xs in sorted(self.dist.items(), key=lambda x: (x[0][0], x[0][1], x[0][2], x[0][3])):
            out["dists"].setdefault(f"{w}.{m}", {}).setdefault(k, {})[str(n)] = xs
        return out


def load_recorded(path):
    """A report's JSON as draw.write_json wrote it (docs/bench/*.json): a dict
    with meta, runs and summary ("w.m" -> a, b, ratios_b_over_a), or None
    when the file is not one."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(d, dict) and isinstance(d.get("meta"), dict) and "kernel_a" in d["meta"]
            and isinstance(d.get("summary"), dict)):
        return None
    d.setdefault("runs", [])
    return d


def host_loads(runs):
    """The host's 1-minute load average before each boot of the rounds."""
    out = []
    for r in runs:
        if r.get("phase", "rounds") != "rounds":
            continue
        try:
            out.append(float(str(r.get("host_load_before")).split()[0]))
        except (ValueError, IndexError):
            pass
    return out


# The Debian system comparison (tools/debian/compare.sh, issue #27 section 3):
# the samples of the guest suite debian-bench, per kernel (stock, base, top)
# over the rounds. The dcont samples carry "n" (the containers of the run):
# taken per (w, m, n), one row per N seen.
# (workload, metric, how, label, unit)
DEBIAN_ROWS = [
    ("dcont", "setup_ms", "median", "containers: start of the N scopes", "ms"),
    ("dcont", "reclaim_ms", "median", "containers: memory.reclaim of them", "ms"),
    ("dcont", "mount_p50_ms", "median", "containers: tmpfs mount p50", "ms"),
    ("dcont", "mount_p99_ms", "median", "containers: tmpfs mount p99", "ms"),
    ("dcont", "umount_p99_ms", "median", "containers: tmpfs umount p99", "ms"),
    ("dcont", "limit_events", "median", "containers: memory.max events", "events"),
    ("dcont", "teardown_ms", "median", "containers: stop of the N scopes", "ms"),
    ("dp1", "mount_ms", "median", "P1 tmpfs mount while a shrinker is held", "ms"),
    ("dp1", "umount_ms", "median", "P1 tmpfs umount while held", "ms"),
    ("dp2", "ops_per_s", "median", "P2 stress-ng --ramfs", "bogo ops/s"),
    ("dboot", "kernel_ms", "median", "boot: kernel (systemd-analyze)", "ms"),
    ("dboot", "userspace_ms", "median", "boot: userspace to multi-user", "ms"),
    ("dboot", "total_ms", "median", "boot: total", "ms"),
]
