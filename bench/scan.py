"""bench scan: how close the emulator's scans come to the machine's memory speed, in one run.

    bin/smartssd bench scan [--size 1G] [--runs 3]
    bin/smartssd bench scan --quick        # 64 MiB, one run of each: a check that it all works

Datasets (generated once into out/bench/scan/data/): WorldCup98 records of 128 bytes and the same
requests as Common Log Format text, each about SIZE. Each device run (`csd run`, best of RUNS wall
times, the image already in the page cache) is set against the same run's streaming limit: the
simplest in-memory loop over the same bytes that gives the same answer (native/bench/bench_mem_limit):

| run | tasklet | limit |
|---|---|---|
| grep | grep, count lines holding `/images/` | memmem over the text, a line counted once |
| weblog-q1 | requests per region (server byte) | a stride scan of that byte of every record |
| weblog-q2 | requests per (region, type) | a stride scan of the server and type bytes |
| plan-text | plan: status = 200, count and sum of sizes per method, over the text split on spaces | the line count (memchr of newlines) |

Each run is made twice: with one host thread, and with `--set host_threads=2` ("(2 threads)" rows:
pages computed ahead on a worker and read and checksummed on the reader thread); the limits are
single-threaded loops either way, and the two runs must give the same device time and results.

Prints wall time, GB/s, the limit's GB/s and the ratio; plan-text also per core (the device's two
embedded cores run on this machine's threads one at a time today). Four more rows say what reading
the records costs before a tasklet sees them, every page's CRC-32 included (bench_mem_limit crc,
read-crc, map-crc, populate-crc over the records file): in RAM, through 64 KiB preads as the device
reads, through a shared mapping, and through the same mapping populated 1 MiB at a time with
madvise(MADV_POPULATE_READ).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PLAN_TEXT = ('text { delimiter: " " } '
             'columns { name: "method" type: STRING field: 5 } '
             'columns { name: "status" type: INT64 field: 8 } '
             'columns { name: "size" type: INT64 field: 9 } '
             'filter { binary { op: EQ left { column: 1 } right { literal { i: 200 } } } } '
             'group_by { column: 0 } '
             'aggregates { fn: COUNT_ALL } aggregates { fn: SUM arg { column: 2 } }')


def size_bytes(s):
    s = s.strip().upper().rstrip("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if s[-1:] in "KMG" else s) * mult)


def best_wall(cmd, runs):
    best, out = None, None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
        t = time.perf_counter() - t0
        if p.returncode:
            sys.exit(f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
        if best is None or t < best:
            best, out = t, p.stdout
    return best, json.loads(out)


def limit(b, path, *args):
    mode, nbytes, ns, result = b.run(b.tool("bench_mem_limit"), path, *args).strip().split(",")
    return int(nbytes), int(ns) / 1e9, int(result)


def main(b):
    size, runs = "1G", 3
    a = list(b.args)
    if "--size" in a:
        size = a[a.index("--size") + 1]
    if "--runs" in a:
        runs = int(a[a.index("--runs") + 1])
    if "--quick" in a or "quick" in a:
        size, runs = "64M", 1
    nbytes = size_bytes(size)
    data = os.path.join(b.out, "data")
    os.makedirs(data, exist_ok=True)
    records = os.path.join(data, f"wc98-128-{size}.bin")
    text = os.path.join(data, f"access-{size}.log")
    gen = [os.path.join(ROOT, "bin", "smartssd"), "weblog", "gen"]
    if not os.path.exists(records):
        b.run(*gen, "--output", records, "--size", str(nbytes), "--entry-bytes", "128", capture=False)
    if not os.path.exists(text):
        b.run(*gen, "--output", text, "--size", str(nbytes), "--format", "clf", capture=False)
    csd = b.tool("csd")
    img = os.path.join(data, "dev.img")
    if os.path.exists(img):
        os.remove(img)
    cap = (os.path.getsize(records) + os.path.getsize(text)) * 5 // 4 + (64 << 20)
    b.run(csd, "format", img, "--capacity", f"{cap >> 20}M")
    b.run(csd, "put", img, "wc", records)
    b.run(csd, "put", img, "clf", text)
    plan = os.path.join(data, "plan-text.bin")
    with open(plan, "wb") as f:
        subprocess.run(["protoc-c", "--encode=smartssd.v1.Plan", "-I", os.path.join(ROOT, "proto"),
                        os.path.join(ROOT, "proto", "smartssd", "v1", "device.proto")],
                       input=PLAN_TEXT.encode(), stdout=f, check=True)

    cases = [
        ("grep", [csd, "run", img, "grep", "--input", "clf", "--param", "pattern=/images/", "--json"],
         (text, "memmem", "/images/")),
        ("weblog-q1", [csd, "run", img, "weblog-q1", "--input", "wc", "--param", "entry_bytes=128", "--json"],
         (records, "stride", "128", "8", "1")),
        ("weblog-q2", [csd, "run", img, "weblog-q2", "--input", "wc", "--param", "entry_bytes=128", "--json"],
         (records, "stride", "128", "8", "2")),
        ("plan-text", [csd, "run", img, "plan", "--input", "clf", "--plan", plan, "--json"], (text, "lines")),
    ]
    # The same runs with 2 host threads (tasklet pages computed ahead on workers, pages read and
    # checksummed on the reader thread); the limits stay single-threaded loops, so these rows are
    # labelled apart. Device times must not change with the thread count.
    cases += [(f"{name} (2 threads)", cmd + ["--set", "host_threads=2"], lim) for name, cmd, lim in cases]
    rows = []
    device_ns = {}
    for name, cmd, lim in cases:
        wall, out = best_wall(cmd, runs)
        nb, lim_s, lim_result = limit(b, *lim)
        gbs, lim_gbs = nb / wall / 1e9, nb / lim_s / 1e9
        row = {"run": name, "bytes": nb, "wall_s": wall, "GB_per_s": gbs, "limit": lim[1],
               "limit_GB_per_s": lim_gbs, "ratio": gbs / lim_gbs, "device_s": out["device_ns"] / 1e9}
        if name.startswith("grep") and out["results"]["count"] != lim_result:
            sys.exit(f"grep counted {out['results']['count']} lines, the limit loop {lim_result}")
        base = name.split(" (")[0]
        if device_ns.setdefault(base, (out["device_ns"], out["results"]))[0] != out["device_ns"] or \
                device_ns[base][1] != out["results"]:
            sys.exit(f"{name}: device time or results differ from the one-thread run")
        rows.append(row)
    # What reading and checksumming the bytes costs before any tasklet sees them, against the same
    # stride limit as weblog-q1: the CRC-32 of every page of a copy in RAM, the device's read path
    # (64 KiB preads into one buffer, then the CRC of each page there) and a shared mapping instead,
    # faulted in page by page or populated a MiB at a time.
    q1_limit = next(r for r in rows if r["run"] == "weblog-q1")["limit_GB_per_s"]
    page = "8192"
    for name, args in [("crc-in-RAM", ("crc", page)), ("pread-64K+crc", ("read-crc", page, "65536")),
                       ("mmap+crc", ("map-crc", page)),
                       ("mmap-populate-1M+crc", ("populate-crc", page, str(1 << 20)))]:
        nb, s_, _ = limit(b, records, *args)
        gbs = nb / s_ / 1e9
        rows.append({"run": name, "bytes": nb, "wall_s": s_, "GB_per_s": gbs, "limit": "stride",
                     "limit_GB_per_s": q1_limit, "ratio": gbs / q1_limit, "device_s": ""})
    cols = ["run", "bytes", "wall_s", "GB_per_s", "limit", "limit_GB_per_s", "ratio", "device_s"]
    b.write_csv(rows, cols)
    names = [r["run"] for r in rows[:len(cases)]]
    b.plot("scan.png", f"scans of about {size} in the page cache: device runs vs the memory limit", "run",
           "throughput (GB/s)", {"csd run (wall)": (names, [r["GB_per_s"] for r in rows[:len(cases)]]),
                                 "same-run memory limit": (names, [r["limit_GB_per_s"] for r in rows[:len(cases)]])}, kind="bar")
    for r in rows[:len(cases)]:
        b.headline(f"{r['run']}: csd run / memory limit", r["ratio"], "ratio")
    plan_row = next(r for r in rows if r["run"] == "plan-text")
    b.headline("plan-text throughput", plan_row["GB_per_s"], "GB/s (one host thread)")
    b.finish(rows, cols)
