"""bench drs: the DRS paper's evaluation (Lee et al., "DRS: A Delay-aware Request Scheduling for flash
storage with a map cache", section VI) replayed on the device's block namespace with the drs preset
(single channel, single way, 4 KB pages, tR 60 us, tProg 700 us, queue depth 256), on synthetic traces
of Table 1's eight Nexus5 workloads (native/tools/trace_gen.py; the paper's real traces are not
public here).

  Fig. 9    read, write and overall mean latency of every flash-command scheduler the device lists,
            normalized to RCF (to fifo when the device has no RCF; the table says which)
            (paper: DRS up to -51 % read latency against RCF)
  Fig. 10   the latency broken into I/O request queue waiting, flash command queue waiting and flash
            operation time, per workload and scheduler
  Fig. 11a  mean read latency against the map-cache size, when the device has the map-cache parameter
            (--cache-param) and a map-cached FTL is chosen
  Fig. 11b  mean read latency against the queue depth, 1..512

Each image is formatted fresh for every run (the paper: no pre-conditioning), and the LBAs a trace
reads before writing them are written first (csd replay --prefill), so every read finds its data on
flash as on a device in use; the trace's clock starts after that. Latency is completion
minus arrival; the breakdown comes from each request's admission, first flash command and completion
(docs/BLOCK-IO.md).

usage: bin/smartssd bench drs [--quick] [--ftl LIST] [--schedulers LIST] [--requests N] [--cache-param NAME]
       bin/smartssd bench drs --jobs
       --quick: 4 workloads, 2000 requests each, queue depths 1, 16, 256
       --jobs: only what a small map cache costs an in-storage scan: a grep over a 4 MiB text object on
                 the drs preset with flash_scheduler = drs, ftl = dftl (1 KiB map cache) against
                 ftl = page (the whole map in DRAM), with the preset's 2 cores and with 16 (flash-bound);
                 writes out/bench/drs/jobs/
       --ftl / --schedulers: comma-separated (default: every policy `csd identify --json` lists, a
                 map-cached FTL first; ftl = page when none is listed); the figures use the first FTL
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "native", "tools"))
import trace_gen  # noqa: E402

PAPER_DRS_READ_BEST = -51.0      # DRS paper, abstract and VI-B: read latency, best workload, vs RCF
QUICK_WORKLOADS = ["Booting", "Facebook", "Radio/Msg", "Radio/WB"]
CAPACITY = "512M"


def policies(ctx, scratch):
    img = os.path.join(scratch, "probe.img")
    ctx.run(ctx.tool("csd"), "format", img, "--capacity", "16M", "--preset", "drs")
    ident = json.loads(ctx.run(ctx.tool("csd"), "identify", img, "--json"))
    os.unlink(img)
    pol = ident["policies"]
    split = lambda s: [x.strip() for x in s.split(",") if x.strip()]   # noqa: E731
    return split(pol.get("flash_scheduler", "fifo")), split(pol.get("ftl", "page")), set(ident.get("params", {}))


def replay(ctx, scratch, trace, ftl, sched, qd=None, sets=()):
    img = os.path.join(scratch, "run.img")
    if os.path.exists(img):
        os.unlink(img)
    ctx.run(ctx.tool("csd"), "format", img, "--capacity", CAPACITY, "--preset", "drs", "--set", f"ftl={ftl}",
            *[x for s in sets for x in ("--set", s)])
    args = [ctx.tool("csd"), "replay", img, trace, "--json", "--prefill", "--set", f"flash_scheduler={sched}"]
    if qd:
        args += ["--queue-depth", str(qd)]
    for s in sets:
        args += ["--set", s]
    j = json.loads(ctx.run(*args))
    os.unlink(img)
    lat = j["latency"]
    return {"read_us": lat["read"]["mean_us"], "write_us": lat["write"]["mean_us"], "all_us": lat["all"]["mean_us"],
            "read_p99_us": lat["read"]["p99_us"], "io_queue_us": j["mean_breakdown"]["io_queue_us"],
            "flash_queue_us": j["mean_breakdown"]["flash_queue_us"], "flash_us": j["mean_breakdown"]["flash_us"],
            "flash_commands": j["flash_commands"], "replay_wall_s": j["replay_wall_s"],
            "reads": j["reads"], "writes": j["writes"]}


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


def main(ctx):
    if "--jobs" in ctx.args:
        return jobs(ctx)
    ap = argparse.ArgumentParser(prog="bin/smartssd bench drs")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ftl")
    ap.add_argument("--schedulers")
    ap.add_argument("--requests", type=int)
    ap.add_argument("--cache-param", default="map_cache_bytes")
    a = ap.parse_args(ctx.args)
    scratch = os.path.join(ctx.out, "scratch")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    scheds, ftls, param_keys = policies(ctx, scratch)
    if a.schedulers:
        scheds = [s for s in a.schedulers.split(",") if s]
    if a.ftl:
        ftls = [f for f in a.ftl.split(",") if f]
    else:
        ftls.sort(key=lambda f: f == "page")   # the paper's map-cached FTL first: Fig. 9-11 use the first
    low = {x.lower(): x for x in scheds}
    base = low.get("rcf", scheds[0])
    workloads = QUICK_WORKLOADS if a.quick else sorted(trace_gen.TABLE1)
    n = a.requests or (2000 if a.quick else 20000)
    qds = [1, 16, 256] if a.quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    sweep_sched = low.get("drs", base)
    print(f"bench drs: workloads {', '.join(workloads)}; {n} requests each; schedulers {', '.join(scheds)} "
          f"(normalized to {base}); ftl {', '.join(ftls)}", flush=True)

    traces, gen_rows, rows = {}, [], []
    for w in workloads:
        path = os.path.join(scratch, trace_gen.file_name(w))
        trace_gen.write_msr(trace_gen.generate(w, n), path)
        traces[w] = path
        s = trace_gen.stats(path)
        rd, wr, wp, rate = trace_gen.TABLE1[w]
        gen_rows.append({"workload": w, "read_kb": round(s["read_kb"], 2), "read_kb_table1": rd,
                         "write_kb": round(s["write_kb"], 2), "write_kb_table1": wr,
                         "write_pct": round(s["write_pct"], 2), "write_pct_table1": wp,
                         "rate": round(s["rate"], 3), "rate_table1": rate})
    ctx.write_csv(gen_rows, name="workloads.csv")

    # Fig. 9 and 10: every scheduler on every workload
    for ftl in ftls:
        for w in workloads:
            res = {}
            for s in scheds:
                res[s] = replay(ctx, scratch, traces[w], ftl, s)
                print(f"  {ftl:<5} {w:<10} {s:<6} read {res[s]['read_us']:>10.1f} us  write {res[s]['write_us']:>10.1f} us",
                      flush=True)
            for s in scheds:
                r = dict(exp="fig9", ftl=ftl, workload=w, scheduler=s, qd=256, **res[s])
                for k in ("read", "write", "all"):
                    b = res[base][f"{k}_us"]
                    r[f"{k}_rel_pct"] = round(100.0 * (res[s][f"{k}_us"] / b - 1.0), 2) if b else ""
                rows.append(r)
    # Fig. 11b: queue depth
    for w in workloads:
        for qd in qds:
            r = replay(ctx, scratch, traces[w], ftls[0], sweep_sched, qd=qd)
            rows.append(dict(exp="fig11b", ftl=ftls[0], workload=w, scheduler=sweep_sched, qd=qd, **r))
    # Fig. 11a: map-cache size, when the device has the parameter and a map-cached FTL is chosen
    cached = [f for f in ftls if f != "page"]
    if a.cache_param in param_keys and cached:
        for w in workloads:
            for size in ([1024, 16384] if a.quick else [1024, 2048, 4096, 8192, 16384, 65536]):
                for s in scheds:
                    r = replay(ctx, scratch, traces[w], cached[0], s, sets=(f"{a.cache_param}={size}",))
                    rows.append(dict(exp="fig11a", ftl=cached[0], workload=w, scheduler=s, qd=256, cache=size, **r))
    fields = ["exp", "ftl", "workload", "scheduler", "qd", "cache", "read_us", "write_us", "all_us", "read_p99_us",
              "read_rel_pct", "write_rel_pct", "all_rel_pct", "io_queue_us", "flash_queue_us", "flash_us",
              "flash_commands", "replay_wall_s", "reads", "writes"]
    ctx.write_csv(rows, fields)

    fig9 = [r for r in rows if r["exp"] == "fig9" and r["ftl"] == ftls[0]]
    for k, label in (("read", "read"), ("write", "write"), ("all", "I/O")):
        ctx.plot(f"fig9_{k}.png", f"Fig. 9: mean {label} latency normalized to {base} ({ftls[0]} FTL)",
                 "workload", f"{label} latency / {base}'s (ratio)",
                 {s: (workloads, [1.0 + r[f"{k}_rel_pct"] / 100.0 for r in fig9 if r["scheduler"] == s]) for s in scheds},
                 kind="bar", legend_below=True)
    ctx.plot("fig10_breakdown.png", "Fig. 10: mean I/O latency breakdown (us), per scheduler",
             "workload", "mean time per request (us)",
             {f"{s}: {part}": (workloads, [r[key] for r in fig9 if r["scheduler"] == s])
              for s in scheds for part, key in (("I/O queue", "io_queue_us"), ("flash queue", "flash_queue_us"),
                                                ("flash ops", "flash_us"))},
             kind="bar", logy=True, legend_below=True)
    qrows = [r for r in rows if r["exp"] == "fig11b"]
    ctx.plot("fig11b_queue_depth.png", f"Fig. 11b: mean read latency vs queue depth ({sweep_sched})",
             "queue depth (requests)", "mean read latency (us)",
             {w: (qds, [r["read_us"] for r in qrows if r["workload"] == w]) for w in workloads}, logx=True, logy=True)
    crows = [r for r in rows if r["exp"] == "fig11a"]
    if crows:
        sizes = sorted({r["cache"] for r in crows})
        ctx.plot("fig11a_cache.png", "Fig. 11a: mean read latency vs map-cache size (average of workloads)",
                 "map cache (bytes)", "mean read latency (us)",
                 {s: (sizes, [sum(r["read_us"] for r in crows if r["scheduler"] == s and r["cache"] == c) /
                              len(workloads) for c in sizes]) for s in scheds}, logx=True)

    # headlines: each scheduler's best and mean read change against the base
    for s in scheds:
        if s == base:
            continue
        rel = [r["read_rel_pct"] for r in fig9 if r["scheduler"] == s]
        ctx.headline(f"{s} read latency vs {base}, best workload", min(rel), "%",
                     PAPER_DRS_READ_BEST if s.lower() == "drs" and base.lower() == "rcf" else None)
        ctx.headline(f"{s} read latency vs {base}, mean of workloads", round(sum(rel) / len(rel), 2), "%")
    wall = sum(r["replay_wall_s"] for r in rows)
    cmds = sum(r["flash_commands"] for r in rows)
    ctx.headline("replay speed over every run", round(cmds / wall) if wall else 0, "flash commands / s of wall time")
    if len(scheds) == 1:
        ctx.headline(f"only {scheds[0]} is listed: no scheduler to compare (the paper's DRS: -51 % read)", 0, "%",
                     PAPER_DRS_READ_BEST)
    shutil.rmtree(scratch, ignore_errors=True)
    ctx.finish([r for r in rows if r["exp"] == "fig9"],
               ["ftl", "workload", "scheduler", "read_us", "write_us", "all_us", "read_rel_pct", "write_rel_pct",
                "all_rel_pct", "io_queue_us", "flash_queue_us", "flash_us"])
