"""bench replay: `csd replay` end to end, as a user runs it, on 25,000-request block traces.

    bin/smartssd bench replay [--requests N] [--runs R] [--realtime]

Two traces in DiskSim / MQSim ASCII format, generated here (seed 1; synthetic, shaped like the
traces simulators are compared on, not those traces): `reads`, 25,000 random reads of 8-32 KiB
(WebSearch-like: read-only, sizes in 512-byte sectors, so most requests are not page-aligned), and
`mixed`, 65 % reads and 35 % writes of 8 KiB at 512-byte-aligned offsets (TPC-C-like), both over
1.5 GiB, arriving as a Poisson process at 2,000 requests/s. Each run formats a fresh 2 GiB
`smartssd-paper` image and times the whole command through the launcher, prefill included:

    bin/smartssd csd replay dev.img TRACE --prefill=map --json

against the data prefill and the trace's writes storing their fill pattern (what `csd replay` did
before: `--prefill --write-data pattern`). Wall time (the machine is shared: see the CPU columns) and
CPU time (user + system, the launcher and csd) per run; the median of R runs (default 5). Headline:
requests per second of wall time end to end on `reads` with `--prefill=map` (goal: 150,000, what
MQSim manages on such a trace). results.csv, replay.png, summary.json; each row carries the 1-minute
load average before its runs.

--realtime runs each timed command under `chrt --fifo 10` (root or CAP_SYS_NICE): on a machine other
work shares, the command then has a core whenever it can run, so its wall time is what a quiet machine
would give (waits for the disk still count) rather than the queue for the CPU.
"""
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCHER = os.path.join(ROOT, "bin", "smartssd")
SPAN = 3 << 29   # 1.5 GiB
RATE = 2000.0    # requests per second


def gen(path, n, kind):
    rnd = random.Random(1)
    t = 0.0
    with open(path, "w") as f:
        for _ in range(n):
            t += rnd.expovariate(RATE)
            if kind == "reads":
                sectors, read = rnd.choice([16, 16, 32, 32, 48, 64]), 1
            else:
                sectors, read = 16, int(rnd.random() < 0.65)
            lba = rnd.randrange(SPAN // 512 - sectors)
            f.write(f"{int(t * 1e9)} 0 {lba} {sectors} {read}\n")


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def one(img, trace, extra, prefix=()):
    if os.path.exists(img):
        os.remove(img)
    subprocess.run([LAUNCHER, "csd", "format", img, "--capacity", "2G", "--preset", "smartssd-paper"], check=True,
                   capture_output=True)
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run([*prefix, LAUNCHER, "csd", "replay", img, trace, *extra, "--json"], capture_output=True,
                       text=True)
    wall, cpu = time.perf_counter() - t0, cpu_children() - c0
    if p.returncode:
        sys.exit(f"csd replay {trace} {' '.join(extra)}: exit {p.returncode}\n{p.stderr}")
    return wall, cpu, json.loads(p.stdout)


def main(b):
    n = int(b.args[b.args.index("--requests") + 1]) if "--requests" in b.args else 25000
    runs = int(b.args[b.args.index("--runs") + 1]) if "--runs" in b.args else 5
    prefix = ("chrt", "--fifo", "10") if "--realtime" in b.args else ()
    if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode:
        sys.exit("bench replay --realtime: chrt --fifo needs root or CAP_SYS_NICE")
    data = os.path.join(b.out, "data")
    os.makedirs(data, exist_ok=True)
    img = os.path.join(data, "dev.img")
    modes = {"prefill=map": ["--prefill=map"], "prefill=data, pattern writes": ["--prefill", "--write-data", "pattern"]}
    rows, series = [], {}
    for kind in ("reads", "mixed"):
        trace = os.path.join(data, f"{kind}-{n}.disksim")
        gen(trace, n, kind)
        for mode, extra in modes.items():
            walls, cpus, last, load = [], [], None, os.getloadavg()[0]
            for _ in range(runs):
                wall, cpu, last = one(img, trace, extra, prefix)
                walls.append(wall)
                cpus.append(cpu)
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            rows.append({"trace": kind, "mode": mode, "requests": n, "wall_s": round(wall, 4),
                         "wall_min_s": round(min(walls), 4), "cpu_s": round(cpu, 4),
                         "requests_per_wall_s": round(n / wall), "requests_per_cpu_s": round(n / cpu),
                         "parse_s": round(last["parse_wall_s"], 4), "prefill_s": round(last["prefill_wall_s"], 4),
                         "replay_s": round(last["replay_wall_s"], 4), "prefilled_lbas": last["prefilled_lbas"],
                         "flash_commands": last["flash_commands"], "device_s": round(last["device_s"], 6),
                         "read_mean_us": round(last["latency"]["read"]["mean_us"], 1),
                         "load1": round(load, 1), "realtime": bool(prefix)})
            series.setdefault(mode, ([], []))
            series[mode][0].append(kind)
            series[mode][1].append(n / wall)
    # the two prefills leave the same mapping: the same device times
    for kind in ("reads", "mixed"):
        a, z = [r for r in rows if r["trace"] == kind]
        assert (a["device_s"], a["read_mean_us"]) == (z["device_s"], z["read_mean_us"]), (a, z)
    b.write_csv(rows)
    rt = ", SCHED_FIFO" if prefix else ""
    b.plot("replay.png", f"csd replay end to end, {n} requests, smartssd-paper (median of {runs}{rt})", "trace",
           "requests per second of wall time", series, kind="bar")
    head = next(r for r in rows if r["trace"] == "reads" and r["mode"] == "prefill=map")
    b.headline("requests per wall second, reads trace, --prefill=map (goal 150000)", head["requests_per_wall_s"],
               "requests/s", load1=head["load1"], realtime=bool(prefix))
    b.headline("requests per CPU second, reads trace, --prefill=map", head["requests_per_cpu_s"], "requests/s")
    for r in rows:
        if r is not head:
            b.headline(f"requests per wall second, {r['trace']} trace, {r['mode']}", r["requests_per_wall_s"],
                       "requests/s")
    b.finish(rows, ["trace", "mode", "wall_s", "wall_min_s", "cpu_s", "requests_per_wall_s", "requests_per_cpu_s",
                    "prefill_s", "replay_s", "prefilled_lbas", "device_s", "read_mean_us", "load1"])
