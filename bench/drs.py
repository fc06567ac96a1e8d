"""bench drs: the DRS paper's evaluation (Lee et al., "Internal Task-Aware Command Scheduling to Improve
Read Performance of Embedded Flash Storage Systems", IEEE Access 2021, section VI) replayed on the
device's block namespace with the drs preset (one channel, one way, 4 KB pages, tR 60 us, tProg 700 us,
a flash command queue of 256 commands, a 1 KiB map cache), its claims checked one by one.

Workloads: the paper's eight Nexus 5 traces (Table 1). Each one whose real trace (BIOTracer, Zhou et al.,
IISWC 2015) is in --traces DIR is replayed from it; the others from a synthetic stand-in shaped like its
Table 1 row (native/tools/trace_gen.py: Poisson arrivals), labelled "synthetic" in every table and plot.
Beside them:
  band        every workload's synthetic stand-in with arrivals in bursts of 1..64 requests, and with reads
              that follow the latest write (--raw), under every scheduler: the band of results, and the
              burst sizes at which each claim holds (the real traces stay real)
  paper rate  the real Booting trace replayed at Table 1's 460.4 requests/s (its own clock gives 163/s):
              the same requests, arrival times scaled

  Fig. 9    read, write and overall mean latency of every flash-command scheduler, against RCF
  Fig. 10   each request's latency in the paper's parts: I/O request queue, flash command queue, its
            own flash operation time (and the host link), RCF against DRS
  Fig. 11a  mean read latency against the map-cache size
  Fig. 11b  DRS's mean read latency against the flash command queue depth (commands), 1..512
  claims    the paper's statements, each holds (1) or not (0) with what it rests on (bench/_drs_claims.py)

A workload that offers the flash more than one second of work per second of trace falls ever further
behind: its mean latency grows with the trace's length. The bench says so and measures it over a fixed
window instead: the requests arriving in the first --window seconds (10), replayed alone.

usage: bin/smartssd bench drs [--quick] [--traces DIR] [--requests N] [--window S] [--schedulers LIST]
                              [--ftl NAME] [--bursts LIST] [--raw LIST]
       bin/smartssd bench drs --jobs
       --quick: 2000 requests per synthetic trace; bursts 1, 4, 16 without reads following writes; cache 1
                and 16 KiB (RCF, DRS); depths 1, 16, 256
       --traces DIR: BIOTracer traces named after their workload (Movie_log121.txt, Booting_log176.txt)
       --jobs: only what a small map cache costs an in-storage scan (grep over 4 MiB, dftl against page);
               writes out/bench/drs/jobs/
"""
import argparse
import csv
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "native", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_gen  # noqa: E402
import _drs_claims as claims  # noqa: E402
import _drs_report as report  # noqa: E402

SYNTH_CAPACITY = "512M"
WINDOW_S = 10.0
BURST_GAP_NS = 1000000   # arrivals closer than 1 ms belong to one burst (a real trace's burst size)


# ---- workloads ---------------------------------------------------------------------------------

def _norm(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def real_traces(d):
    """{workload: path} of the files in d named after a Table 1 workload (the longest name that
    prefixes the file's name: Radio_Msg_log3.txt is Radio/Msg, not Radio)."""
    if not d:
        return {}
    if not os.path.isdir(d):
        sys.exit(f"--traces {d}: not a directory")
    names = sorted(trace_gen.TABLE1, key=lambda w: -len(_norm(w)))
    out = {}
    for f in sorted(os.listdir(d)):
        stem = _norm(os.path.splitext(f)[0])
        w = next((w for w in names if stem.startswith(_norm(w))), None)
        if w and w not in out and os.path.isfile(os.path.join(d, f)):
            out[w] = os.path.join(d, f)
    return out


def label(w, kind):
    return f"{w} ({kind})"


class Workload:
    """A trace to replay: kind is "real trace", "synthetic" or a named variant."""

    def __init__(self, name, path, kind, capacity):
        self.name, self.path, self.kind, self.capacity = name, path, kind, capacity
        self.limit = None          # requests in the fixed window, once it is known to be overloaded
        self.load = self.peak = None
        self.label = label(name, kind)


def capacity_for(path):
    """The smallest power of two of bytes, at least 512 MiB, that holds every request of a BIOTracer
    trace (start sector + bytes), so its addresses keep their locality (no folding)."""
    top = 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[0].isdigit() and p[2].isdigit():
                top = max(top, int(p[0]) * 512 + int(p[2]))
    cap = 512 << 20
    while cap < top:
        cap <<= 1
    return f"{cap >> 20}M"


def csv_rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def peak_load(rows):
    """The most flash work offered in one second of arrivals (s per s)."""
    by = {}
    t0 = min(int(r["arrival_ns"]) for r in rows)
    for r in rows:
        k = (int(r["arrival_ns"]) - t0) // 1000000000
        by[k] = by.get(k, 0) + int(r["flash_ns"])
    return max(by.values()) / 1e9 if by else 0.0


def mean_burst(rows):
    """Mean requests per burst: arrivals closer than BURST_GAP_NS to the one before are one burst."""
    arr = sorted(int(r["arrival_ns"]) for r in rows)
    bursts = 1 + sum(1 for a, b in zip(arr, arr[1:]) if b - a > BURST_GAP_NS)
    return len(arr) / bursts if arr else 0.0


def gap_inside_us(rows):
    """The median gap between consecutive arrivals of one burst (under BURST_GAP_NS), in us."""
    arr = sorted(int(r["arrival_ns"]) for r in rows)
    g = sorted(b - a for a, b in zip(arr, arr[1:]) if b - a <= BURST_GAP_NS)
    return g[len(g) // 2] / 1000.0 if g else 0.0


def reads_after_writes(rows, line_pages=8, last=16, within_ns=1000000000):
    """Share of reads that touch a map cache line (line_pages LBAs) one of the last writes before them,
    up to within_ns earlier, touched: the reads that could wait for a write's cache-line fetch."""
    recent, hit, reads = [], 0, 0
    for r in sorted(rows, key=lambda r: int(r["arrival_ns"])):
        t, a = int(r["arrival_ns"]), int(r["lba"]) // line_pages
        b = (int(r["lba"]) + int(r["count"]) - 1) // line_pages
        if r["op"] == "write":
            recent = (recent + [(t, a, b)])[-last:]
        elif r["op"] == "read":
            reads += 1
            hit += any(t - tw <= within_ns and wa <= b and a <= wb for tw, wa, wb in recent)
    return hit / reads if reads else 0.0


def table1_row(ctx, wl):
    """Table 1's columns of a trace as the device's trace reader computes them (`csd replay
    --stats-only`: sizes from the bytes each request asks for), beside the paper's. The paper's "kB" are
    KiB (1024 bytes): the real traces' means match its figures in KiB (Movie read 27.86 KiB against
    27.5), 2-4 % further off in kB of 1000 bytes."""
    j = json.loads(ctx.run(ctx.tool("csd"), "replay", "--stats-only", "--json", wl.path))
    rd, wr, wp, rate = trace_gen.TABLE1[wl.name]
    row = {"workload": wl.label, "requests": j["requests"], "span_s": round(j["span_s"], 1),
           "read_kib": round(j["read_mean_kib"], 2), "read_kb_1000": round(j["read_mean_kib"] * 1.024, 2),
           "read_table1": rd, "write_kib": round(j["write_mean_kib"], 2),
           "write_kb_1000": round(j["write_mean_kib"] * 1.024, 2), "write_table1": wr,
           "write_pct": round(j["write_pct"], 2), "write_pct_table1": wp,
           "rate": round(j["rate_per_s"], 2), "rate_table1": rate}
    dev = {"read": claims.rel(j["read_mean_kib"], rd), "write": claims.rel(j["write_mean_kib"], wr),
           "write share": claims.rel(j["write_pct"], wp), "rate": claims.rel(j["rate_per_s"], rate)}
    row["worst_pct"] = round(max(abs(v) for v in dev.values()), 2)
    row["outside_5pct"] = " ".join(k for k, v in dev.items() if abs(v) > 5.0)
    return row


# ---- runs --------------------------------------------------------------------------------------

class Runner:
    def __init__(self, ctx, scratch, ftl, scheds, window):
        self.ctx, self.scratch, self.ftl, self.scheds, self.window = ctx, scratch, ftl, scheds, window
        self.base = "rcf" if "rcf" in scheds else scheds[0]
        self.rows = []

    def replay(self, wl, sched, sets=(), csv_out=None):
        ctx = self.ctx
        img = os.path.join(self.scratch, "run.img")
        if os.path.exists(img):
            os.unlink(img)
        ctx.run(ctx.tool("csd"), "format", img, "--capacity", wl.capacity, "--preset", "drs", "--set",
                f"ftl={self.ftl}", *[x for s in sets for x in ("--set", s)])
        args = [ctx.tool("csd"), "replay", img, wl.path, "--json", "--prefill=map", "--set", f"flash_scheduler={sched}"]
        for s in sets:
            args += ["--set", s]
        if wl.limit:
            args += ["--limit", str(wl.limit)]
        if csv_out:
            args += ["--csv", csv_out]
        j = json.loads(ctx.run(*args))
        os.unlink(img)
        lat, b, br, d = j["latency"], j["mean_breakdown"], j["mean_breakdown_read"], j["delayed_requests"]
        return {"read_us": lat["read"]["mean_us"], "write_us": lat["write"]["mean_us"], "all_us": lat["all"]["mean_us"],
                "read_p99_us": lat["read"]["p99_us"], "host_queue_us": b["host_queue_us"], "io_queue_us": b["io_queue_us"],
                "flash_queue_us": b["flash_queue_us"], "flash_us": b["flash_us"], "host_link_us": b["host_link_us"],
                "read_io_queue_us": br["io_queue_us"], "read_flash_queue_us": br["flash_queue_us"],
                "read_flash_us": br["flash_us"], "reads_delayed": d["read"]["any"], "reads_clf_delayed": d["read"]["clf"],
                "reads_dle_delayed": d["read"]["dle"], "offered_load": j["offered_load"],
                "flash_commands": j["flash_commands"], "replay_wall_s": j["replay_wall_s"], "requests": j["requests"],
                "reads": j["reads"], "writes": j["writes"]}

    def measure(self, wl, exp, scheds=None, sets=(), first_csv=None, **tags):
        """Every scheduler on wl ({scheduler: result}); the base first, which tells the offered load: when
        it is above 1 the workload is measured over the fixed window from then on. first_csv keeps the
        first run's per-request CSV."""
        scheds = scheds or self.scheds
        order = [self.base] + [s for s in scheds if s != self.base] if self.base in scheds else scheds
        first_csv = first_csv or os.path.join(self.scratch, "first.csv")
        res = {}
        for s in order:
            r = self.replay(wl, s, sets, first_csv if s == order[0] else None)
            if s == order[0] and wl.limit is None and r["offered_load"] > 1.0:
                arr = sorted(int(x["arrival_ns"]) for x in csv_rows(first_csv))
                self.rows.append(dict(exp=exp + "-whole-trace", workload=wl.label, scheduler=s, **tags, **r))
                wl.limit = sum(1 for t in arr if t - arr[0] < self.window * 1e9)
                print(f"  {wl.label}: offered load {r['offered_load']:.2f} s of flash work per s: the flash falls ever "
                      f"further behind; measured over its first {self.window:g} s ({wl.limit} requests)", flush=True)
                r = self.replay(wl, s, sets)
            res[s] = r
        for s in scheds:
            row = dict(exp=exp, workload=wl.label, scheduler=s, window_s=self.window if wl.limit else "", **tags, **res[s])
            if self.base in res:
                for k in ("read", "write", "all"):
                    row[f"{k}_rel_pct"] = round(claims.rel(res[s][f"{k}_us"], res[self.base][f"{k}_us"]), 2)
            self.rows.append(row)
        return res


def fig9_of(res):
    return {s: {"read": r["read_us"], "write": r["write_us"], "all": r["all_us"]} for s, r in res.items()}


def fig10_of(res):
    return {s: {"io_queue": r["io_queue_us"], "flash_queue": r["flash_queue_us"], "flash": r["flash_us"],
                "link": r["host_link_us"]} for s, r in res.items()}


def paper_rate_trace(rows, rate, path):
    """The requests a replay saw (its CSV: pages and arrivals) as an MSR trace whose arrival times are
    scaled to rate requests per second over the same span."""
    arr = [int(r["arrival_ns"]) for r in rows]
    t0, span = min(arr), max(arr) - min(arr)
    scale = (len(rows) - 1) / rate * 1e9 / span
    reqs = [(int(round((int(r["arrival_ns"]) - t0) * scale)), r["op"] == "write", int(r["lba"]) * 4096,
             int(r["count"]) * 4096) for r in rows if r["op"] in ("read", "write")]
    trace_gen.write_msr(sorted(reqs, key=lambda q: q[0]), path)
    return scale


# ---- main --------------------------------------------------------------------------------------

def jobs(ctx):
    """Device time of `csd run grep` on dftl (the paper's 1 KiB cache) vs page; each run is a fresh
    session, so the map cache starts cold."""
    ctx.out = os.path.join(ctx.out, "jobs")
    scratch = os.path.join(ctx.out, "scratch")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    text = os.path.join(scratch, "text.txt")
    rng, lines, want = 1, [], 0
    size = 0
    while size < 4 << 20:
        chars = []
        for _ in range(60):
            rng = (rng * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            chars.append("abcdefghijklmnopqrstuvwxyz "[(rng >> 33) % 27])
        line = "".join(chars)
        if (rng >> 40) % 20 == 0:
            line = "needle " + line
        want += "needle" in line
        lines.append(line)
        size += len(line) + 1
    with open(text, "w") as f:
        f.write("\n".join(lines) + "\n")
    rows = []
    for ftl in ("page", "dftl"):
        img = os.path.join(scratch, f"{ftl}.img")
        ctx.run(ctx.tool("csd"), "format", img, "--capacity", "64M", "--preset", "drs", "--set", f"ftl={ftl}")
        ctx.run(ctx.tool("csd"), "put", img, "text", text)
        for cores in (2, 16):
            j = json.loads(ctx.run(ctx.tool("csd"), "run", img, "grep", "--input", "text", "--param", "pattern=needle",
                                   "--set", "flash_scheduler=drs", "--set", f"cores={cores}", "--json"))
            if j["results"]["count"] != want:
                sys.exit(f"grep on {ftl}: {j['results']['count']} lines, the text has {want}")
            rows.append({"ftl": ftl, "cores": cores, "device_ms": round(j["device_ns"] / 1e6, 3), "pages": j["pages"],
                         "matches": want})
            print(f"  grep {ftl:<5} cores {cores:>2}: {j['device_ns'] / 1e6:10.3f} ms over {j['pages']} pages", flush=True)
    ctx.write_csv(rows)
    by = {(r["ftl"], r["cores"]): r["device_ms"] for r in rows}
    ctx.plot("isp_scan.png", "grep over 4 MiB on the drs preset: device time by FTL", "cores (count)",
             "device time (ms)", {f: ([2, 16], [by[(f, 2)], by[(f, 16)]]) for f in ("page", "dftl")}, kind="bar")
    for cores in (2, 16):
        ctx.headline(f"grep device time, dftl (1 KiB map cache) vs page, {cores} cores",
                     round(100.0 * (by[("dftl", cores)] / by[("page", cores)] - 1.0), 2), "%")
    shutil.rmtree(scratch, ignore_errors=True)
    ctx.finish(rows, ["ftl", "cores", "device_ms", "pages", "matches"])


def policies(ctx, scratch):
    img = os.path.join(scratch, "probe.img")
    ctx.run(ctx.tool("csd"), "format", img, "--capacity", "16M", "--preset", "drs")
    ident = json.loads(ctx.run(ctx.tool("csd"), "identify", img, "--json"))
    os.unlink(img)
    split = lambda s: [x.strip() for x in s.split(",") if x.strip()]   # noqa: E731
    return split(ident["policies"].get("flash_scheduler", "fifo")), split(ident["policies"].get("ftl", "page"))


def numbers(s, kind):
    return [kind(x) for x in s.split(",") if x.strip()]


def main(ctx):
    if "--jobs" in ctx.args:
        return jobs(ctx)
    ap = argparse.ArgumentParser(prog="bin/smartssd bench drs")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--traces", help="directory of real BIOTracer traces (Movie_*.txt, Booting_*.txt, ...)")
    ap.add_argument("--requests", type=int, help="requests per synthetic trace (default 10000; --quick 2000)")
    ap.add_argument("--window", type=float, default=WINDOW_S, help="seconds of an overloaded trace measured (10)")
    ap.add_argument("--schedulers", help="comma-separated (default: every one the device lists)")
    ap.add_argument("--ftl", default="dftl")
    ap.add_argument("--bursts", help="burst sizes of the synthetic band (default 1,2,4,8,16,32,64; --quick 1,4,16)")
    ap.add_argument("--raw", help="shares of reads that follow the latest write, in the band (default 0,0.5; "
                    "--quick 0)")
    a = ap.parse_args(ctx.args)
    scratch = os.path.join(ctx.out, "scratch")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    scheds, ftls = policies(ctx, scratch)
    if a.schedulers:
        scheds = [s for s in a.schedulers.split(",") if s]
    if a.ftl not in ftls:
        sys.exit(f"--ftl {a.ftl}: the device lists {', '.join(ftls)}")
    n = a.requests or (2000 if a.quick else 10000)
    bursts = numbers(a.bursts, int) if a.bursts else ([1, 4, 16] if a.quick else [1, 2, 4, 8, 16, 32, 64])
    raws = numbers(a.raw, float) if a.raw else ([0.0] if a.quick else [0.0, 0.5])
    caches = [1024, 16384] if a.quick else [1024, 2048, 4096, 8192, 16384, 65536]
    depths = [1, 16, 256] if a.quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    cache_scheds = [s for s in scheds if s in ("rcf", "drs")] if a.quick else scheds
    if 1 not in bursts or 0.0 not in raws:
        sys.exit("--bursts must hold 1 and --raw 0 (the Poisson stand-in)")
    real = real_traces(a.traces)
    R = Runner(ctx, scratch, a.ftl, scheds, a.window)
    base = R.base
    print(f"bench drs: real traces: {', '.join(f'{w} ({os.path.basename(p)})' for w, p in real.items()) or 'none'}; "
          f"synthetic: {n} requests each; schedulers {', '.join(scheds)} (against {base}); ftl {a.ftl}", flush=True)

    def synth(w, burst=1, raw=0.0):
        path = os.path.join(scratch, f"{trace_gen.file_name(w)[:-4]}-b{burst}-r{raw:g}.csv")
        trace_gen.write_msr(trace_gen.generate(w, n, burst=burst, raw=raw), path)
        return Workload(w, path, "synthetic", SYNTH_CAPACITY)

    main_wl = {w: Workload(w, real[w], "real trace", capacity_for(real[w])) if w in real else synth(w)
               for w in sorted(trace_gen.TABLE1)}

    # Fig. 9 and 10 on each workload's main trace
    fig9, fig10, wl_rows, real_rows = {}, {}, [], {}
    for w, wl in main_wl.items():
        first = os.path.join(scratch, f"first-{_norm(w)}.csv")
        res = R.measure(wl, "fig9", first_csv=first)
        got = csv_rows(first)
        wl.load, wl.peak = res[base]["offered_load"], peak_load(got)
        if wl.kind == "real trace":
            real_rows[w] = got
        wl_rows.append({**table1_row(ctx, wl), "mean_burst": round(mean_burst(got), 2),
                        "burst_gap_us": round(gap_inside_us(got), 1),
                        "reads_after_writes_pct": round(100 * reads_after_writes(got), 2), "offered_load": round(wl.load, 3),
                        "peak_1s_load": round(wl.peak, 3), "window_s": a.window if wl.limit else ""})
        fig9[w], fig10[w] = fig9_of(res), fig10_of(res)
        for s in scheds:
            print(f"  {wl.label:<24} {s:<5} read {res[s]['read_us']:>11.1f} us  write {res[s]['write_us']:>11.1f} us",
                  flush=True)
    ctx.write_csv(wl_rows, name="workloads.csv")

    # the real Booting trace at Table 1's rate
    paper_rate = {}
    if "Booting" in real_rows:
        path = os.path.join(scratch, "booting-table1-rate.csv")
        scale = paper_rate_trace(real_rows["Booting"], trace_gen.TABLE1["Booting"][3], path)
        wl = Workload("Booting", path, "real trace at 460.4/s", main_wl["Booting"].capacity)
        res = R.measure(wl, "paper-rate", time_scale=round(scale, 4))
        paper_rate = {"label": wl.label, "scale": scale, "limit": wl.limit, "fig9": fig9_of(res),
                      "fig10": fig10_of(res), "load": res[base]["offered_load"]}
        print(f"  {wl.label}: arrivals x {scale:.3f}; DRS read "
              f"{claims.rel(res['drs']['read_us'], res[base]['read_us']) if 'drs' in res else 0:+.1f} %", flush=True)

    # Fig. 11b: the flash command queue depth, DRS; Fig. 11a: the map cache
    sweep = "drs" if "drs" in scheds else base
    fig11b, fig11a = {}, {}
    for w, wl in main_wl.items():
        for d in depths:
            r = R.measure(wl, "fig11b", scheds=[sweep], sets=(f"flash_queue_depth={d}",), depth=d)
            fig11b.setdefault(w, {})[d] = r[sweep]["read_us"]
        print(f"  fig 11b {wl.label}: " + ", ".join(f"{d}: {fig11b[w][d]:.0f} us" for d in depths), flush=True)
    if a.ftl != "page":
        for w, wl in main_wl.items():
            for c in caches:
                r = R.measure(wl, "fig11a", scheds=cache_scheds, sets=(f"map_cache_bytes={c}",), cache=c)
                fig11a.setdefault(c, {})[w] = {s: r[s]["read_us"] for s in cache_scheds}
            print(f"  fig 11a {wl.label}: " + ", ".join(
                f"{c} B: DRS {claims.rel(fig11a[c][w]['drs'], fig11a[c][w][base]):+.1f} %" for c in caches
                if "drs" in fig11a[c][w]), flush=True)

    # a control for Fig. 11a: a working set the larger caches hold (a 4 MiB span: 1024 pages, 128 lines
    # of 8 entries), in bursts of 8, so its misses are capacity misses a larger cache removes
    reuse = {}
    pair = [s for s in (base, "drs") if s in scheds]
    if a.ftl != "page" and len(pair) == 2:
        path = os.path.join(scratch, "radio-wb-span4m-b8.csv")
        trace_gen.write_msr(trace_gen.generate("Radio/WB", max(n // 2, 1000), span=4 << 20, burst=8), path)
        wl = Workload("Radio/WB", path, "synthetic, 4 MiB span, bursts of 8", SYNTH_CAPACITY)
        for c in caches:
            reuse[c] = R.measure(wl, "fig11a-control", scheds=pair, sets=(f"map_cache_bytes={c}",), cache=c)
        print(f"  fig 11a control {wl.label}: " + ", ".join(
            f"{c} B: DRS {claims.rel(reuse[c]['drs']['read_us'], reuse[c][base]['read_us']):+.1f} %" for c in caches),
            flush=True)

    # the synthetic band: every workload's stand-in, burst sizes x reads following writes
    band = {}
    for raw in raws:
        for b in bursts:
            for w in main_wl:
                if b == 1 and raw == 0.0 and main_wl[w].kind == "synthetic":
                    band[(raw, b, w)] = {"fig9": fig9[w], "fig10": fig10[w]}
                    continue
                res = R.measure(synth(w, b, raw), "band", burst=b, raw=raw)
                band[(raw, b, w)] = {"fig9": fig9_of(res), "fig10": fig10_of(res),
                                     "reads_delayed": res[sweep]["reads_delayed"], "reads": res[sweep]["reads"]}
            print(f"  band raw {raw:g} burst {b}: " + ", ".join(
                f"{w} {claims.rel(band[(raw, b, w)]['fig9'][sweep]['read'], band[(raw, b, w)]['fig9'][base]['read']):+.1f} %"
                for w in main_wl), flush=True)

    ctx.write_csv(R.rows, report.FIELDS)
    shutil.rmtree(scratch, ignore_errors=True)
    report.finish(ctx, R, main_wl, wl_rows, fig9, fig10, fig11a, fig11b, band, bursts, raws, depths, paper_rate,
                  reuse)
