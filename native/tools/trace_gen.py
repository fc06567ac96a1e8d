#!/usr/bin/env python3
"""Synthetic block traces matching the DRS paper's Table 1 (section VI-A): eight Nexus5 workloads, each
given by its average read size, average write size, share of write requests and request arrival rate.
The paper replays the real traces; they are not public here, so each workload is generated from its
four figures and written in the SNIA/MSR-Cambridge CSV format that `csd replay` reads.

How a trace is generated (docs/BLOCK-IO.md):
  * arrivals: in bursts of --burst requests (default 1), --burst-gap seconds apart within a burst
    (default 50 us, near the real Movie trace's median gap inside its bursts, 36 us); the bursts' starts are a
    Poisson process at the table's rate / burst, so the mean rate is the table's. --burst 1 is a
    Poisson process at the table's rate (exponential inter-arrival times, mean 1/rate s);
  * type: each request is a write with the table's probability, else a read;
  * size: a whole number of 4 KiB pages, 1 + a geometric number, so the mean is the table's size
    (kB read as 1024 bytes, as the real traces' sizes show): pages ~ Geometric(p = 4 KiB / mean size)
    on {1, 2, ...};
  * offset: 4 KiB aligned; a read follows a recent write with probability --raw (default 0): it starts
    where the latest write started (the map cache line that write is fetching, the locality DRS's
    delayed requests come from); otherwise, with probability --seq the request continues where the
    previous request of its type ended (a sequential stream), else it starts uniformly at random in the
    first --span bytes.

  python3 native/tools/trace_gen.py --workload Movie --requests 20000 --out movie.csv
  python3 native/tools/trace_gen.py --workload Radio/WB --requests 2000 --burst 16 --raw 0.5 --out rwb.csv
  python3 native/tools/trace_gen.py --all --requests 20000 --outdir traces --check
  python3 native/tools/trace_gen.py --stats movie.csv
"""
import argparse
import math
import os
import random
import sys

PAGE = 4096
KB = 1024
FILETIME0 = 128166372000000000      # a Windows filetime (100 ns units) for the first request

# DRS paper, Table 1: average read size (kB), average write size (kB), write requests (%), request
# arrival rate (requests per second)
TABLE1 = {
    "Movie": (27.5, 17.0, 5.40, 4.79),
    "YouTube": (19.5, 13.5, 97.50, 0.44),
    "Booting": (61.0, 37.5, 33.07, 460.4),
    "Facebook": (28.5, 23.5, 74.42, 3.5),
    "AngryBird": (51.0, 25.0, 84.51, 1.59),
    "Radio": (36.0, 19.5, 98.68, 1.31),
    "Radio/Msg": (17.5, 13.0, 98.15, 16.82),
    "Radio/WB": (29.0, 19.5, 72.02, 9.78),
}


def file_name(workload):
    return workload.lower().replace("/", "-") + ".csv"


def pages(rnd, mean_bytes):
    """1 + Geometric: mean = mean_bytes / PAGE pages (>= 1)."""
    m = max(1.0, mean_bytes / PAGE)
    if m == 1.0:
        return 1
    p = 1.0 / m
    u = 1.0 - rnd.random()          # (0, 1]
    return 1 + int(math.log(u) / math.log(1.0 - p))


BURST_GAP_S = 50e-6


def generate(workload, n, seed=1, span=256 << 20, seq=0.5, burst=1, burst_gap=BURST_GAP_S, raw=0.0):
    """[(time_ns, is_write, offset, size)] of n requests, in arrival order. burst = 1 and raw = 0 give
    the same trace as before either existed (same seed, same draws)."""
    rd, wr, wpct, rate = TABLE1[workload]
    rnd = random.Random(f"{workload}/{seed}")
    t = 0.0
    nxt = {False: None, True: None}
    last_write = None
    out = []
    span_pages = span // PAGE
    for i in range(n):
        if i and i % burst == 0:
            t += rnd.expovariate(rate / burst)
        w = rnd.random() < wpct / 100.0
        k = pages(rnd, (wr if w else rd) * KB)
        k = min(k, span_pages)
        if not w and raw > 0 and rnd.random() < raw and last_write is not None:
            start = min(last_write, span_pages - k)
        else:
            start = nxt[w]
            if start is None or rnd.random() >= seq or start + k > span_pages:
                start = rnd.randrange(span_pages - k + 1)
            nxt[w] = start + k
        if w:
            last_write = start
        out.append((int(round((t + (i % burst) * burst_gap) * 1e9)), w, start * PAGE, k * PAGE))
    out.sort(key=lambda r: r[0])   # bursts longer than the gap to the next one interleave with it
    return out


def write_msr(reqs, path):
    with open(path, "w") as f:
        for t_ns, w, off, size in reqs:
            f.write(f"{FILETIME0 + t_ns // 100},nexus5,0,{'Write' if w else 'Read'},{off},{size},0\n")


def stats(path):
    """Average read and write size (kB), write share (%), arrival rate (1/s) of an MSR trace."""
    rs, ws, t0, t1, n = [], [], None, None, 0
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) != 7:
                continue
            ts = int(p[0]) * 100
            t0 = ts if t0 is None else t0
            t1 = ts
            (ws if p[3].lower() == "write" else rs).append(int(p[5]))
            n += 1
    dur = (t1 - t0) / 1e9 if n > 1 else 0
    return {"read_kb": sum(rs) / len(rs) / KB if rs else 0.0, "write_kb": sum(ws) / len(ws) / KB if ws else 0.0,
            "write_pct": 100.0 * len(ws) / n if n else 0.0, "rate": (n - 1) / dur if dur else 0.0,
            "requests": n, "reads": len(rs), "writes": len(ws)}


def size_arg(text):
    """A byte count with an optional K/M/G suffix (powers of 1024), as the device's tools take."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    try:
        return int(t[:-1]) * mult[t[-1]] if t and t[-1] in mult else int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: '{text}' (e.g. 256M)")


def table(rows):
    print(f"{'workload':<10} {'read kB':>15} {'write kB':>15} {'write %':>15} {'rate /s':>17}   (generated / Table 1)")
    for name, s in rows:
        rd, wr, wp, rate = TABLE1[name]
        print(f"{name:<10} {s['read_kb']:>7.1f} / {rd:<5.1f} {s['write_kb']:>7.1f} / {wr:<5.1f} "
              f"{s['write_pct']:>6.2f} / {wp:<6.2f} {s['rate']:>8.2f} / {rate:<6.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description="DRS paper Table 1 workloads as MSR-Cambridge CSV traces")
    ap.add_argument("--workload", choices=sorted(TABLE1), help="one workload")
    ap.add_argument("--all", action="store_true", help="all eight workloads (into --outdir)")
    ap.add_argument("--requests", type=int, default=20000, help="requests per trace (default 20000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--span", type=size_arg, default=256 << 20, help="bytes the offsets fall in, e.g. 64M (default 256M)")
    ap.add_argument("--seq", type=float, default=0.5, help="share of requests that continue their type's "
                    "previous request (default 0.5)")
    ap.add_argument("--burst", type=int, default=1, help="requests per burst (default 1: Poisson arrivals)")
    ap.add_argument("--burst-gap", type=float, default=BURST_GAP_S, help="seconds between the requests of a "
                    "burst (default 50e-6)")
    ap.add_argument("--raw", type=float, default=0.0, help="share of reads that start where the latest write "
                    "started (default 0)")
    ap.add_argument("--out", help="trace file (--workload)")
    ap.add_argument("--outdir", default=".", help="directory for --all (default .)")
    ap.add_argument("--check", action="store_true", help="print the generated statistics beside Table 1")
    ap.add_argument("--stats", metavar="TRACE", help="print the statistics of an MSR trace and exit")
    a = ap.parse_args(argv)
    if a.stats:
        s = stats(a.stats)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in s.items()))
        return 0
    if a.requests < 2 or a.span < PAGE:
        ap.error("--requests must be at least 2 and --span at least one page")
    if not 1 <= a.burst <= 4096:
        ap.error("--burst must be 1..4096")
    if a.burst_gap < 0 or not 0 <= a.raw <= 1 or not 0 <= a.seq <= 1:
        ap.error("--burst-gap must be >= 0, --raw and --seq 0..1")
    names = sorted(TABLE1) if a.all else [a.workload] if a.workload else None
    if not names:
        ap.error("give --workload NAME or --all")
    if not a.all and not a.out:
        ap.error("--workload needs --out FILE")
    os.makedirs(a.outdir, exist_ok=True)
    rows = []
    for name in names:
        path = a.out if not a.all else os.path.join(a.outdir, file_name(name))
        write_msr(generate(name, a.requests, a.seed, a.span, a.seq, a.burst, a.burst_gap, a.raw), path)
        rows.append((name, stats(path)))
    if a.check:
        table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
