"""bench offload: the offload planner (docs/OFFLOAD.md) on the web-log job. WorldCup98-format records at
32..256-byte entries on a paced embedded device (wall time follows device time, so a split on the device
and a split on the host compare one to one), each query as a DeviceJob with smartssd.offload = device,
host and auto on the same splits, with the device idle and with other tenants sending it requests;
every answer checked against native/tests/wc98.py. Reports each mode's job time (wall), auto over the better
static mode per cell, and the cost model's error per split (predicted vs measured, per tasklet).

    bin/smartssd bench offload [--quick] [--size 256M] [--entry-bytes 32,64,128,256] [--query q1,q2]
                               [--tenants 0,2] [--maps 2] [--repeat 3]

Each job runs --repeat times in one JVM (weblog --repeat) and the last run counts: the first pays the
JVM's and the JIT's warm-up, which no planner can move between device and host.

--quick: 32 MiB at 32 and 256 bytes, q1, idle and two tenants (a few minutes). One device only: the
two-device cells are not measured yet (docs/OFFLOAD.md says what is missing).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import weblog

MODES = ["device", "host", "auto"]
TASKLET = {"q1": "weblog-q1", "q2": "weblog-q2"}


def parse(argv):
    p = argparse.ArgumentParser(prog="bin/smartssd bench offload")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--size", default=None, help="bytes of records per entry size, e.g. 32M")
    p.add_argument("--entry-bytes", default=None)
    p.add_argument("--query", default=None)
    p.add_argument("--tenants", default=None, help="other tenants' request streams per cell, e.g. 0,2")
    p.add_argument("--maps", type=int, default=2)
    p.add_argument("--repeat", type=int, default=None, help="runs per job in one JVM; the last (warm) one counts")
    a = p.parse_args(argv)
    a.size = a.size or ("32M" if a.quick else "256M")
    a.entry_bytes = [int(x) for x in (a.entry_bytes or ("32,256" if a.quick else "32,64,128,256")).split(",")]
    a.query = (a.query or ("q1" if a.quick else "q1,q2")).split(",")
    a.tenants = [int(x) for x in (a.tenants or "0,2").split(",")]
    a.repeat = a.repeat or (2 if a.quick else 3)
    return a


def size_bytes(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * units[s[-1].upper()] if s[-1].upper() in units else int(s)


def java(ctx, args):
    r = subprocess.run(weblog.java_cmd() + args, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr[-3000:]}")
    return r


def reference(data, entry, q):
    """The answer of native/tests/wc98.py, a decoder written apart from the Java and C code."""
    py = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "native", "tests", "wc98.py")
    out = subprocess.run([sys.executable, py, q, data, "--entry-bytes", str(entry)], capture_output=True, text=True,
                         check=True).stdout
    return [line for line in out.splitlines() if line.strip()]


def main(ctx):
    a = parse(ctx.args)
    image = os.path.join(ctx.out, "dev.img")
    if os.path.exists(image):
        os.remove(image)
    total = size_bytes(a.size) * len(a.entry_bytes) * 5 // 4 + (64 << 20)
    # paced: wall time follows device time (docs/TRACING.md), so host and device splits compare in wall time
    ctx.run(ctx.tool("csd"), "format", image, "--capacity", f"{total >> 20}M", "--set", "paced=1")
    rows, splits = [], []
    for entry in a.entry_bytes:
        data = os.path.join(ctx.out, f"wc98-{entry}.bin")
        records = size_bytes(a.size) // entry
        java(ctx, ["weblog", "gen", "--output", data, "--records", str(records), "--entry-bytes", str(entry)])
        size = records * entry
        split = max(1 << 20, size // (4 * a.maps))     # the same splits in every mode: four per map slot
        for q in a.query:
            want = reference(data, entry, q)
            for tenants in a.tenants:
                for mode in MODES:
                    r = java(ctx, ["weblog", "--input", data, "--entry-bytes", str(entry), "--query", q,
                                   "--version", "device", "--offload", mode, "--tenants", str(tenants),
                                   "--image", image, "--maps", str(a.maps), "--json", "--repeat", str(a.repeat),
                                   "--conf", f"mapreduce.input.fileinputformat.split.maxsize={split}"])
                    j = json.loads(r.stdout.strip().splitlines()[-1])
                    got = ["\t".join(str(v) for v in row) for row in j["answer"]]
                    if got != want:
                        sys.exit(f"{q} {entry} B {mode} with {tenants} tenant(s): answered {got}, wc98.py {want}")
                    o = j.get("offload") or {}
                    rows.append({"entry_B": entry, "query": q, "tenants": tenants, "mode": mode,
                                 "job_s": j["wall_ns"] / 1e9, "device_ms": j["device_ns"] / 1e6,
                                 "link_MB": j["link_bytes"] / 1e6, "device_splits": o.get("device_splits", ""),
                                 "host_splits": o.get("host_splits", ""), "replanned": o.get("replanned", "")})
                    for s in o.get("splits", []):
                        splits.append({"entry_B": entry, "query": q, "tenants": tenants, "mode": mode,
                                       "tasklet": TASKLET[q], **s})
                    print(f"  {q} {entry} B, {tenants} tenant(s), {mode}: {j['wall_ns'] / 1e9:.2f} s", flush=True)
    report(ctx, a, rows, splits)


def report(ctx, a, rows, splits):
    ctx.write_csv(rows)
    ctx.write_csv(splits, ["entry_B", "query", "tenants", "mode", "tasklet", "split", "device", "bytes", "planned",
                           "lane", "predicted_ns", "actual_ns", "why"], name="splits.csv")
    cells = sorted({(r["entry_B"], r["query"], r["tenants"]) for r in rows})
    t = {(r["entry_B"], r["query"], r["tenants"], r["mode"]): r["job_s"] for r in rows}
    ratios, busy = [], []
    for e, q, n in cells:
        best = min(t[e, q, n, "device"], t[e, q, n, "host"])
        ratio = t[e, q, n, "auto"] / best
        ratios.append(ratio)
        if n > 0:
            busy.append(ratio)
        for r in rows:
            if (r["entry_B"], r["query"], r["tenants"]) == (e, q, n):
                r["auto_over_best"] = ratio
    ctx.headline("offload auto / best static (worst cell)", round(max(ratios), 3), "x")
    if busy:
        ctx.headline("offload auto / best static (busy device, mean)", round(statistics.mean(busy), 3), "x")
    for tasklet in sorted({s["tasklet"] for s in splits}):
        errs = sorted(abs(s["actual_ns"] - s["predicted_ns"]) / s["predicted_ns"] for s in splits
                      if s["tasklet"] == tasklet and s["predicted_ns"] > 0)
        if errs:
            ctx.headline(f"offload model error per split, {tasklet} (median)", round(statistics.median(errs), 3),
                         "|actual - predicted| / predicted")
            ctx.headline(f"offload model error per split, {tasklet} (p90)",
                         round(errs[min(len(errs) - 1, int(0.9 * len(errs)))], 3), "|actual - predicted| / predicted")
    for q in a.query:
        for n in a.tenants:
            series = {m: ([e for e in a.entry_bytes], [t[e, q, n, m] for e in a.entry_bytes]) for m in MODES}
            ctx.plot(f"offload-{q}-tenants{n}.png", f"{q}: job time by entry size, {n} other tenant(s)",
                     "entry size (bytes)", "job time, wall (s, paced device)", series, logx=True)
    ctx.finish(rows, ["entry_B", "query", "tenants", "mode", "job_s", "device_ms", "link_MB", "device_splits",
                      "host_splits", "replanned", "auto_over_best"])
