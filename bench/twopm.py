"""bench 2pm: the 2PM paper's evaluation (Yoon et al., "Two-Stage In-Storage Processing and Scheduling
for Pattern Matching Applications", IEEE Access 2021, section V) on the engine and flash model with the
2pm preset (Table 1), from the C harness bench_2pm. Every tasklet request runs the two-stage grep2
tasklet over generated text (key requests hold matching lines), with host writes and background
migration on the same chips; its count is checked against the lines planted.

The configuration docs/2PM.md names as faithful to the paper ("faithful" below): tasklet requests and
host writes on separate paths into the device (the paper's multi-stream request queue, III-B), 16
tasklet requests in the group at all times (Table 1's queue depth per group), host writes holding the
mix's share of the device (16 w / (1 - w) for write share w), key requests 1-5 % of the tasklet
requests (3 % on average, what the paper's Fig. 9 pair implies), the baseline PAQ as the paper
describes it (conflict-free groups, no read priority). Each figure is the mean over the workloads of
each workload's change against the baseline, with a 95 % confidence interval over seeds.

  Fig. 9    16 workloads x seeds under paq (the baseline), fcfs, readfirst (2PM's basic rules alone),
            slacker, cars, flin (and flin-src, cars at the host queue), 2pm, 2pm-sl, 2pm-as, 2pm+
            (paper: 2PM -52.6 % key, +1.5 % non-key; Slacker -4.5 / -5.4 %; CARS, FLIN 1-3 % better)
  Fig. 10   the wait of a landed page for its first stage, out of order (as run) and in order
  Fig. 11   the delay of key requests against paq, 2pm and 2pm+ (paper: -79.8 %, ~3 %, p99.99 < 1 ms)
  Fig. 12   sensitivity: queue depth, sub-request queue size, chips per group (paper: trends only)
  knobs     what the paper leaves open, swept: pass bound, key share, matching lines per page, request
            sizes, write intensity, one shared path (the earlier setup), open loop from MSR-format
            traces at several loads (with CARS at the host queue), program/erase suspension
  jobs      a grep job under a host writer through the device's object commands (bench_2pm_jobs)
  real jobs Hadoop grep and Spark LIKE through grep2 on a daemon beside a host writer, per chip policy

usage: bin/smartssd bench 2pm [--quick] [--jobs] [--no-real-jobs]
       --quick: 4 workloads x 2 seeds of 600 requests, a few sweep points, no jobs (a few minutes)
       default: 16 workloads x 5 seeds of 1000 requests, every sweep, the jobs and the real jobs
       --jobs:  only the real jobs (a few minutes)
       --no-real-jobs: all but the Hadoop and Spark jobs (no JVM needed)
       SMARTSSD_BENCH_JOBS=N runs N harnesses at once (default 2)
docs/2PM.md explains the setup and where our model differs from the paper's.
"""
import concurrent.futures
import csv
import io
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

POLICIES = ["paq", "fcfs", "readfirst", "slacker", "cars", "flin", "flin-src", "2pm", "2pm-sl", "2pm-as", "2pm+"]
BASE = "paq"
# the faithful configuration (docs/2PM.md): everything else is bench_2pm's default (isp-qd 16, the
# workload's sizes and matching lines per page, the preset's chip_max_passes 8)
FAITHFUL = ["--write-qd", "mix", "--host", "rr", "--key-scale", "0.1"]
SUBSET = [2, 7, 9, 12]        # one workload of each kind and one more balanced, for the sweeps
NAME = {"paq": "PAQ", "fcfs": "FCFS", "readfirst": "readfirst (2PM's basic rules)", "slacker": "Slacker",
        "cars": "CARS (chip-queue adaptation)", "cars-host": "CARS (host queue)", "flin": "FLIN",
        "flin-src": "FLIN (every source a flow)", "2pm": "2PM", "2pm-sl": "2PM + slack-aware insertion",
        "2pm-as": "2PM + anti-starvation", "2pm+": "2PM+"}
PAPER_KEY = {"2pm+": -52.6, "slacker": -4.5, "cars": -2.0, "flin": -2.0, "cars-host": -2.0}
PAPER_NONKEY = {"2pm+": 1.5, "slacker": -5.4, "cars": -2.0, "flin": -2.0, "cars-host": -2.0}
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def kind_of(workload):
    return {"w": "write-intensive", "b": "balanced", "r": "read-intensive"}[workload[0]]


def ci(values):
    """mean, 95 % t-interval (low, high), n"""
    n = len(values)
    m = statistics.mean(values)
    if n < 2:
        return m, m, m, n
    h = T95.get(n - 1, 1.96) * statistics.stdev(values) / math.sqrt(n)
    return m, m - h, m + h, n


class Runs:
    """bench_2pm invocations, N at once; each runs one workload under several policies (paired: the same
    requests, contents and arrivals) and returns its rows."""

    def __init__(self, b, requests):
        self.b, self.requests, self.exe = b, requests, b.tool("bench_2pm")
        self.jobs = int(os.environ.get("SMARTSSD_BENCH_JOBS", "2"))
        self.rows = []

    def run(self, exp, workloads, seeds, policies, args=(), **tags):
        exp = exp.replace(",", "-")   # a CSV field
        cmds = [[self.exe, "--exp", exp, "--seed", s, "--requests", self.requests, "--policies", ",".join(policies),
                 *args, "run", w] for s in seeds for w in workloads]
        out = []
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as ex:
            for text in ex.map(lambda c: self.b.run(*c), cmds):
                for r in csv.DictReader(io.StringIO(text)):
                    for k in list(r):
                        if k not in ("exp", "workload", "policy", "host"):
                            r[k] = float(r[k])
                    r.update(tags)
                    out.append(r)
        self.rows += out
        return out


def rel(rows, metric, base=BASE):
    """{(workload, seed): {policy: metric / base's - 1, in %}} over rows of one experiment"""
    b = {(r["workload"], r["seed"]): r[metric] for r in rows if r["policy"] == base}
    out = {}
    for r in rows:
        k = (r["workload"], r["seed"])
        if b.get(k):
            out.setdefault(k, {})[r["policy"]] = 100.0 * (r[metric] / b[k] - 1)
    return out


def per_seed(rr, policy, keep=lambda w: True):
    """the mean over workloads of each workload's change, one value per seed"""
    seeds = sorted({s for (_, s) in rr})
    return [statistics.mean(v[policy] for (w, s), v in rr.items() if s == seed and keep(w) and policy in v)
            for seed in seeds if any(s == seed and keep(w) and policy in v for (w, s), v in rr.items())]


def entry(b, name, values, unit="%", paper=None, setup="faithful", digits=1, **extra):
    m, lo, hi, n = ci(values)
    b.headline(name, round(m, digits), unit, paper=paper, ci_low=round(lo, digits), ci_high=round(hi, digits),
               samples=n, setup=setup, **extra)
    return m, lo, hi


def with_arg(args, flag, value=None):
    """args without flag (and its value), then flag value if value is given"""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == flag:
            skip = True
        else:
            out.append(a)
    return out + ([flag, value] if value is not None else [])


def claim(b, text, holds, why):
    b.headline(f"claim: {text}", 1 if holds else 0, "holds", evidence=why)


def main(b):
    quick = "--quick" in b.args
    if "--jobs" in b.args:
        rows = real_jobs(b, quick)
        b.write_csv(rows)
        b.finish(rows, list(rows[0].keys()))
        return
    t0 = time.time()
    R = Runs(b, "600" if quick else "1000")
    seeds = ["1", "2"] if quick else ["1", "2", "3", "4", "5"]
    sweep_seeds = ["1"] if quick else ["1", "2"]
    all_w = [str(w) for w in (SUBSET if quick else range(16))]
    sub = [str(w) for w in SUBSET]

    # ---- Fig. 9 on the faithful configuration ---------------------------------------------------------
    fig9 = R.run("fig9", all_w, seeds, POLICIES, FAITHFUL + ["--delay-base", "readfirst"])
    # CARS where its paper puts it: the device's fetch from the submission queues (chips FCFS)
    for r in R.run("fig9-cars-host", all_w, seeds, ["fcfs"], with_arg(FAITHFUL, "--host", "cars")):
        r["policy"] = "cars-host"
        fig9.append(r)
    key, non = rel(fig9, "key_ns"), rel(fig9, "nonkey_ns")
    nw = len({w for (w, _) in key})
    for p in ["2pm+", "2pm"] + [q for q in POLICIES + ["cars-host"] if q not in ("paq", "2pm", "2pm+")]:
        label = "2PM+" if p == "2pm+" else "2PM" if p == "2pm" else NAME[p]
        entry(b, f"Fig. 9: {label} key-request latency vs PAQ", per_seed(key, p), paper=PAPER_KEY.get(p),
              workloads=nw)
        entry(b, f"Fig. 9: {label} non-key latency vs PAQ", per_seed(non, p), paper=PAPER_NONKEY.get(p),
              workloads=nw)
    kb, nb = rel(fig9, "key_ns", "readfirst"), rel(fig9, "nonkey_ns", "readfirst")
    for p, label in (("2pm+", "2PM+"), ("2pm", "2PM"), ("2pm-sl", NAME["2pm-sl"]), ("2pm-as", NAME["2pm-as"]),
                     ("slacker", "Slacker")):
        entry(b, f"Fig. 9 against 2PM's basic rules: {label} key-request latency vs readfirst", per_seed(kb, p),
              workloads=nw)
        entry(b, f"Fig. 9 against 2PM's basic rules: {label} non-key latency vs readfirst", per_seed(nb, p),
              workloads=nw)
    for kind in ("write-intensive", "balanced", "read-intensive"):
        if any(kind_of(w) == kind for (w, _) in key):
            entry(b, f"Fig. 9: 2PM+ key-request latency vs PAQ, {kind} workloads",
                  per_seed(key, "2pm+", lambda w: kind_of(w) == kind))
            entry(b, f"Fig. 9: 2PM+ key-request latency vs readfirst, {kind} workloads",
                  per_seed(kb, "2pm+", lambda w: kind_of(w) == kind))
    wls = sorted({w for (w, _) in key})
    mean_by_w = lambda rr, p: [statistics.mean(v[p] for (w2, _), v in rr.items() if w2 == w) for w in wls]
    shown = ["fcfs", "readfirst", "slacker", "cars", "flin", "2pm", "2pm+"]
    for name, rr in (("key", key), ("nonkey", non)):
        b.plot(f"fig9_{name}.png", f"Fig. 9: {name} request latency vs PAQ (faithful configuration)", "workload",
               f"{name} latency change vs PAQ (%)", {p: (wls, mean_by_w(rr, p)) for p in shown}, kind="bar",
               legend_below=True)
    b.plot("fig9_basic.png", "Fig. 9 against 2PM's basic rules (readfirst)", "workload",
           "key latency change vs readfirst (%)", {p: (wls, mean_by_w(kb, p)) for p in ("2pm", "2pm-sl", "2pm-as", "2pm+")},
           kind="bar", legend_below=True)
    for p in ("readfirst", "2pm"):
        det = [r["key_detect_ns"] / r["key_ns"] for r in fig9 if r["policy"] == p and r["key_ns"] and r["key_detected"]]
        if det:
            b.headline(f"key requests under {NAME[p]}: first matching page classified at this share of their latency (mean)",
                       round(100.0 * statistics.mean(det), 1), "%", setup="faithful")
    util = {p: statistics.mean(r["chip_util"] for r in fig9 if r["policy"] == p) for p in ("paq", "fcfs", "readfirst", "2pm+")}
    for p, u in util.items():
        b.headline(f"chips busy under {NAME[p]} (share of the run, mean)", round(100.0 * u, 1), "%", setup="faithful")

    # ---- Fig. 11: the delay of key requests against the baseline (PAQ; and readfirst, columns *_b) --------
    by = {(r["workload"], r["seed"], r["policy"]): r for r in fig9}
    fseeds = sorted({r["seed"] for r in fig9})
    f11 = {}
    for sfx, bn in (("", "PAQ"), ("_b", "readfirst")):
        tot = {p: [sum(by[(w, s, p)][f"delay_total{sfx}_ns"] for w in wls) for s in fseeds] for p in ("2pm", "2pm+")}
        vals = [100.0 * (a / c - 1) for a, c in zip(tot["2pm+"], tot["2pm"]) if c]
        if vals:
            f11[bn] = entry(b, f"Fig. 11: total delay of key requests vs {bn}, 2PM+ against 2PM (anti-starvation)", vals,
                            paper=-79.8 if bn == "PAQ" else None)[0]
        for p, label in (("2pm+", "2PM+"), ("2pm", "2PM")):
            share = [100.0 * sum(by[(w, s, p)][f"delayed_key{sfx}"] for w in wls) /
                     sum(by[(w, s, p)]["isp_key"] + by[(w, s, p)]["isp_nonkey"] + by[(w, s, p)]["writes"] for w in wls)
                     for s in fseeds]
            entry(b, f"Fig. 11: key requests delayed vs {bn} under {label}, share of all requests", share,
                  paper=3.0 if (p, bn) == ("2pm+", "PAQ") else None, digits=2)
        b.headline(f"Fig. 11: p99.99 delay of a key request vs {bn} under 2PM+ (largest over workloads and seeds)",
                   round(max(r[f"delay_p9999{sfx}_ns"] for r in fig9 if r["policy"] == "2pm+") / 1e6, 3), "ms",
                   paper=1.0 if bn == "PAQ" else None, setup="faithful")
        b.plot(f"fig11_delay{sfx}.png", f"Fig. 11: total delay of key requests against {bn}", "workload", "total delay (ms)",
               {p: (wls, [statistics.mean(by[(w, s, p)][f"delay_total{sfx}_ns"] for s in fseeds) / 1e6 for w in wls])
                for p in ("2pm", "2pm+")}, kind="bar")
    p9999 = max(r["delay_p9999_ns"] for r in fig9 if r["policy"] == "2pm+") / 1e6

    # ---- the pass bound (IV-D), swept ---------------------------------------------------------------------
    passes = ["1", "8", "0"] if quick else ["1", "2", "4", "8", "16", "0"]
    pass_rows = []
    for n in passes:
        # 2pm-as: anti-starvation alone, to tell the guard's cost from the bound's
        pols = ["paq", "readfirst", "2pm", "2pm+"] + (["2pm-as"] if n in ("0", "8") else [])
        pass_rows += R.run(f"passes-{n}", sub, sweep_seeds, pols, FAITHFUL + ["--passes", n], sweep="passes", value=int(n))
    series = {"2pm+ vs PAQ": [], "2pm+ vs readfirst": []}
    for n in passes:
        rows = [r for r in pass_rows if r["value"] == int(n)]
        bound = "unbounded" if n == "0" else n
        m1, _, _ = entry(b, f"pass bound {bound}: 2PM+ key-request latency vs PAQ", per_seed(rel(rows, "key_ns"), "2pm+"),
                         setup="faithful, 4 workloads")
        m2, _, _ = entry(b, f"pass bound {bound}: 2PM+ key-request latency vs readfirst",
                         per_seed(rel(rows, "key_ns", "readfirst"), "2pm+"), setup="faithful, 4 workloads")
        d2 = sum(r["delay_total_ns"] for r in rows if r["policy"] == "2pm")
        d3 = sum(r["delay_total_ns"] for r in rows if r["policy"] == "2pm+")
        if d2:
            b.headline(f"pass bound {bound}: Fig. 11 total delay, 2PM+ against 2PM", round(100.0 * (d3 / d2 - 1), 1), "%",
                       setup="faithful, 4 workloads")
        if n in ("0", "8"):
            entry(b, f"pass bound {bound}: 2PM + anti-starvation key-request latency vs readfirst",
                  per_seed(rel(rows, "key_ns", "readfirst"), "2pm-as"), setup="faithful, 4 workloads")
        series["2pm+ vs PAQ"].append(m1)
        series["2pm+ vs readfirst"].append(m2)
    xs = [int(n) if n != "0" else 64 for n in passes]
    b.plot("passes.png", "2PM+'s pass bound (chip_max_passes; 64 = unbounded)", "pass bound (swaps)",
           "key latency change (%)", {k: (xs, v) for k, v in series.items()}, logx=True)

    # ---- what the paper leaves open, swept ---------------------------------------------------------------
    knob_pol = ["paq", "readfirst", "2pm", "2pm+"]
    knobs = {
        "key share": ("--key", ["0.01", "0.5"] if quick else ["0.01", "0.03", "0.1", "0.5"]),
        "matching lines per page": ("--density", ["2"] if quick else ["0.1", "0.5", "2"]),
        "tasklet request pages": ("--isp-pages", ["2,4,8,16"] if quick else ["2,4,8,16", "8,16,32,64", "32,64,128,256"]),
        "write share": ("--write-frac", ["0.1"] if quick else ["0", "0.3", "0.7"]),
    }
    for knob, (flag, values) in knobs.items():
        pts = {"2pm vs PAQ": [], "2pm+ vs PAQ": [], "2pm vs readfirst": [], "2pm+ vs readfirst": []}
        for v in values:
            args = with_arg(with_arg(FAITHFUL, "--key-scale") if flag == "--key" else FAITHFUL, flag, v)
            rows = R.run(f"knob-{flag[2:]}-{v}", sub, sweep_seeds, knob_pol, args, sweep=knob, value=v)
            for p in ("2pm", "2pm+"):
                for base in ("paq", "readfirst"):
                    m, _, _ = entry(b, f"{knob} {v}: {p.upper()} key-request latency vs {base if base != 'paq' else 'PAQ'}",
                                    per_seed(rel(rows, "key_ns", base), p), setup="faithful, 4 workloads")
                    pts[f"{p} vs {'PAQ' if base == 'paq' else base}"].append(m)
            entry(b, f"{knob} {v}: 2PM+ non-key latency vs readfirst", per_seed(rel(rows, "nonkey_ns", "readfirst"), "2pm+"),
                  setup="faithful, 4 workloads")
        # sizes: the mean of the four, in pages
        xs = [statistics.mean(float(x) for x in v.split(",")) for v in values]
        unit = {"key share": "share of tasklet requests", "matching lines per page": "lines per page of a key request",
                "tasklet request pages": "mean pages of a tasklet request", "write share": "share of requests"}[knob]
        b.plot(f"knob_{flag[2:]}.png", f"{knob} (faithful configuration otherwise)", f"{knob} ({unit})",
               "key latency change (%)", {k: (xs, v) for k, v in pts.items()}, logx=knob == "tasklet request pages")

    # ---- where detection comes earlier, and deeper queues ----------------------------------------------
    if not quick:
        for label, args in (("no host writes, 2 matching lines per page, no pass bound",
                             ["--write-frac", "0", "--density", "2", "--passes", "0"]),
                            ("no host writes, 2 matching lines per page", ["--write-frac", "0", "--density", "2"]),
                            ("32 tasklet requests in the group, sub-request queue 32", ["--isp-qd", "32", "--slots", "32"])):
            rows = R.run("extra-" + label.replace(" ", "-"), sub, sweep_seeds, knob_pol, FAITHFUL + args)
            for p in ("2pm", "2pm+"):
                for base, bn in (("paq", "PAQ"), ("readfirst", "readfirst")):
                    entry(b, f"{label}: {p.upper()} key-request latency vs {bn}", per_seed(rel(rows, "key_ns", base), p),
                          setup="faithful otherwise, 4 workloads")
            det = [r["key_detect_ns"] / r["key_ns"] for r in rows if r["policy"] == "readfirst" and r["key_detected"]]
            b.headline(f"{label}: first matching page classified at this share of a key request's latency under readfirst",
                       round(100.0 * statistics.mean(det), 1), "%", setup="faithful otherwise, 4 workloads")

    # ---- one shared path (the earlier setup) against separate paths -------------------------------------
    for label, args in (("one shared path of 16 (writes take tasklet slots)", ["--write-qd", "0", "--key-scale", "0.1"]),
                        ("separate paths, 16 host writes in flight", ["--write-qd", "16", "--host", "rr", "--key-scale", "0.1"])):
        rows = R.run(f"paths-{args[1]}", sub, sweep_seeds, knob_pol, args)
        for p in ("2pm", "2pm+"):
            entry(b, f"{label}: {p.upper()} key-request latency vs readfirst", per_seed(rel(rows, "key_ns", "readfirst"), p),
                  setup="ablation, 4 workloads")
            entry(b, f"{label}: {p.upper()} key-request latency vs PAQ", per_seed(rel(rows, "key_ns"), p),
                  setup="ablation, 4 workloads")

    # ---- open loop: the mixes as timed MSR-format traces -------------------------------------------------
    mixdir = os.path.join(b.out, "mixes")
    os.makedirs(mixdir, exist_ok=True)
    loads = ["0.5"] if quick else ["0.5", "0.9"]
    for w in sub:
        b.run(R.exe, "--seed", "1", "--requests", R.requests, "--key-scale", "0.1", "mix", w, os.path.join(mixdir, f"w{w}.csv"))
    open_pts = {f"{p} vs {base}": [] for p in ("2pm", "2pm+") for base in ("PAQ", "readfirst")}
    for load in loads:
        rows = []
        for w in sub:
            for host_sched in ("rr", "cars"):
                pols = knob_pol + ["fcfs"] if host_sched == "rr" else ["paq", "fcfs"]
                got = R.run(f"open-{load}-{host_sched}", [w], ["1"], pols, ["--trace", os.path.join(mixdir, f"w{w}.csv"),
                            "--load", load, "--host", host_sched, "--key-scale", "0.1"], sweep="load", value=load)
                for r in got:
                    if host_sched == "cars":
                        r["policy"] = "cars-host" if r["policy"] == "fcfs" else "paq-cars"
                rows += got
        for p in ("2pm", "2pm+"):
            for base, bn in (("paq", "PAQ"), ("readfirst", "readfirst")):
                vals = list(rel(rows, "key_ns", base).values())
                m = statistics.mean(v[p] for v in vals)
                b.headline(f"open loop at load {load} (MSR-format traces): {p.upper()} key-request latency vs {bn}",
                           round(m, 1), "%", setup="open loop, 4 workloads, 1 seed")
                open_pts[f"{p} vs {bn}"].append(m)
        vals = list(rel(rows, "key_ns", "fcfs").values())
        b.headline(f"open loop at load {load}: CARS (host queue, FCFS chips) key-request latency vs round robin (FCFS chips)",
                   round(statistics.mean(v["cars-host"] for v in vals), 1), "%", setup="open loop, 4 workloads, 1 seed")
        dev = [r["key_dev_ns"] / r["key_ns"] for r in rows if r["policy"] == "readfirst" and r["key_ns"]]
        b.headline(f"open loop at load {load}: share of a key request's latency under readfirst spent in the device",
                   round(100.0 * statistics.mean(dev), 1), "%", setup="open loop, 4 workloads, 1 seed")
    b.plot("open_loop.png", "Open loop from MSR-format traces: key latency change vs offered load",
           "offered load (share of the chips' time)", "key latency change (%)",
           {k: ([float(l) for l in loads], v) for k, v in open_pts.items()})

    # ---- program/erase suspension ------------------------------------------------------------------------
    rows_on = R.run("suspend", sub, sweep_seeds, ["paq", "fcfs", "readfirst", "2pm", "2pm+"], FAITHFUL + ["--suspend", "1"])
    sub_names = {r["workload"] for r in rows_on}
    rows_off = [r for r in fig9 if r["workload"] in sub_names and r["seed"] in {r2["seed"] for r2 in rows_on}]
    for p in ("2pm", "2pm+"):
        for base, bn in (("paq", "PAQ"), ("readfirst", "readfirst")):
            entry(b, f"with program/erase suspension: {p.upper()} key-request latency vs {bn}",
                  per_seed(rel(rows_on, "key_ns", base), p), setup="faithful + flash_suspend, 4 workloads")
            entry(b, f"without suspension, same workloads: {p.upper()} key-request latency vs {bn}",
                  per_seed(rel(rows_off, "key_ns", base), p), setup="faithful, 4 workloads")
    for p in ("paq", "fcfs", "readfirst", "2pm+"):
        on = {(r["workload"], r["seed"]): r["key_ns"] for r in rows_on if r["policy"] == p}
        off = {(r["workload"], r["seed"]): r["key_ns"] for r in rows_off if r["policy"] == p}
        ks = [k for k in on if k in off]
        seeds_ = sorted({s for (_, s) in ks})
        vals = [statistics.mean(100.0 * (on[k] / off[k] - 1) for k in ks if k[1] == s) for s in seeds_]
        entry(b, f"suspension's own effect: {NAME[p]} key-request latency with vs without", vals,
              setup="faithful, 4 workloads")
    b.headline("suspensions per host write under readfirst",
               round(sum(r["suspends"] for r in rows_on if r["policy"] == "readfirst") /
                     max(1.0, sum(r["writes"] for r in rows_on if r["policy"] == "readfirst")), 2), "count",
               setup="faithful + flash_suspend, 4 workloads")

    # ---- Fig. 10 -----------------------------------------------------------------------------------------
    f10 = [r for r in R.run("fig10", sub, ["1"], ["paq", "2pm+"], FAITHFUL + ["--fig10"]) if r["policy"] == "2pm+"]
    ooo = statistics.mean(r["fig10_ooo_ns"] for r in f10) / 1e3
    ino = statistics.mean(r["fig10_ino_ns"] for r in f10) / 1e3
    b.headline("Fig. 10: wait of a landed page for its first stage, out of order (mean)", round(ooo, 2), "us",
               setup="faithful, 2PM+, 4 workloads")
    b.headline("Fig. 10: wait of a landed page for its first stage, in order (mean)", round(ino, 2), "us",
               setup="faithful, 2PM+, 4 workloads")
    b.headline("Fig. 10: p99 wait of a landed page, out of order (largest over workloads)",
               round(max(r["fig10_ooo_p99_ns"] for r in f10) / 1e3, 2), "us", setup="faithful, 2PM+, 4 workloads")
    b.headline("Fig. 10: p99 wait of a landed page, in order (largest over workloads)",
               round(max(r["fig10_ino_p99_ns"] for r in f10) / 1e3, 2), "us", setup="faithful, 2PM+, 4 workloads")
    fw = [r["workload"] for r in f10]
    b.plot("fig10.png", "Fig. 10: wait of a landed page for its first stage (2PM+)", "workload", "mean wait (us)",
           {"out of order (as run)": (fw, [r["fig10_ooo_ns"] / 1e3 for r in f10]),
            "in order": (fw, [r["fig10_ino_ns"] / 1e3 for r in f10])}, kind="bar")

    # ---- Fig. 12 -----------------------------------------------------------------------------------------
    f12 = {}
    sens = (("isp-qd", "qd", ["4", "8", "16", "32"], "tasklet requests in the group (queue depth per group)"),
            ("slots", "slots", ["4", "8", "16", "32"], "sub-request queue size (entries per chip)"),
            ("chips", "chips", ["2", "4", "8", "16", "32", "64"], "chips per group"))
    for flag, short, values, label in sens:
        if quick and short != "qd":
            continue
        ys = {"2pm": [], "2pm+": []}
        for v in values:
            rows = R.run(f"fig12-{short}-{v}", sub, ["1"], knob_pol, FAITHFUL + [f"--{flag}", v])
            if short == "qd":
                det = [r["key_detect_ns"] / r["key_ns"] for r in rows if r["policy"] == "readfirst" and r["key_detected"]]
                b.headline(f"Fig. 12: at {short} = {v}, first matching page classified at this share of a key request's "
                           "latency under readfirst", round(100.0 * statistics.mean(det), 1), "%",
                           setup="faithful, 4 workloads, 1 seed")
            for p in ys:
                y = 1 + statistics.mean(per_seed(rel(rows, "key_ns", "readfirst"), p)) / 100
                ys[p].append(y)
                b.headline(f"Fig. 12: {p.upper()} key latency / readfirst's at {short} = {v}", round(y, 3), "x",
                           setup="faithful, 4 workloads, 1 seed")
        f12[short] = (values, ys)
        b.plot(f"fig12_{short}.png", f"Fig. 12: key latency normalized to readfirst vs {short}", label,
               "key latency / readfirst's", {p: ([int(v) for v in values], y) for p, y in ys.items()},
               logx=short == "chips")

    # ---- claims (the paper's stated results, qualitatively) ----------------------------------------------
    find = lambda n: next(e for e in b.summary if e["name"] == n)
    k2p = find("Fig. 9: 2PM+ key-request latency vs PAQ")
    n2p = find("Fig. 9: 2PM+ non-key latency vs PAQ")
    claim(b, "2PM+ reduces key-request latency against PAQ (Fig. 9)", k2p["ci_high"] < 0,
          f"{k2p['ours']} % [{k2p['ci_low']}, {k2p['ci_high']}]")
    claim(b, "2PM+ reduces key-request latency by about half against PAQ (-52.6 %, within 10 points)",
          abs(k2p["ours"] + 52.6) <= 10, f"{k2p['ours']} %")
    claim(b, "2PM+ costs non-key requests little against PAQ (+1.5 %: at most +5 %)", n2p["ours"] <= 5,
          f"{n2p['ours']} %")
    kb2 = find("Fig. 9 against 2PM's basic rules: 2PM+ key-request latency vs readfirst")
    nb2 = find("Fig. 9 against 2PM's basic rules: 2PM+ non-key latency vs readfirst")
    claim(b, "detection-guided reordering speeds key requests at a small cost to the others (2PM+ vs its basic rules)",
          kb2["ci_high"] < 0 and nb2["ours"] <= 5, f"key {kb2['ours']} %, non-key {nb2['ours']} %")
    bal = [(find(f"Fig. 9: {NAME[p]} key-request latency vs PAQ")["ours"], find(f"Fig. 9: {NAME[p]} non-key latency vs PAQ")["ours"])
           for p in ("slacker", "cars", "flin")]
    claim(b, "prior schedulers (Slacker, CARS, FLIN) change key and non-key latency alike (within 5 points)",
          all(abs(k - n) <= 5 for k, n in bal), "; ".join(f"{k} / {n} %" for k, n in bal))
    claim(b, "prior schedulers improve on PAQ by only a few percent (Slacker 4.5-5.4 %, CARS and FLIN 1-3 %)",
          all(-10 <= k <= 0 for k, _ in bal), "; ".join(f"{k} %" for k, _ in bal))
    if "PAQ" in f11:
        claim(b, "anti-starvation reduces the total delay of key requests (Fig. 11: 2PM+ against 2PM)", f11["PAQ"] < 0,
              "; ".join(f"vs {k}: {v:+.1f} %" for k, v in f11.items()))
    s2 = find("Fig. 11: key requests delayed vs PAQ under 2PM+, share of all requests")
    claim(b, "about 3 % of requests are delayed key requests, p99.99 delay under 1 ms (Fig. 11)",
          s2["ours"] <= 5 and p9999 < 1.0, f"{s2['ours']} %, p99.99 {p9999:.3f} ms")
    claim(b, "out-of-order processing shortens the wait of landed sub-requests against in-order (Fig. 10)", ooo < ino,
          f"{ooo:.1f} us against {ino:.1f} us")
    v, ys = f12["qd"]
    claim(b, "the gain grows with the request queue depth (Fig. 12(a))", ys["2pm+"][-1] < ys["2pm+"][0],
          f"2PM+ / readfirst {ys['2pm+'][0]:.3f} at {v[0]}, {ys['2pm+'][-1]:.3f} at {v[-1]}")
    if "slots" in f12:
        v, ys = f12["slots"]
        claim(b, "the gain grows with the sub-request queue size (Fig. 12(b))", ys["2pm+"][-1] < ys["2pm+"][0],
              f"{ys['2pm+'][0]:.3f} at {v[0]}, {ys['2pm+'][-1]:.3f} at {v[-1]}")
        v, ys = f12["chips"]
        i16 = v.index("16")
        claim(b, "the gain grows with the chips up to 16 and shrinks slightly from 32 (Fig. 12(c))",
              min(range(len(v)), key=lambda i: ys["2pm+"][i]) in (i16, i16 - 1) and ys["2pm+"][-1] > ys["2pm+"][i16],
              ", ".join(f"{x}: {y:.3f}" for x, y in zip(v, ys["2pm+"])))

    b.write_csv(R.rows, list(R.rows[0].keys()))
    b.headline("bench 2pm: simulated part's wall time", round(time.time() - t0, 1), "s", setup="this machine")

    # ---- a grep job under a host writer, and the real jobs -----------------------------------------------
    if not quick:
        with tempfile.TemporaryDirectory() as tmp:
            jobs = list(csv.DictReader(io.StringIO(b.run(b.tool("bench_2pm_jobs"), tmp, "32", "32", "256"))))
        b.write_csv(jobs, list(jobs[0].keys()), name="jobs.csv")
        base = next(j for j in jobs if j["policy"] == "paq" and j["stages"] == "2")
        for j in jobs:
            tag = f"{j['policy']}" + (" in order (stages=1)" if j["stages"] == "1" else "")
            b.headline(f"grep job under a writer, {tag}: splits with matches, mean device time",
                       round(float(j["key_split_ns"]) / 1e6, 3), "ms", setup="bench_2pm_jobs")
            if j["stages"] == "2" and j is not base:
                b.headline(f"grep job under a writer, {tag}: splits with matches vs PAQ",
                           round(100.0 * (float(j["key_split_ns"]) / float(base["key_split_ns"]) - 1), 1), "%",
                           setup="bench_2pm_jobs")
        two = [j for j in jobs if j["stages"] == "2"]
        b.plot("jobs.png", "grep job (grep2 in splits) while a host writer overwrites, per chip policy", "chip policy",
               "device time (ms)", {
                   "splits with matches": ([j["policy"] for j in two], [float(j["key_split_ns"]) / 1e6 for j in two]),
                   "splits without": ([j["policy"] for j in two], [float(j["nonkey_split_ns"]) / 1e6 for j in two]),
                   "job": ([j["policy"] for j in two], [float(j["job_ns"]) / 1e6 for j in two])}, kind="bar")
        if "--no-real-jobs" not in b.args:
            real_jobs(b, quick)

    table = []
    for w in wls:
        row = {"workload": w, "kind": kind_of(w)}
        for p in ("readfirst", "2pm", "2pm+"):
            row[f"{p} key %"] = round(statistics.mean(v[p] for (w2, _), v in key.items() if w2 == w), 1)
            row[f"{p} non-key %"] = round(statistics.mean(v[p] for (w2, _), v in non.items() if w2 == w), 1)
        table.append(row)
    b.finish(table, list(table[0].keys()))
    print(f"bench 2pm: {time.time() - t0:.0f} s in all")


# ---- real jobs: Hadoop and Spark on a daemon, a host writer beside them ------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOB_POLICIES = ["fcfs", "paq", "2pm", "2pm+", "readfirst", "slacker", "cars", "flin"]
KEY = "timeout"
SPLIT = 2 << 20   # bytes per split of both jobs: 4 or 8 splits, so several run at once


def make_log(path, mib):
    """Lines of 40-160 bytes of lowercase words (no 'u': "timeout" only where planted); in the third
    quarter one line in 50 begins "ERROR x timeout" (a burst of errors), everywhere one in 50 "ERROR".
    Returns the number of lines holding KEY."""
    r = random.Random(1998)
    letters = "abcdefghijklmnopqrstvwxyz   "
    n, out, planted = mib << 20, [], 0
    size = 0
    while size < n:
        k = r.randrange(50)
        burst = n // 2 <= size < n * 3 // 4
        head = "ERROR x timeout " if k == 0 and burst else "ERROR " if k == 1 else ""
        planted += head.startswith("ERROR x")
        line = head + "".join(r.choice(letters) for _ in range(40 + r.randrange(120) - len(head))) + "\n"
        out.append(line)
        size += len(line)
    with open(path, "w") as f:
        f.write("".join(out))
    return planted


def java_cmd(cls, *args):
    import spark  # the JVM flags Spark 4 needs on Java 17
    cp = os.environ.get("SMARTSSD_EXAMPLES_CP")
    if not cp:
        sys.exit("bench 2pm: run it as `bin/smartssd bench 2pm` (it builds the examples module first)")
    return [os.environ.get("SMARTSSD_JAVA", "java"), "-Xmx1g", *spark.JVM_FLAGS,
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-Dlog4j2.level=error", "-cp", cp,
            f"io.smartssd.examples.bench.{cls}", *map(str, args)]


def run_json(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if r.returncode or not lines:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")
    return json.loads(lines[-1])


def real_jobs(b, quick):
    """Per chip policy: a csdd daemon on one 2pm-preset image (chip_scheduler set for its session), a host
    writer on its own connection overwriting a 32 MiB object 256 KiB at a time for as long as the jobs
    run, `bin/smartssd grep --tasklet grep2` (a DeviceJob; it also runs the host job, whose count must
    agree) and the Spark query. Both answers must equal the lines planted under every policy."""
    policies = JOB_POLICIES[:4] if quick else JOB_POLICIES
    mib = 8 if quick else 16
    work = os.path.join(b.out, "jobs-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log, img, sock = os.path.join(work, "log.txt"), os.path.join(work, "dev.img"), os.path.join(work, "d.sock")
    planted = make_log(log, mib)
    csd = b.tool("csd")
    b.run(csd, "format", img, "--capacity", "256M", "--preset", "2pm")
    b.run(csd, "put", img, "log", log)
    rows = []
    for p in policies:
        stop, wcsv = os.path.join(work, "stop"), os.path.join(work, "writer.csv")
        for f in (stop, wcsv):
            if os.path.exists(f):
                os.remove(f)
        daemon = subprocess.Popen([csd, "serve", img, "--socket", sock, "--set", f"chip_scheduler={p}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        writer = None
        try:
            for _ in range(100):
                if os.path.exists(sock) or daemon.poll() is not None:
                    break
                time.sleep(0.1)
            if not os.path.exists(sock):
                sys.exit(f"csd serve {img}: no socket ({daemon.stderr.read() if daemon.poll() is not None else 'timeout'})")
            writer = subprocess.Popen(java_cmd("HostWriter", sock, "writer", 32, 256, stop, wcsv),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            time.sleep(2)  # the writer's JVM up and writing before the jobs start
            g = run_json([os.path.join(ROOT, "bin", "smartssd"), "grep", "--tasklet", "grep2", "--input",
                          "smartssd://j0/log", "--conf", f"fs.smartssd.device.j0.socket={sock}",
                          "--conf", f"mapreduce.input.fileinputformat.split.maxsize={SPLIT}", "--pattern", KEY,
                          "--json"])
            sp = run_json(java_cmd("SparkLike", sock, "log", KEY, SPLIT))
            open(stop, "w").close()
            if writer.wait(timeout=120):
                sys.exit(f"the host writer failed: {writer.stderr.read()[-4000:]}")
            with open(wcsv) as f:
                w = {k: float(v) for k, v in next(csv.DictReader(f)).items()}
        finally:
            open(stop, "w").close()
            if writer and writer.poll() is None:
                writer.kill()
            daemon.terminate()
            daemon.wait(timeout=60)
        dev = next(r for r in g["runs"] if r["version"].startswith("device"))
        host = next(r for r in g["runs"] if r["version"] == "host")
        if dev["count"] != planted or host["count"] != planted or sp["count"] != planted:
            sys.exit(f"{p}: grep2 job counted {dev['count']}, host job {host['count']}, Spark {sp['count']};"
                     f" {planted} lines planted")
        if "grep2 start='" + KEY + "'" not in sp["scan"]:
            sys.exit(f"{p}: the Spark scan did not push the LIKE to grep2: {sp['scan']}")
        rows.append({"exp": "jobs-real", "policy": p, "log_mib": mib, "matches": planted,
                     "grep_device_ms": round(dev["device_ns"] / 1e6, 3),
                     "grep_splits_device_ms": round(dev["splits_device_ns"] / 1e6, 3), "grep_wall_ms": round(dev["wall_ns"] / 1e6, 1),
                     "spark_device_ms": round(sp["device_clock_ns"] / 1e6, 3),
                     "spark_partitions_device_ms": round(sp["partitions_device_ns"] / 1e6, 3),
                     "spark_wall_ms": round(sp["wall_ns"] / 1e6, 1), "spark_bytes_to_host": sp["bytes_to_host"],
                     "writes": int(w["writes"]), "write_device_mean_ms": round(w["write_dev_mean_ns"] / 1e6, 3),
                     "write_device_p99_ms": round(w["write_dev_p99_ns"] / 1e6, 3),
                     "write_wall_mean_ms": round(w["write_wall_mean_ns"] / 1e6, 3),
                     "write_wall_p99_ms": round(w["write_wall_p99_ns"] / 1e6, 3)})
        print(f"jobs under a writer, {p}: " + ", ".join(f"{k} {v}" for k, v in rows[-1].items()
                                                        if k not in ("exp", "policy")), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    b.write_csv(rows, name="jobs_real.csv")
    base = rows[0]
    for r in rows:
        p = r["policy"]
        for key, what in (("grep_splits_device_ms", "bin/smartssd grep --tasklet grep2: device time of its splits, summed"),
                          ("grep_wall_ms", "bin/smartssd grep --tasklet grep2: wall time"),
                          ("spark_partitions_device_ms", "Spark LIKE '%timeout%' (grep2): device time of its partitions, summed"),
                          ("spark_wall_ms", "Spark LIKE '%timeout%' (grep2): wall time"),
                          ("write_device_mean_ms", "host writer beside them: mean write device time"),
                          ("write_wall_mean_ms", "host writer beside them: mean write wall time")):
            b.headline(f"jobs under a writer, {p}: {what}", r[key], "ms")
            if r is not base and "device" in key:
                b.headline(f"jobs under a writer, {p}: {what} vs fcfs",
                           round(100.0 * (r[key] / base[key] - 1), 1) if base[key] else 0.0, "%")
    pols = [r["policy"] for r in rows]
    b.plot("jobs_real.png", "Hadoop grep and Spark LIKE via grep2 beside a host writer (2pm preset)",
           "chip policy", "time (ms, log scale)", {
               "grep job, device (splits summed)": (pols, [r["grep_splits_device_ms"] for r in rows]),
               "grep job, wall": (pols, [r["grep_wall_ms"] for r in rows]),
               "Spark LIKE, device (partitions summed)": (pols, [r["spark_partitions_device_ms"] for r in rows]),
               "Spark LIKE, wall": (pols, [r["spark_wall_ms"] for r in rows]),
               "write, device (mean)": (pols, [r["write_device_mean_ms"] for r in rows]),
               "write, wall (mean)": (pols, [r["write_wall_mean_ms"] for r in rows])}, kind="bar", logy=True,
           legend_below=True)
    return rows
