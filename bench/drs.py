"""bench drs: the DRS paper's evaluation (Lee et al., "Internal Task-Aware Command Scheduling to Improve
Read Performance of Embedded Flash Storage Systems", IEEE Access 2021, section VI) replayed on the
device's block namespace with the drs preset (one channel, one way, 4 KB pages, tR 60 us, tProg 700 us,
a flash command queue of 256 commands, a 1 KiB map cache), its claims checked one by one.

Workloads: the paper's eight Nexus 5 traces (Table 1). Each one whose real trace (BIOTracer, Zhou et al.,
IISWC 2015) is in --traces DIR is replayed from it; the others from a synthetic stand-in shaped like its
Table 1 row (native/tools/trace_gen.py), labelled "synthetic" in every table and plot. For the synthetic
ones the band of results over burst sizes (1..64 requests per burst) and over reads that follow recent
writes is published beside the Poisson stand-in, with the burst sizes that reproduce each claim.

  Fig. 9    read, write and overall mean latency of every flash-command scheduler, against RCF
  Fig. 10   each request's latency in the paper's parts: I/O request queue, flash command queue, its
            own flash operation time (and the host link), RCF against DRS
  Fig. 11a  mean read latency against the map-cache size
  Fig. 11b  DRS's mean read latency against the flash command queue depth (commands), 1..512
  claims    the paper's statements, each holds (1) or not (0) with what it rests on (bench/_drs_claims.py)

A workload that offers the flash more than one second of work per second of trace falls ever further
behind: its mean latency grows with the trace's length. The bench says so and measures it over a fixed
window instead (the requests arriving in the first --window seconds, replayed alone).

usage: bin/smartssd bench drs [--quick] [--traces DIR] [--requests N] [--window S] [--schedulers LIST]
                              [--ftl NAME] [--bursts LIST] [--raw LIST]
       bin/smartssd bench drs --jobs
       --quick: 2000 requests per synthetic trace; bursts 1, 16, 64; cache 1 and 16 KiB; depths 1, 16, 256
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

SYNTH_CAPACITY = "512M"
WINDOW_S = 10.0


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


def label(w, real):
    return f"{w} ({'real trace' if real else 'synthetic'})"


class Workload:
    def __init__(self, name, path, real, capacity):
        self.name, self.path, self.real, self.capacity = name, path, real, capacity
        self.limit = None          # requests in the fixed window, when overloaded
        self.load = self.peak = None
        self.label = label(name, real)


def capacity_for(path):
    """The smallest power of two of bytes, at least 512 MiB, that holds every request of a BIOTracer
    trace (start sector + size), so its addresses keep their locality (no folding)."""
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


# ---- runs --------------------------------------------------------------------------------------

def policies(ctx, scratch):
    img = os.path.join(scratch, "probe.img")
    ctx.run(ctx.tool("csd"), "format", img, "--capacity", "16M", "--preset", "drs")
    ident = json.loads(ctx.run(ctx.tool("csd"), "identify", img, "--json"))
    os.unlink(img)
    split = lambda s: [x.strip() for x in s.split(",") if x.strip()]   # noqa: E731
    return split(ident["policies"].get("flash_scheduler", "fifo")), split(ident["policies"].get("ftl", "page"))


def replay(ctx, scratch, wl, ftl, sched, sets=(), limit=None, csv_out=None):
    img = os.path.join(scratch, "run.img")
    if os.path.exists(img):
        os.unlink(img)
    ctx.run(ctx.tool("csd"), "format", img, "--capacity", wl.capacity, "--preset", "drs", "--set", f"ftl={ftl}",
            *[x for s in sets for x in ("--set", s)])
    args = [ctx.tool("csd"), "replay", img, wl.path, "--json", "--prefill", "--set", f"flash_scheduler={sched}"]
    for s in sets:
        args += ["--set", s]
    lim = limit or wl.limit
    if lim:
        args += ["--limit", str(lim)]
    if csv_out:
        args += ["--csv", csv_out]
    j = json.loads(ctx.run(*args))
    os.unlink(img)
    lat, b, br = j["latency"], j["mean_breakdown"], j["mean_breakdown_read"]
    return {"read_us": lat["read"]["mean_us"], "write_us": lat["write"]["mean_us"], "all_us": lat["all"]["mean_us"],
            "read_p99_us": lat["read"]["p99_us"], "io_queue_us": b["io_queue_us"], "flash_queue_us": b["flash_queue_us"],
            "flash_us": b["flash_us"], "host_link_us": b["host_link_us"], "read_io_queue_us": br["io_queue_us"],
            "read_flash_queue_us": br["flash_queue_us"], "read_flash_us": br["flash_us"],
            "offered_load": j["offered_load"], "flash_commands": j["flash_commands"], "replay_wall_s": j["replay_wall_s"],
            "requests": j["requests"], "reads": j["reads"], "writes": j["writes"], "skipped": j["skipped_lines"]}


def csv_rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def peak_load(rows):
    """The largest flash work offered in one second of arrivals (s per s)."""
    by = {}
    t0 = min(int(r["arrival_ns"]) for r in rows)
    for r in rows:
        k = (int(r["arrival_ns"]) - t0) // 1000000000
        by[k] = by.get(k, 0) + int(r["flash_ns"])
    return max(by.values()) / 1e9 if by else 0.0


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


def ints(s):
    return [int(x) for x in s.split(",") if x.strip()]


def floats(s):
    return [float(x) for x in s.split(",") if x.strip()]


def main(ctx):
    if "--jobs" in ctx.args:
        return jobs(ctx)
    ap = argparse.ArgumentParser(prog="bin/smartssd bench drs")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--traces", help="directory of real BIOTracer traces (Movie_*.txt, Booting_*.txt, ...)")
    ap.add_argument("--requests", type=int, help="requests per synthetic trace (default 10000; --quick 2000)")
    ap.add_argument("--window", type=float, default=WINDOW_S, help="seconds of an overloaded trace measured (10)")
    ap.add_argument("--schedulers")
    ap.add_argument("--ftl", default="dftl")
    ap.add_argument("--bursts", help="burst sizes of the synthetic band (default 1,2,4,8,16,32,64; --quick 1,16,64)")
    ap.add_argument("--raw", help="shares of reads following the latest write in the band (default 0,0.5)")
    a = ap.parse_args(ctx.args)
    scratch = os.path.join(ctx.out, "scratch")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    scheds, ftls = policies(ctx, scratch)
    if a.schedulers:
        scheds = [s for s in a.schedulers.split(",") if s]
    if a.ftl not in ftls:
        sys.exit(f"--ftl {a.ftl}: the device lists {', '.join(ftls)}")
    base = "rcf" if "rcf" in scheds else scheds[0]
    n = a.requests or (2000 if a.quick else 10000)
    bursts = ints(a.bursts) if a.bursts else ([1, 16, 64] if a.quick else [1, 2, 4, 8, 16, 32, 64])
    raws = floats(a.raw) if a.raw else [0.0, 0.5]
    caches = [1024, 16384] if a.quick else [1024, 2048, 4096, 8192, 16384, 65536]
    depths = [1, 16, 256] if a.quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    cache_scheds = [s for s in scheds if s in ("rcf", "size", "drs")] if a.quick else scheds
    real = real_traces(a.traces)
    print(f"bench drs: real traces: {', '.join(f'{w} ({os.path.basename(p)})' for w, p in real.items()) or 'none'}; "
          f"synthetic: {n} requests each; schedulers {', '.join(scheds)} (against {base}); ftl {a.ftl}", flush=True)

    def synth(w, burst=1, raw=0.0, limit_s=None):
        path = os.path.join(scratch, f"{trace_gen.file_name(w)[:-4]}-b{burst}-r{raw:g}.csv")
        reqs = trace_gen.generate(w, n, burst=burst, raw=raw)
        if limit_s is not None:
            reqs = [r for r in reqs if r[0] < limit_s * 1e9]
        trace_gen.write_msr(reqs, path)
        return Workload(w, path, False, SYNTH_CAPACITY)

    rows, wl_rows = [], []
    main_wl = {}
    for w in sorted(trace_gen.TABLE1):
        wl = Workload(w, real[w], True, capacity_for(real[w])) if w in real else synth(w)
        main_wl[w] = wl

    # Fig. 9 and 10 on each workload's main trace; the base scheduler first, to measure the offered load
    fig9, fig10 = {}, {}
    for w, wl in main_wl.items():
        first_csv = os.path.join(scratch, "first.csv")
        r0 = replay(ctx, scratch, wl, a.ftl, base, csv_out=first_csv)
        got = csv_rows(first_csv)
        wl.load, wl.peak = r0["offered_load"], peak_load(got)
        wl_rows.append({**table1_row(ctx, wl), "offered_load": round(wl.load, 3), "peak_1s_load": round(wl.peak, 3)})
        full = None
        if wl.load > 1.0:
            full = r0
            arr = sorted(int(x["arrival_ns"]) for x in got)
            wl.limit = sum(1 for t in arr if t - arr[0] < a.window * 1e9)
            print(f"  {wl.label}: offered load {wl.load:.2f} s of flash work per s: the flash falls ever further "
                  f"behind; measured over its first {a.window:g} s ({wl.limit} requests) instead", flush=True)
            r0 = replay(ctx, scratch, wl, a.ftl, base)
        res = {base: r0}
        for s in scheds:
            if s != base:
                res[s] = replay(ctx, scratch, wl, a.ftl, s)
        for s in scheds:
            print(f"  {wl.label:<24} {s:<5} read {res[s]['read_us']:>11.1f} us  write {res[s]['write_us']:>11.1f} us",
                  flush=True)
            r = dict(exp="fig9", workload=wl.label, scheduler=s, window_s=a.window if wl.limit else "", **res[s])
            for k in ("read", "write", "all"):
                r[f"{k}_rel_pct"] = round(claims.rel(res[s][f"{k}_us"], res[base][f"{k}_us"]), 2)
            rows.append(r)
        if full:
            rows.append(dict(exp="fig9-whole-trace", workload=wl.label, scheduler=base, **full))
        fig9[w] = {s: {"read": res[s]["read_us"], "write": res[s]["write_us"], "all": res[s]["all_us"]} for s in scheds}
        fig10[w] = {s: {"io_queue": res[s]["io_queue_us"], "flash_queue": res[s]["flash_queue_us"],
                        "flash": res[s]["flash_us"], "link": res[s]["host_link_us"]} for s in scheds}
    ctx.write_csv(wl_rows, name="workloads.csv")

    # Fig. 11b: the flash command queue depth, DRS
    sweep = "drs" if "drs" in scheds else base
    fig11b = {}
    for w, wl in main_wl.items():
        for d in depths:
            r = replay(ctx, scratch, wl, a.ftl, sweep, sets=(f"flash_queue_depth={d}",))
            rows.append(dict(exp="fig11b", workload=wl.label, scheduler=sweep, depth=d, **r))
            fig11b.setdefault(w, {})[d] = r["read_us"]
        print(f"  fig 11b {wl.label}: " + ", ".join(f"{d}: {fig11b[w][d]:.0f} us" for d in depths), flush=True)
    # Fig. 11a: the map cache
    fig11a = {}
    if a.ftl != "page":
        for w, wl in main_wl.items():
            for c in caches:
                for s in cache_scheds:
                    r = replay(ctx, scratch, wl, a.ftl, s, sets=(f"map_cache_bytes={c}",))
                    rows.append(dict(exp="fig11a", workload=wl.label, scheduler=s, cache=c, **r))
                    fig11a.setdefault(c, {}).setdefault(w, {})[s] = r["read_us"]
            print(f"  fig 11a {wl.label}: done", flush=True)

    # the synthetic band: burst sizes x reads following writes
    band = {}
    synth_ws = [w for w in main_wl if not main_wl[w].real]
    for raw in raws:
        for b in bursts:
            for w in synth_ws:
                if b == 1 and raw == 0.0:
                    band[(raw, b, w)] = {s: {**fig9[w][s], **{"parts": fig10[w][s]}} for s in scheds}
                    continue
                wl = synth(w, b, raw)
                probe = replay(ctx, scratch, wl, a.ftl, base)
                if probe["offered_load"] > 1.0:
                    wl = synth(w, b, raw, limit_s=a.window)
                res = {s: replay(ctx, scratch, wl, a.ftl, s) for s in scheds}
                band[(raw, b, w)] = {s: {"read": res[s]["read_us"], "write": res[s]["write_us"], "all": res[s]["all_us"],
                                         "parts": {"io_queue": res[s]["io_queue_us"],
                                                   "flash_queue": res[s]["flash_queue_us"],
                                                   "flash": res[s]["flash_us"], "link": res[s]["host_link_us"]}}
                                     for s in scheds}
                for s in scheds:
                    rows.append(dict(exp="band", workload=label(w, False), scheduler=s, burst=b, raw=raw,
                                     window_s=a.window if probe["offered_load"] > 1.0 else "", **res[s]))
            print(f"  band raw {raw:g} burst {b}: " + ", ".join(
                f"{w} {claims.rel(band[(raw, b, w)]['drs']['read'], band[(raw, b, w)][base]['read']):+.1f} %"
                for w in synth_ws if "drs" in scheds), flush=True)

    fields = ["exp", "workload", "scheduler", "burst", "raw", "cache", "depth", "window_s", "read_us", "write_us",
              "all_us", "read_p99_us", "read_rel_pct", "write_rel_pct", "all_rel_pct", "io_queue_us", "flash_queue_us",
              "flash_us", "host_link_us", "read_io_queue_us", "read_flash_queue_us", "read_flash_us", "offered_load",
              "flash_commands", "replay_wall_s", "requests", "reads", "writes", "skipped"]
    ctx.write_csv(rows, fields)

    # claims on the main traces, then with each synthetic workload at each burst size
    verdict = claims.evaluate(fig9, fig10, fig11a, fig11b)
    per_burst = {}
    for raw in raws:
        for b in bursts:
            f9 = {w: ({s: {k: v for k, v in band[(raw, b, w)][s].items() if k != "parts"} for s in scheds}
                      if (raw, b, w) in band else fig9[w]) for w in main_wl}
            f10 = {w: ({s: band[(raw, b, w)][s]["parts"] for s in scheds} if (raw, b, w) in band else fig10[w])
                   for w in main_wl}
            per_burst[(raw, b)] = claims.evaluate(f9, f10)
    claim_rows = []
    for name in claims.ALL:
        if name not in verdict:
            continue
        holds, what = verdict[name]
        repro = [f"b{b}" + (f"/raw {raw:g}" if raw else "") for raw in raws for b in bursts
                 if name in per_burst[(raw, b)] and per_burst[(raw, b)][name][0]]
        claim_rows.append({"claim": name[len("claim: "):], "holds": holds, "ours": what,
                           "synthetic bursts where it holds": " ".join(repro) if name not in (claims.FIG11A, claims.FIG11B)
                           else "(main traces only)"})
    ctx.write_csv(claim_rows, name="claims.csv")
    band_rows = []
    for w in synth_ws:
        for raw in raws:
            rel = {b: claims.rel(band[(raw, b, w)]["drs"]["read"], band[(raw, b, w)][base]["read"]) for b in bursts}
            fot = {b: claims.rel(band[(raw, b, w)]["fot"]["read"], band[(raw, b, w)][base]["read"]) for b in bursts} \
                if "fot" in scheds else {}
            band_rows.append({"workload": label(w, False), "raw": raw,
                              **{f"drs b{b}": round(rel[b], 1) for b in bursts},
                              **{f"fot b{b}": round(fot[b], 1) for b in fot},
                              "drs min": round(min(rel.values()), 1), "drs max": round(max(rel.values()), 1)})
    if band_rows:
        ctx.write_csv(band_rows, name="band.csv")

    plots(ctx, scheds, base, main_wl, fig9, fig10, fig11a, fig11b, band, bursts, raws, synth_ws, depths)

    # summary.json: per workload, the claims, the paper's one number
    for w, wl in main_wl.items():
        if "drs" in scheds:
            ctx.headline(f"{wl.label}: DRS read latency vs {base.upper()}",
                         round(claims.rel(fig9[w]["drs"]["read"], fig9[w][base]["read"]), 2), "%")
    if "drs" in scheds and base == "rcf":
        best = min(claims.rel(fig9[w]["drs"]["read"], fig9[w]["rcf"]["read"]) for w in main_wl)
        ctx.headline("DRS read latency vs RCF, best workload", round(best, 2), "%", claims.PAPER_BEST_READ_PCT)
    for c in claim_rows:
        ctx.headline("claim: " + c["claim"], c["holds"], "holds (1/0)", 1)
    for r in wl_rows:
        if "real trace" in r["workload"]:
            ctx.headline(f"{r['workload']}: Table 1 row, largest deviation from the paper's", r["worst_pct"], "%", 0)
    wall = sum(float(r["replay_wall_s"]) for r in rows)
    cmds = sum(int(r["flash_commands"]) for r in rows)
    ctx.headline("replay speed over every run", round(cmds / wall) if wall else 0, "flash commands / s of wall time")
    shutil.rmtree(scratch, ignore_errors=True)
    print("\nTable 1 from each trace (csd replay --stats-only) beside the paper's; sizes in KiB (1024 bytes, which "
          "the paper's kB are) and in kB of 1000 bytes; offered load in s of flash work per s of arrivals")
    from benchlib import print_table
    print_table(wl_rows, ["workload", "requests", "span_s", "read_kib", "read_kb_1000", "read_table1", "write_kib",
                          "write_kb_1000", "write_table1", "write_pct", "write_pct_table1", "rate", "rate_table1",
                          "worst_pct", "outside_5pct", "offered_load", "peak_1s_load"])
    if band_rows:
        print("\nsynthetic band: DRS (and FOT) read latency against RCF (%) by burst size")
        print_table(band_rows, list(band_rows[0].keys()))
    print("\nclaims")
    print_table(claim_rows, ["claim", "holds", "ours", "synthetic bursts where it holds"])
    print()
    ctx.finish([r for r in rows if r["exp"] == "fig9"],
               ["workload", "scheduler", "read_us", "write_us", "all_us", "read_rel_pct", "write_rel_pct",
                "all_rel_pct", "io_queue_us", "flash_queue_us", "flash_us", "host_link_us"])


def plots(ctx, scheds, base, main_wl, fig9, fig10, fig11a, fig11b, band, bursts, raws, synth_ws, depths):
    ws = list(main_wl)
    labels = [main_wl[w].label.replace(" (", "\n(") for w in ws]
    for k, name in (("read", "read"), ("write", "write"), ("all", "I/O")):
        ctx.plot(f"fig9_{k}.png", f"Fig. 9: mean {name} latency against {base.upper()}",
                 "workload", f"{name} latency / {base.upper()}'s (ratio)",
                 {s: (labels, [fig9[w][s][k] / fig9[w][base][k] if fig9[w][base][k] else 0 for w in ws]) for s in scheds},
                 kind="bar", legend_below=True)
    pair = [s for s in (base, "drs") if s in scheds]
    ctx.plot("fig10_breakdown.png", f"Fig. 10: mean latency per request in parts, {' / '.join(pair)}",
             "workload", "mean time per request (us)",
             {f"{s}: {part}": (labels, [max(fig10[w][s][key], 1e-3) for w in ws])
              for s in pair for part, key in (("I/O request queue", "io_queue"),
                                              ("flash command queue", "flash_queue"), ("flash operations", "flash"))},
             kind="bar", logy=True, legend_below=True)
    ctx.plot("fig11b_queue_depth.png", "Fig. 11b: DRS's mean read latency against the flash command queue depth",
             "flash command queue depth (commands)", "mean read latency (us)",
             {main_wl[w].label: (depths, [fig11b[w][d] for d in depths]) for w in ws}, logx=True, logy=True,
             legend_below=True)
    if fig11a:
        sizes = sorted(fig11a)
        ss = sorted({s for c in fig11a.values() for v in c.values() for s in v})
        ctx.plot("fig11a_cache.png", "Fig. 11a: mean read latency (average of the workloads) against the map cache",
                 "map cache (bytes)", "mean read latency (us)",
                 {s: (sizes, [sum(fig11a[c][w][s] for w in fig11a[c]) / len(fig11a[c]) for c in sizes]) for s in ss},
                 logx=True, legend_below=True)
    if synth_ws and "drs" in scheds:
        ctx.plot("band_drs.png", f"DRS's read latency against {base.upper()}, synthetic workloads, by burst size",
                 "requests per burst (count)", f"read latency change against {base.upper()} (%)",
                 {f"{w} (synthetic), raw {raw:g}": (bursts, [claims.rel(band[(raw, b, w)]["drs"]["read"],
                                                                        band[(raw, b, w)][base]["read"]) for b in bursts])
                  for w in synth_ws for raw in raws}, logx=True, legend_below=True)
