"""Parse: a tools/bench run directory (meta.env, runs.env, runs/*/result.ktap)
into meta and runs, and the per-metric figures over the rounds (Stats).

Every "S61BENCH {json}" line of the guests' KTAP results is a sample. Per run
(one boot of one kernel in one round) a metric's value is the median of its
samples; Stats keeps those values per kernel and the ratio B/A (kernel B over
kernel A, i.e. series over base) computed round by round: the pair ratios.
Also the number helpers (med, fmt) that judge and draw share.
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
        die(f"{rundir} has no meta.env: not a tools/bench run directory")
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
                with open(ktap, errors="replace") as f:
                    for line in f:
                        line = line.rstrip("\n")
                        m = re.search(r"S61BENCH (\{.*\})\s*$", line)
                        if m:
                            try:
                                smp = json.loads(m.group(1))
                                if phase:
                                    smp["w"] = phase
                                run["samples"].append(smp)
                            except ValueError:
                                print(f"{PROG}: warning: bad sample in {ktap}: {line}",
                                      file=sys.stderr)
                            continue
                        m = re.match(r"# kernel (\S+)", line)
                        if m and not run["uname"]:
                            run["uname"] = m.group(1)
                        m = re.match(r"(not ok|ok) \d+ (\S+)(.*)", line)
                        if m:
                            run["tests"][m.group(2)] = (m.group(1) + m.group(3)).strip()
            derive(run)
            runs.append(run)
    return meta, runs


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


def run_value(run, w, m, how="median"):
    xs = [s["v"] for s in run["samples"] if s.get("w") == w and s.get("m") == m]
    if not xs:
        return None
    if how == "sum":
        return sum(xs)
    if how == "max":
        return max(xs)
    return statistics.median(xs)


class Stats:
    """One metric on both kernels over the rounds."""

    def __init__(self, meta, runs, w, m, how="median"):
        self.w, self.m = w, m
        ka, kb = meta["kernel_a"], meta["kernel_b"]
        self.a, self.b, self.ratios = [], [], []
        self.all_a, self.all_b = [], []
        phase = "p2par" if w == "p2par" else "rounds"
        runs = [r for r in runs if r.get("phase", "rounds") == phase]
        rounds = sorted({r["round"] for r in runs})
        for rnd in rounds:
            ra = next((r for r in runs if r["round"] == rnd and r["kernel"] == ka), None)
            rb = next((r for r in runs if r["round"] == rnd and r["kernel"] == kb), None)
            va = run_value(ra, w, m, how) if ra else None
            vb = run_value(rb, w, m, how) if rb else None
            if va is not None:
                self.a.append(va)
            if vb is not None:
                self.b.append(vb)
            if va is not None and vb is not None and va != 0:
                self.ratios.append(vb / va)
            for run, acc in ((ra, self.all_a), (rb, self.all_b)):
                if run:
                    acc.extend(s["v"] for s in run["samples"]
                               if s.get("w") == w and s.get("m") == m)

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
