"""Paired before/after runs against another commit of this repository: the repository's command for
every "A against B" speed figure in the docs.

The commit REF (a branch, tag or hash) has its native sources exported into out/vs/SHA (`git
archive`) and built there once (cmake, RelWithDebInfo, the tools the command names). Each command then runs with this tree's build (A) and REF's (B) in turn, A, B,
A, B, ... (load that drifts hits both), PAIRS pairs (at least 5), and the ratio A / B is taken pair by
pair, for the wall time and for the CPU time of the process (user + system; the steadier of the two
on a shared machine); their medians are reported with min and max. The two builds must print the same
output (JSON with its wall-clock keys left out; device times, rows and bytes included), unless the
command's output is not meant to agree.

Used by `bin/smartssd bench pairs --vs B -- A` (any two commands, or one command with two builds)
and `bin/smartssd bench scan --vs REF` (the scan bench's device runs)."""
import json
import os
import resource
import subprocess
import sys
import time

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("csd", "csdd", "bench_mem_limit", "bench_flash", "bench_ahead", "bench_host_scan", "bench_parquet",
         "bench_sandbox", "bench_soak", "bench_pm_scan", "bench_2pm", "bench_remus", "bench_trace_sched")


def resolve(ref):
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", f"{ref}^{{commit}}"], capture_output=True,
                       text=True)
    if r.returncode:
        sys.exit(f"--vs {ref}: not a commit of this repository ({r.stderr.strip()})")
    return r.stdout.strip()


def build_ref(ref, tools=("csd",)):
    """The build directory of REF's native tree: its sources exported with `git archive` into
    out/vs/SHA (no worktree is registered), the tools built there once."""
    sha = resolve(ref)
    tree = os.path.join(ROOT, "out", "vs", sha[:12])
    build = os.path.join(tree, "native", "target", "build")
    if not os.path.isdir(os.path.join(tree, "native")):
        os.makedirs(tree, exist_ok=True)
        arch = subprocess.run(["git", "-C", ROOT, "archive", sha, "native", "proto"], check=True,
                              capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=arch, check=True)
    missing = [t for t in tools if not os.path.exists(os.path.join(build, t))]
    if missing:
        print(f"vs: building {', '.join(missing)} of {ref} ({sha[:12]}) in {os.path.relpath(tree, ROOT)} ...",
              flush=True)
        subprocess.run(["cmake", "-S", os.path.join(tree, "native"), "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", build, "-j2", "--target", *missing], check=True, stdout=subprocess.DEVNULL)
    return sha, build


def with_build(cmd, build):
    """cmd with its tools (csd, bench_*) taken from build."""
    return [os.path.join(build, c) if c in TOOLS else str(c) for c in cmd]


def timed(cmd, timeout=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"{' '.join(cmd)}: took more than {timeout:g} s")
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p.stdout


def comparable(out):
    """What two builds must agree on: JSON without its wall-clock keys, else the text itself."""
    try:
        v = json.loads(out)
    except ValueError:
        return out

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(y) for k, y in x.items() if "wall" not in k and "cpu" not in k}
        if isinstance(x, list):
            return [strip(y) for y in x]
        return x
    return strip(v)


def pairs(cmd_a, cmd_b, n, same_output=True, label="", timeout=None):
    """n pairs of (A, B) runs, A first; returns one dict per pair."""
    if n < 5:
        sys.exit(f"vs: {n} pairs: at least 5")
    out = []
    for i in range(n):
        load = os.getloadavg()[0]
        wa, ca, oa = timed(cmd_a, timeout)
        wb, cb, ob = timed(cmd_b, timeout)
        if same_output and comparable(oa) != comparable(ob):
            sys.exit(f"vs: {label or ' '.join(cmd_a)}: the two builds' outputs differ\nA: {oa[:2000]}\nB: {ob[:2000]}")
        out.append({"run": label, "pair": i, "a_wall_s": wa, "b_wall_s": wb, "a_cpu_s": ca, "b_cpu_s": cb,
                    "wall_ratio": wa / wb, "cpu_ratio": ca / cb if cb else float("nan"), "load": load})
    return out


def summarize(b, label, ps, ref):
    """Headlines: wall and CPU time of label over ref, medians of the pairs' ratios."""
    b.headline(f"wall time, {label} / {ref}", None, "ratio (median of pairs)", samples=[p["wall_ratio"] for p in ps])
    b.headline(f"CPU time, {label} / {ref}", None, "ratio (median of pairs)", samples=[p["cpu_ratio"] for p in ps])


def scan_pairs(b, ref, cases, n):
    """bench scan --vs REF: each device run of the scan with both builds, paired."""
    sha, build = build_ref(ref)
    mine = os.path.dirname(b.tool("csd"))
    rows = []
    for label, args in cases:
        ps = pairs(with_build(["csd"] + args, mine), with_build(["csd"] + args, build), n, label=label)
        rows += ps
        summarize(b, f"{label}: this tree", ps, ref)
    b.write_csv(rows, list(rows[0].keys()), name="vs.csv")
    print(f"vs: paired runs against {ref} ({sha[:12]}): out/bench/{b.name}/vs.csv", flush=True)
