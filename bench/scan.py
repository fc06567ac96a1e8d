"""bench scan: how close the emulator's scans come to the machine's memory speed, like with like.

    bin/smartssd bench scan [--size 1G] [--samples 5]
    bin/smartssd bench scan --quick        # 64 MiB, 5 samples: a check that it all works
    bin/smartssd bench scan --vs REF       # also: this build's csd against REF's, paired (bench/vs.py)

Datasets (generated once into out/bench/scan/data/): WorldCup98 records of 128 bytes and the same
requests as Common Log Format text, each about SIZE. Each device run (`csd run`, the image already in
the page cache) is set against the streaming limit: the simplest in-memory loop over the same bytes
that computes the same answer as the run's tasklet (native/bench/bench_mem_limit), on as many
threads as the run has host threads; the bench stops if the two answers differ:

| run | tasklet | limit |
|---|---|---|
| grep | grep, count lines holding `/images/` | memmem over the text, a line counted once |
| weblog-q1 | requests per region (server byte 19) | the same count over byte 19 of every record |
| weblog-q2 | requests per (region, type) | the same counts over bytes 18-19 of every record |
| plan-text | plan: status = 200, count and sum of sizes per method, over the text split on spaces | the same per-method count and sum, fields split on spaces |

Each run is made with one host thread and with `--set host_threads=2` ("(2 threads)" rows: pages
computed ahead on a worker and read and checksummed on the reader thread), against a one-thread and a
two-thread limit; the two device runs must give the same device time and results. Every figure is
the median of SAMPLES (at least 5) samples, each a device run followed by a limit run so load that
drifts hits both, with min and max beside it and the samples in summary.json; a target is met or not
on the median. CPU time (user + system) of each device run and the load average are recorded too.

Four more rows say what reading the records costs before a tasklet sees them, every page's CRC-32
included (bench_mem_limit crc, read-crc, map-crc, populate-crc over the records file, one thread):
in RAM, through 64 KiB preads as the device reads, through a shared mapping, and through the same
mapping populated 1 MiB at a time with madvise(MADV_POPULATE_READ).
"""
import json
import os
import resource
import subprocess
import sys
import time

import benchlib

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


def timed(cmd):
    """(wall s, CPU s of the process, stdout) of one run."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p.stdout


def limit(b, path, *args, threads=1, samples=1):
    """(bytes, [seconds per pass], answer) of bench_mem_limit."""
    out = json.loads(b.run(b.tool("bench_mem_limit"), path, *args, "-t", str(threads), "-n", str(samples)))
    return out["bytes"], [ns / 1e9 for ns in out["ns"]], out["answer"]


# What each run's tasklet answers, in the shape bench_mem_limit prints it.
ANSWER = {
    "grep": lambda r: r["count"],
    "weblog-q1": lambda r: r["regions"],
    "weblog-q2": lambda r: {region: v["types"] for region, v in r["regions"].items()},
    "plan-text": lambda r: sorted(r["rows"]),
}
# The figure of bench/targets.py a run's ratio is judged against, if any.
RATIO_TARGET = {"grep": "grep / memory limit", "weblog-q1": "weblog-q1 / memory limit"}


def options(args):
    a = list(args)
    size, samples, vs = "1G", 5, None
    if "--size" in a:
        size = a[a.index("--size") + 1]
    if "--runs" in a:   # the old name
        samples = int(a[a.index("--runs") + 1])
    if "--samples" in a:
        samples = int(a[a.index("--samples") + 1])
    if "--vs" in a:
        vs = a[a.index("--vs") + 1]
    if "--quick" in a or "quick" in a:
        size = "64M"
    if samples < 5:
        sys.exit(f"bench scan: --samples {samples}: every figure is the median of at least 5 samples")
    return size, samples, vs


def main(b):
    size, samples, vs = options(b.args)
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

    base = [
        ("grep", ["run", img, "grep", "--input", "clf", "--param", "pattern=/images/", "--json"],
         (text, "memmem", "/images/")),
        ("weblog-q1", ["run", img, "weblog-q1", "--input", "wc", "--param", "entry_bytes=128", "--json"],
         (records, "weblog-q1", "128")),
        ("weblog-q2", ["run", img, "weblog-q2", "--input", "wc", "--param", "entry_bytes=128", "--json"],
         (records, "weblog-q2", "128")),
        ("plan-text", ["run", img, "plan", "--input", "clf", "--plan", plan, "--json"], (text, "plan-text")),
    ]
    # The same runs with 2 host threads (tasklet pages computed ahead on workers, pages read and
    # checksummed on the reader thread), against limits on 2 threads. Device times must not change
    # with the thread count.
    cases = [(name, 1, args, lim) for name, args, lim in base]
    cases += [(name, 2, args + ["--set", "host_threads=2"], lim) for name, args, lim in base]
    rows, sample_rows = [], []
    device_ns, walls = {}, {}
    for name, threads, args, lim in cases:
        label = name if threads == 1 else f"{name} (2 threads)"
        ws, cs, ls, loads = [], [], [], []
        for i in range(samples):
            loads.append(b_load())
            wall, cpu, out = timed([csd] + args)
            out = json.loads(out)
            nb, lim_s, answer = limit(b, *lim, threads=threads)
            if ANSWER[name](out["results"]) != answer:
                sys.exit(f"{label}: the tasklet answered {ANSWER[name](out['results'])}, "
                         f"the limit loop {answer}: they must compute the same")
            got = (out["device_ns"], out["results"])
            if device_ns.setdefault(name, got) != got:
                sys.exit(f"{label}: device time or results differ from the first run")
            ws.append(wall)
            cs.append(cpu)
            ls.append(lim_s[0])
            sample_rows.append({"run": label, "sample": i, "wall_s": wall, "cpu_s": cpu, "limit_s": lim_s[0],
                                "ratio": lim_s[0] / wall, "load": loads[-1]})
        walls[label] = ws
        ratios = [l / w for l, w in zip(ls, ws)]
        m = benchlib.median(ratios)
        rows.append({"run": label, "threads": threads, "bytes": nb, "wall_s": benchlib.median(ws)["median"],
                     "wall_min_s": min(ws), "wall_max_s": max(ws), "cpu_s": benchlib.median(cs)["median"],
                     "GB_per_s": nb / benchlib.median(ws)["median"] / 1e9,
                     "limit_GB_per_s": nb / benchlib.median(ls)["median"] / 1e9,
                     "ratio": m["median"], "ratio_min": m["min"], "ratio_max": m["max"], "samples": samples,
                     "load": f"{min(loads):.1f}-{max(loads):.1f}", "device_s": out["device_ns"] / 1e9})
        target = RATIO_TARGET.get(name)
        b.headline(f"{label}: csd run / memory limit on {threads} thread{'s' if threads > 1 else ''}", None,
                   "ratio", samples=ratios, target=target)
        if name == "plan-text" and threads == 1:
            plan_gbs = [nb / w / 1e9 for w in ws]
    b.headline("plan-text throughput", None, "GB/s (one host thread)", samples=plan_gbs,
               target="text plan throughput")
    # One text plan request on 2 host threads against 1, sample by sample.
    b.headline("plan-text: wall on 2 host threads / on 1", None, "ratio (ideal 0.5)",
               samples=[w2 / w1 for w1, w2 in zip(walls["plan-text"], walls["plan-text (2 threads)"])])
    # What reading and checksumming the bytes costs before any tasklet sees them, against the same
    # one-thread limit as weblog-q1: the CRC-32 of every page of a copy in RAM, the device's read path
    # (64 KiB preads into one buffer, then the CRC of each page there) and a shared mapping instead,
    # faulted in page by page or populated a MiB at a time.
    q1_limit = next(r for r in rows if r["run"] == "weblog-q1")["limit_GB_per_s"]
    page = "8192"
    for name, args in [("crc-in-RAM", ("crc", page)), ("pread-64K+crc", ("read-crc", page, "65536")),
                       ("mmap+crc", ("map-crc", page)),
                       ("mmap-populate-1M+crc", ("populate-crc", page, str(1 << 20)))]:
        nb, secs, _ = limit(b, records, *args, samples=samples)
        gbs = nb / benchlib.median(secs)["median"] / 1e9
        rows.append({"run": name, "threads": 1, "bytes": nb, "wall_s": benchlib.median(secs)["median"],
                     "wall_min_s": min(secs), "wall_max_s": max(secs), "GB_per_s": gbs,
                     "limit_GB_per_s": q1_limit, "ratio": gbs / q1_limit, "samples": samples})
    loads = [r["load"] for r in sample_rows]
    b.headline("1-min load average during the samples", f"{min(loads):.1f}-{max(loads):.1f}", "")
    cols = ["run", "threads", "bytes", "wall_s", "wall_min_s", "wall_max_s", "cpu_s", "GB_per_s",
            "limit_GB_per_s", "ratio", "ratio_min", "ratio_max", "samples", "load", "device_s"]
    b.write_csv(rows, cols)
    b.write_csv(sample_rows, ["run", "sample", "wall_s", "cpu_s", "limit_s", "ratio", "load"], name="samples.csv")
    n = len(cases)
    names = [r["run"] for r in rows[:n]]
    b.plot("scan.png", f"scans of about {size} in the page cache: device runs vs the memory limit "
           f"(medians of {samples})", "run", "throughput (GB/s)",
           {"csd run (wall)": (names, [r["GB_per_s"] for r in rows[:n]]),
            "memory limit, same threads": (names, [r["limit_GB_per_s"] for r in rows[:n]])}, kind="bar")
    if vs:
        import vs as vsmod
        vsmod.scan_pairs(b, vs, [(n_ if t == 1 else f"{n_} (2 threads)", args) for n_, t, args, _ in cases],
                         samples)
    b.finish(rows, cols[:1] + ["wall_s", "GB_per_s", "limit_GB_per_s", "ratio", "ratio_min", "ratio_max",
                               "cpu_s", "load", "device_s"])


def b_load():
    return os.getloadavg()[0]
