"""bench trace: what watching the device costs, and what it shows.

    bin/smartssd bench trace [--records N]

1. Tracing cost: weblog-q1 over N 128-byte records (default 1,048,576 = 128 MiB) with tracing off and
   on (`--trace`), runs alternating, best of 5 each: wall time, and events written.
2. Schedules: the same two-request mix under every request scheduler (bench_trace_sched), each core
   schedule as a trace file and a Gantt PNG (REMUS beside CFS shows what REMUS changes).
3. Paced mode: a run of about one second of device time with paced=1 and without: wall time against
   device time (target 1.00-1.05).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLICIES = ["fcfs", "cfs", "horae", "serico", "remus"]


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
    return time.perf_counter() - t0, p.stdout


def main(b):
    records = 1 << 20
    if "--records" in b.args:
        records = int(b.args[b.args.index("--records") + 1])
    csd = b.tool("csd")
    data = os.path.join(b.out, "data")
    os.makedirs(data, exist_ok=True)
    raw = os.path.join(data, f"wc98-{records}.bin")
    if not os.path.exists(raw):
        subprocess.run([sys.executable, os.path.join(ROOT, "native", "tests", "wc98.py"), "gen", "--records",
                        str(records), "--entry-bytes", "128", raw], check=True)
    img = os.path.join(data, "dev.img")
    if os.path.exists(img):
        os.remove(img)
    b.run(csd, "format", img, "--capacity", str(max(256, records * 128 * 2 >> 20)) + "M")
    b.run(csd, "put", img, "wc", raw)
    run = [csd, "run", img, "weblog-q1", "--input", "wc", "--param", "entry_bytes=128", "--json"]
    trace_file = os.path.join(b.out, "weblog-q1.json")

    # 1. cost of tracing, off and on, alternating
    off, on = [], []
    for _ in range(5):
        t, out = timed(run)
        off.append(t)
        device_ns = json.loads(out)["device_ns"]
        t, _ = timed(run + ["--trace", trace_file])
        on.append(t)
    with open(trace_file) as f:
        meta = json.load(f)["otherData"]
    rows = [{"part": "tracing", "case": "off", "wall_s": min(off), "device_s": device_ns / 1e9, "events": 0},
            {"part": "tracing", "case": "on", "wall_s": min(on), "device_s": device_ns / 1e9,
             "events": meta["events"] + meta["dropped"]}]

    # 2. schedules under each request scheduler
    out = b.run(b.tool("bench_trace_sched"), b.out, *POLICIES)
    spans = {}
    for line in out.strip().splitlines()[1:]:
        pol, makespan, slots = line.split(",")
        rows.append({"part": "schedule", "case": pol, "device_s": int(makespan) / 1e9, "events": int(slots)})
        spans[pol] = int(makespan)
        b.run(sys.executable, os.path.join(ROOT, "native", "tools", "plot_trace.py"),
              os.path.join(b.out, pol + ".json"), "--out", os.path.join(b.out, f"gantt-{pol}.png"),
              "--tracks", "core", "--title", f"request scheduler {pol}: two requests (c_i 2 us and 20 us), 2 cores")

    # 3. paced mode: a run of about one second of device time (the DRAM micro-benchmark's tasklet,
    #    310 DRAM accesses per page, over the same object)
    paced_run = [csd, "run", img, "dram-scan", "--input", "wc", "--param", "accesses=310", "--json"]
    t, out = timed(paced_run + ["--set", "paced=1"])
    paced_device = json.loads(out)["device_ns"] / 1e9
    rows.append({"part": "paced", "case": "paced=1", "wall_s": t, "device_s": paced_device})
    t_free, _ = timed(paced_run)
    rows.append({"part": "paced", "case": "paced=0", "wall_s": t_free, "device_s": paced_device})

    b.write_csv(rows, ["part", "case", "wall_s", "device_s", "events"])
    b.plot("tracing.png", "weblog-q1 over 128-byte records, tracing off and on", "tracing", "wall time (s)",
           {"best of 5": (["off", "on"], [min(off), min(on)])}, kind="bar")
    b.headline("wall time with tracing on / off (weblog-q1)", min(on) / min(off), "ratio")
    b.headline("events recorded (weblog-q1)", meta["events"] + meta["dropped"], "events")
    b.headline("REMUS / CFS makespan, two-request mix", spans["remus"] / spans["cfs"], "ratio")
    b.headline("paced wall time / device time", t / paced_device, "ratio")
    b.finish(rows, ["part", "case", "wall_s", "device_s", "events"])
