"""bench 2pm: the 2PM paper's evaluation (Yoon et al., "Two-Stage In-Storage Processing and Scheduling
for Pattern Matching Applications", IEEE Access 2021, section V) on the engine and flash model with the
2pm preset (Table 1), from the C harness bench_2pm. Every tasklet request runs the two-stage grep2
tasklet over generated text (key requests hold matching lines), with host writes and background
migration on the same chips; its count is checked against the lines planted.

  Fig. 9    16 workloads (write-intensive, balanced, read-intensive) under paq (the baseline), slacker,
            cars, flin, 2pm and 2pm+: key and non-key latency relative to paq
            (paper: 2PM key -52.6 %, non-key +1.5 %; Slacker -4.5 % / -5.4 %; CARS, FLIN 1-3 % better)
  Fig. 11   the delay of key requests against paq, 2pm (no anti-starvation) and 2pm+
            (paper: anti-starvation cuts the total delay by 79.8 %; ~3 % of requests delayed; p99.99 < 1 ms)
  Fig. 12   sensitivity: queue depth, sub-request queue size, chips per group (paper: trends only)
  density   the share of a key request's pages holding a match (our explanation of the gap to Fig. 9)
  jobs      a grep job (grep2 over a log in splits, through the device's object commands) while a host
            writer overwrites another object on the same device: split and job latency per chip policy,
            and the in-order mode (stages=1) beside the two-stage one
  real jobs on a csdd daemon serving a 2pm-preset image with chip_scheduler set for the session, per
            chip policy, while a host writer (its own connection) overwrites an object on the same
            device: `bin/smartssd grep --tasklet grep2` (a Hadoop DeviceJob) and a Spark
            `LIKE '%timeout%'` over format text (pushed to grep2); each job's device (virtual) time and
            wall time, and the writer's write latency (jobs_real.csv, jobs_real.png)

usage: bin/smartssd bench 2pm [--quick] [--jobs]
       --quick: 4 workloads, 600 requests each, 8 MiB log and 4 policies for the real jobs (default all 16
                workloads and 1500 requests, 16 MiB and 7 policies; ~10 minutes on 2 cores)
       --jobs:  only the real jobs (a few minutes)
docs/2PM.md explains the setup and where our model differs from the paper's.
"""
import csv
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

POLICIES = ["paq", "slacker", "cars", "flin", "2pm", "2pm+"]
SUBSET = "2,7,9,12"          # one workload of each kind (and one more balanced) for the sweeps
PAPER_KEY = {"2pm": -52.6, "2pm+": -52.6, "slacker": -4.5, "cars": -2.0, "flin": -2.0}
PAPER_NONKEY = {"2pm": 1.5, "2pm+": 1.5, "slacker": -5.4, "cars": -2.0, "flin": -2.0}


def rows_of(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    for r in rows:
        for k in r:
            if k not in ("exp", "workload", "policy"):
                r[k] = float(r[k])
    return rows


def rel(rows, metric):
    """{(exp, workload, qd, slots, chips): {policy: metric / paq's - 1, in %}}"""
    base, out = {}, {}
    for r in rows:
        k = (r["exp"], r["workload"], r["qd"], r["slots"], r["chips"], r.get("density", 0))
        if r["policy"] == "paq":
            base[k] = r[metric]
    for r in rows:
        k = (r["exp"], r["workload"], r["qd"], r["slots"], r["chips"], r.get("density", 0))
        if base.get(k):
            out.setdefault(k, {})[r["policy"]] = 100.0 * (r[metric] / base[k] - 1)
    return out


def kind_of(workload):
    return {"w": "write-intensive", "b": "balanced", "r": "read-intensive"}[workload[0]]


def main(b):
    quick = "--quick" in b.args
    if "--jobs" in b.args:
        rows = real_jobs(b, quick)
        b.write_csv(rows)
        b.finish(rows, list(rows[0].keys()))
        return
    requests = "600" if quick else "1500"
    workloads = SUBSET if quick else "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
    exe = b.tool("bench_2pm")
    rows = rows_of(b.run(exe, "--requests", requests, "fig9", workloads))
    for what, vals in (("qd", "4,8,16,32"), ("slots", "4,8,16,32"), ("chips", "2,4,8,16,32,64")):
        rows += rows_of(b.run(exe, "--requests", requests, "sens", what, vals, SUBSET))
    for d in ("0.02", "0.25", "1.0"):
        extra = rows_of(b.run(exe, "--requests", requests, "--density", d, "--policies", "paq,2pm,2pm+", "fig9", SUBSET))
        for r in extra:
            r["exp"], r["density"] = "density", float(d)
        rows += extra
    for r in rows:
        r.setdefault("density", 0.5)
    b.write_csv(rows, list(rows[0].keys()))

    # ---- Fig. 9 ------------------------------------------------------------------------------------
    fig9 = [r for r in rows if r["exp"] == "fig9"]
    key_rel, non_rel = rel(fig9, "key_ns"), rel(fig9, "nonkey_ns")
    wls = sorted({r["workload"] for r in fig9})
    table = []
    for w in wls:
        k = next(k for k in key_rel if k[1] == w)
        row = {"workload": w, "kind": kind_of(w)}
        for p in POLICIES[1:]:
            row[f"{p} key %"] = round(key_rel[k][p], 1)
            row[f"{p} non-key %"] = round(non_rel[k][p], 1)
        table.append(row)
    for p in POLICIES[1:]:
        mk = statistics.mean(key_rel[k][p] for k in key_rel)
        mn = statistics.mean(non_rel[k][p] for k in non_rel)
        b.headline(f"Fig. 9: {p} key-request latency vs paq, mean of {len(wls)} workloads", round(mk, 1), "%",
                   paper=PAPER_KEY[p])
        b.headline(f"Fig. 9: {p} non-key latency vs paq, mean of {len(wls)} workloads", round(mn, 1), "%",
                   paper=PAPER_NONKEY[p])
    det = [r["key_detect_ns"] / r["key_ns"] for r in fig9 if r["policy"] == "paq" and r["key_ns"] and r["key_detected"]]
    if det:
        b.headline("key requests: first matching page classified at this share of their paq latency (mean)",
                   round(100.0 * statistics.mean(det), 1), "%")
    for kind in ("write-intensive", "balanced", "read-intensive"):
        ks = [k for k in key_rel if kind_of(k[1]) == kind]
        if ks:
            b.headline(f"Fig. 9: 2pm key latency vs paq, {kind} workloads", round(statistics.mean(
                key_rel[k]["2pm"] for k in ks), 1), "%")
    for name, rr in (("key", key_rel), ("non-key", non_rel)):
        series = {p: (wls, [rr[next(k for k in rr if k[1] == w)][p] for w in wls]) for p in POLICIES[1:]}
        b.plot(f"fig9_{name.replace('-', '')}.png", f"Fig. 9: {name} request latency vs paq (2pm preset, QD 16)",
               "workload", f"{name} latency change vs paq (%)", series, kind="bar")

    # ---- Fig. 11 -----------------------------------------------------------------------------------
    by = {(r["workload"], r["policy"]): r for r in fig9}
    tot = {p: sum(by[(w, p)]["delay_total_ns"] for w in wls) for p in ("2pm", "2pm+")}
    reqs = sum(by[(w, "2pm+")]["isp_key"] + by[(w, "2pm+")]["isp_nonkey"] + by[(w, "2pm+")]["writes"] for w in wls)
    delayed = {p: sum(by[(w, p)]["delayed_key"] for w in wls) for p in ("2pm", "2pm+")}
    p9999 = max(by[(w, "2pm+")]["delay_p9999_ns"] for w in wls)
    if tot["2pm"]:
        b.headline("Fig. 11: total delay of key requests vs paq, 2pm+ against 2pm (anti-starvation)",
                   round(100.0 * (tot["2pm+"] / tot["2pm"] - 1), 1), "%", paper=-79.8)
    b.headline("Fig. 11: key requests delayed vs paq under 2pm+, share of all requests",
               round(100.0 * delayed["2pm+"] / reqs, 2), "%", paper=3.0)
    b.headline("Fig. 11: key requests delayed vs paq under 2pm, share of all requests",
               round(100.0 * delayed["2pm"] / reqs, 2), "%")
    b.headline("Fig. 11: p99.99 delay of a key request under 2pm+ (largest over workloads)", round(p9999 / 1e6, 3),
               "ms", paper=1.0)
    b.plot("fig11_delay.png", "Fig. 11: total delay of key requests against paq", "workload", "total delay (ms)",
           {p: (wls, [by[(w, p)]["delay_total_ns"] / 1e6 for w in wls]) for p in ("2pm", "2pm+")}, kind="bar")
    b.plot("fig11_ratio.png", "Fig. 11: key requests delayed against paq", "workload",
           "delayed key requests (% of all requests)",
           {p: (wls, [100.0 * by[(w, p)]["delayed_key"] / (by[(w, p)]["isp_key"] + by[(w, p)]["isp_nonkey"] +
                                                          by[(w, p)]["writes"]) for w in wls]) for p in ("2pm", "2pm+")},
           kind="bar")

    # ---- Fig. 12 and density -----------------------------------------------------------------------
    for what, col, label in (("qd", "qd", "requests in the device (queue depth per group)"),
                             ("slots", "slots", "sub-request queue size (entries per chip)"),
                             ("chips", "chips", "chips per group")):
        sr = [r for r in rows if r["exp"] == f"sens-{what}"]
        kr = rel(sr, "key_ns")
        xs = sorted({r[col] for r in sr})
        series = {}
        for p in POLICIES[1:]:
            series[p] = ([int(x) for x in xs],
                         [1 + statistics.mean(v[p] for k, v in kr.items() if k[{"qd": 2, "slots": 3, "chips": 4}[what]] == x)
                          / 100.0 for x in xs])
        b.plot(f"fig12_{what}.png", f"Fig. 12: key latency normalized to paq vs {what}", label,
               "key latency / paq's", series, logx=what == "chips")
        for x, y in zip(*series["2pm"]):
            b.headline(f"Fig. 12: 2pm key latency / paq at {what} = {x}", round(y, 3), "x")
    dr = [r for r in rows if r["exp"] == "density"]
    kr = rel(dr, "key_ns")
    ds = sorted({k[5] for k in kr})
    b.plot("density.png", "Key latency vs paq by the share of a key request's pages that match",
           "matching lines per page of a key request", "key latency change vs paq (%)",
           {p: (ds, [statistics.mean(v[p] for k, v in kr.items() if k[5] == d) for d in ds]) for p in ("2pm", "2pm+")})
    for d in ds:
        b.headline(f"density {d}: 2pm key latency vs paq (4 workloads)",
                   round(statistics.mean(v["2pm"] for k, v in kr.items() if k[5] == d), 1), "%")
    # ---- a grep job under a host writer --------------------------------------------------------------
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        jobs = list(csv.DictReader(io.StringIO(b.run(b.tool("bench_2pm_jobs"), tmp, "8" if quick else "32", "32",
                                                     "256"))))
    b.write_csv(jobs, list(jobs[0].keys()), name="jobs.csv")
    base = next(j for j in jobs if j["policy"] == "paq" and j["stages"] == "2")
    for j in jobs:
        tag = f"{j['policy']}" + (" in order (stages=1)" if j["stages"] == "1" else "")
        b.headline(f"grep job under a writer, {tag}: splits with matches, mean device time",
                   round(float(j["key_split_ns"]) / 1e6, 3), "ms")
        if j["stages"] == "2" and j is not base:
            b.headline(f"grep job under a writer, {tag}: splits with matches vs paq",
                       round(100.0 * (float(j["key_split_ns"]) / float(base["key_split_ns"]) - 1), 1), "%")
    b.plot("jobs.png", "grep job (grep2 in splits) while a host writer overwrites, per chip policy", "chip policy",
           "device time (ms)", {
               "splits with matches": ([j["policy"] for j in jobs if j["stages"] == "2"],
                                       [float(j["key_split_ns"]) / 1e6 for j in jobs if j["stages"] == "2"]),
               "splits without": ([j["policy"] for j in jobs if j["stages"] == "2"],
                                  [float(j["nonkey_split_ns"]) / 1e6 for j in jobs if j["stages"] == "2"]),
               "job": ([j["policy"] for j in jobs if j["stages"] == "2"],
                       [float(j["job_ns"]) / 1e6 for j in jobs if j["stages"] == "2"])}, kind="bar")

    real_jobs(b, quick)

    cols = ["workload", "kind"] + [f"{p} {m}" for p in POLICIES[1:] for m in ("key %", "non-key %")]
    b.finish(table, cols)


# ---- real jobs: Hadoop and Spark on a daemon, a host writer beside them ------------------------------
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOB_POLICIES = ["fcfs", "paq", "2pm", "2pm+", "slacker", "cars", "flin"]
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
