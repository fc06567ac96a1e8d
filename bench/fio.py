"""bench fio: fio's standard jobs through the device's NBD export (csd nbd over a csdd daemon), on the
smartssd-paper, drs and hybrid presets: 4k random read, random write and 70/30 read/write at queue
depths 1, 8 and 32, and 128k sequential write and read. Beside fio's own IOPS and latency
percentiles (wall time, what the emulator delivers on this machine) stand the device's virtual ones,
from the plugin's per-request log (done - arrival on the device clock, requests over the span of device
time they took, and the queue depth the device saw, by Little's law), and the plugin's wall time per
request (from its submission to its completion; at QD 1, the daemon's command round trip: BlockSubmit
and BlockPoll in one exchange, the emulation included). The device's LBA is its page, so on a preset
with pages larger than 4 KiB (smartssd-paper 8 KiB, hybrid 16 KiB) the "4k" jobs use one page (the bs
column): a 4 KiB request there would be the host's read-modify-write (csd nbd --unaligned, nbdkit's
blocksize filter), which also takes one request at a time.

    bin/smartssd bench fio [--quick] [--runtime S] [--presets a,b] [--jobs name,...] [--paced] [--refill-us US]

--quick: 1 s per job, the 4k QD32 jobs and the sequential ones. Writes out/bench/fio/: results.csv,
iops.png, latency.png, summary.json."""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

JOBS = [  # name, rw, bs, iodepth (sequential writes first: they fill the area the reads then read)
    ("seqwrite-128k", "write", "128k", 32),
    ("randwrite-4k-qd1", "randwrite", "4k", 1),
    ("randwrite-4k-qd8", "randwrite", "4k", 8),
    ("randwrite-4k-qd32", "randwrite", "4k", 32),
    ("seqread-128k", "read", "128k", 32),
    ("randread-4k-qd1", "randread", "4k", 1),
    ("randread-4k-qd8", "randread", "4k", 8),
    ("randread-4k-qd32", "randread", "4k", 32),
    ("randrw70-4k-qd1", "randrw", "4k", 1),
    ("randrw70-4k-qd8", "randrw", "4k", 8),
    ("randrw70-4k-qd32", "randrw", "4k", 32),
]
QUICK = ["seqwrite-128k", "seqread-128k", "randread-4k-qd1", "randread-4k-qd32", "randwrite-4k-qd32",
         "randrw70-4k-qd32"]


def pct(sorted_vals, p):
    """Nearest-rank percentile."""
    if not sorted_vals:
        return 0
    k = max(0, min(len(sorted_vals) - 1, int(-(-p * len(sorted_vals) // 100)) - 1))
    return sorted_vals[k]


def device_side(path):
    """The plugin's log: virtual latency percentiles (us), virtual IOPS, mean wall round trip (us)."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["op"] in ("read", "write")]
    if not rows:
        return {}
    lat = sorted(int(r["done_ns"]) - int(r["arrival_ns"]) for r in rows)
    span = max(int(r["done_ns"]) for r in rows) - min(int(r["arrival_ns"]) for r in rows)
    return {"dev_requests": len(rows), "dev_iops": len(rows) / span * 1e9 if span else 0,
            "dev_mean_us": sum(lat) / len(lat) / 1e3, "dev_p50_us": pct(lat, 50) / 1e3,
            "dev_p99_us": pct(lat, 99) / 1e3, "dev_qd": sum(lat) / span if span else 0,
            "plugin_wall_us": sum(int(r["wall_ns"]) for r in rows) / len(rows) / 1e3}


def fio_side(path):
    job = json.load(open(path))["jobs"][0]
    if job["error"]:
        sys.exit(f"fio failed: {job['error']}")
    out = {"fio_ios": 0, "fio_iops": 0.0}
    lat = []
    for d in ("read", "write"):
        out["fio_ios"] += job[d]["total_ios"]
        out["fio_iops"] += job[d]["iops"]
        cl = job[d]["clat_ns"]
        if job[d]["total_ios"]:
            lat.append((job[d]["total_ios"], cl["mean"], cl.get("percentile", {})))
    n = sum(k for k, _, _ in lat)
    out["fio_mean_us"] = sum(k * m for k, m, _ in lat) / n / 1e3 if n else 0
    # per direction percentiles: the larger (reads and writes mixed: the slower side)
    out["fio_p50_us"] = max(p.get("50.000000", 0) for _, _, p in lat) / 1e3 if lat else 0
    out["fio_p99_us"] = max(p.get("99.000000", 0) for _, _, p in lat) / 1e3 if lat else 0
    return out


def main(ctx):
    ap = argparse.ArgumentParser(prog="bin/smartssd bench fio", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runtime", type=float, default=None, help="seconds per job (default 3; --quick 1)")
    ap.add_argument("--presets", default="smartssd-paper,drs,hybrid")
    ap.add_argument("--jobs", default="", help="comma-separated job names (default: all, or --quick's)")
    ap.add_argument("--area", default="64M", help="the part of the export the jobs use (default 64M)")
    ap.add_argument("--capacity", default="256M")
    ap.add_argument("--paced", action="store_true", help="the device in paced mode (wall time follows it)")
    ap.add_argument("--refill-us", default=None, help="csd nbd --refill-us (default 2000: the device waits for fio "
                    "to refill its queue; 0: it never waits, fastest in wall time)")
    a = ap.parse_args(ctx.args)
    for t in ("fio", "nbdkit"):
        if not shutil.which(t):
            sys.exit(f"bench fio needs {t} (Debian: bin/smartssd deps installs it)")
    runtime = a.runtime or (1 if a.quick else 3)
    names = a.jobs.split(",") if a.jobs else (QUICK if a.quick else [j[0] for j in JOBS])
    jobs = [j for j in JOBS if j[0] in names]
    if len(jobs) != len(names):
        sys.exit(f"unknown job in {names}; jobs: {', '.join(j[0] for j in JOBS)}")
    csd, csdd = ctx.tool("csd"), ctx.tool("csdd")
    rows = []
    work = tempfile.mkdtemp(prefix="bench-fio.")
    try:
        for preset in a.presets.split(","):
            img, sock = os.path.join(work, f"{preset}.img"), os.path.join(work, f"{preset}.sock")
            ctx.run(csd, "format", img, "--capacity", a.capacity, "--preset", preset)
            page = int(json.loads(ctx.run(csd, "identify", img, "--json"))["geometry"]["page_bytes"])
            sets = ["--set", "paced=1"] if a.paced else []
            d = subprocess.Popen([csdd, img, "--socket", sock, *sets], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
            try:
                for _ in range(500):
                    if os.path.exists(sock):
                        break
                    time.sleep(0.02)
                # the area written once first, so reads find data on flash (not holes, which cost no flash read)
                ctx.run(csd, "nbd", "--socket", sock, "--run", f'fio --name=prefill --ioengine=nbd --uri="$uri" '
                        f'--rw=write --bs=128k --iodepth=32 --size={a.area} --output-format=terse')
                for name, rw, bs, qd in jobs:
                    lat, out = os.path.join(work, f"{preset}-{name}.csv"), os.path.join(work, f"{preset}-{name}.json")
                    if int(bs[:-1]) * 1024 < page:
                        bs = f"{page // 1024}k"   # one LBA: the smallest request the export takes
                    fio = (f'fio --name={name} --ioengine=nbd --uri="$uri" --rw={rw} --bs={bs} --iodepth={qd} '
                           f'--size={a.area} --time_based --runtime={runtime} --randrepeat=0 '
                           f'--output-format=json --output={out}' + (" --rwmixread=70" if rw == "randrw" else ""))
                    t0 = time.time()
                    refill = ["--refill-us", a.refill_us] if a.refill_us is not None else []
                    ctx.run(csd, "nbd", "--socket", sock, "--latency-csv", lat, "--threads", "64", *refill, "--run", fio)
                    r = {"preset": preset, "job": name, "page_bytes": page, "bs": bs,
                         **fio_side(out), **device_side(lat), "wall_s": time.time() - t0}
                    r["dev_per_fio"] = r.get("dev_requests", 0) / r["fio_ios"] if r["fio_ios"] else 0
                    rows.append(r)
                    print(f"{preset:15s} {name:18s} fio {r['fio_iops']:9.0f} IOPS p50 {r['fio_p50_us']:8.1f} us | "
                          f"device {r.get('dev_iops', 0):9.0f} IOPS p50 {r.get('dev_p50_us', 0):8.1f} us | "
                          f"plugin wall {r.get('plugin_wall_us', 0):6.1f} us", flush=True)
            finally:
                d.send_signal(signal.SIGTERM)
                d.wait(timeout=120)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    fields = ["preset", "job", "page_bytes", "bs", "fio_ios", "fio_iops", "fio_mean_us", "fio_p50_us", "fio_p99_us",
              "dev_requests", "dev_per_fio", "dev_iops", "dev_mean_us", "dev_p50_us", "dev_p99_us", "dev_qd", "plugin_wall_us",
              "wall_s"]
    ctx.write_csv(rows, fields)
    presets = list(dict.fromkeys(r["preset"] for r in rows))
    names = [j[0] for j in jobs]
    by = {(r["preset"], r["job"]): r for r in rows}
    abbrev = {"seqwrite": "SW", "seqread": "SR", "randwrite": "W", "randread": "R", "randrw70": "M"}
    short = [abbrev[n.split("-")[0]] + (n.split("qd")[1] if "qd" in n else "") for n in names]
    xlabel = "R/W/M = random read/write/70-30 mix at QD 1/8/32; SR/SW = 128k sequential"
    ser = {}
    for p in presets:
        ser[f"{p} fio"] = (short, [by[(p, n)]["fio_iops"] / 1e3 for n in names])
        ser[f"{p} device"] = (short, [by[(p, n)].get("dev_iops", 0) / 1e3 for n in names])
    ctx.plot("iops.png", f"fio through the NBD export: IOPS, fio's (wall) and the device's (virtual), {runtime:g} s/job",
             xlabel, "thousand IOPS (log)", ser, kind="bar",
             logy=True, legend_below=True)
    ser = {}
    for p in presets:
        ser[f"{p} fio"] = (short, [by[(p, n)]["fio_p50_us"] for n in names])
        ser[f"{p} device"] = (short, [by[(p, n)].get("dev_p50_us", 0) for n in names])
    ctx.plot("latency.png", "fio through the NBD export: median completion latency, fio's and the device's",
             xlabel, "median latency (us, log)", ser,
             kind="bar",
             logy=True, legend_below=True)
    for p in presets:
        r = by.get((p, "randread-4k-qd32"))
        if r:
            ctx.headline(f"{p}: fio {r['bs']} randread QD32, fio's IOPS (wall)", round(r["fio_iops"]), "IOPS")
            ctx.headline(f"{p}: fio {r['bs']} randread QD32, the device's IOPS (virtual)", round(r.get("dev_iops", 0)),
                         "IOPS")
        r1 = by.get((p, "randread-4k-qd1"))
        if r1:
            # at QD 1 each exchange carries one request: its wall time is the daemon's command round trip
            # (BlockSubmit + BlockPoll, the device's emulation included)
            ctx.headline(f"{p}: the daemon's round trip, 4k read at QD 1 (BlockSubmit+BlockPoll)",
                         round(r1.get("plugin_wall_us", 0), 1), "us")
    ctx.finish(rows, ["preset", "job", "bs", "fio_iops", "fio_p50_us", "fio_p99_us", "dev_iops", "dev_p50_us", "dev_p99_us",
                      "dev_qd", "dev_per_fio", "plugin_wall_us"])
