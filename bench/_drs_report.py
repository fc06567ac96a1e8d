"""bench drs's tables, plots and summary.json (bench/drs.py measures; this reports)."""
import _drs_claims as claims
from benchlib import print_table

FIELDS = ["exp", "workload", "scheduler", "burst", "raw", "cache", "depth", "time_scale", "window_s", "read_us",
          "write_us", "all_us", "read_p99_us", "read_rel_pct", "write_rel_pct", "all_rel_pct", "host_queue_us",
          "io_queue_us", "flash_queue_us", "flash_us", "host_link_us", "read_io_queue_us", "read_flash_queue_us",
          "read_flash_us", "reads_delayed", "reads_clf_delayed", "reads_dle_delayed", "offered_load", "flash_commands",
          "replay_wall_s", "requests", "reads", "writes"]


def _with(f9, f10, band, raw, b, real):
    """The main results with each workload that has no real trace taken from the band at (raw, b)."""
    g9 = {w: (band[(raw, b, w)]["fig9"] if w not in real else v) for w, v in f9.items()}
    g10 = {w: (band[(raw, b, w)]["fig10"] if w not in real else v) for w, v in f10.items()}
    return g9, g10


def finish(ctx, R, main_wl, wl_rows, fig9, fig10, fig11a, fig11b, band, bursts, raws, depths, paper_rate, reuse):
    scheds, base = R.scheds, R.base
    sweep = "drs" if "drs" in scheds else base
    real = {w for w, wl in main_wl.items() if wl.kind == "real trace"}

    # claims: on the main traces; with the synthetic ones at each burst size; with Booting at 460.4/s
    verdict = claims.evaluate(fig9, fig10, fig11a, fig11b)
    per = {(raw, b): claims.evaluate(*_with(fig9, fig10, band, raw, b, real)) for raw in raws for b in bursts}
    alt = None
    if paper_rate:
        f9, f10 = dict(fig9), dict(fig10)
        f9["Booting"], f10["Booting"] = paper_rate["fig9"], paper_rate["fig10"]
        alt = claims.evaluate(f9, f10, fig11a, fig11b)
    claim_rows = []
    for name in claims.ALL:
        if name not in verdict:
            continue
        holds, what = verdict[name]
        row = {"claim": name[len("claim: "):], "holds": holds, "ours": what}
        if name in (claims.FIG11A, claims.FIG11B):
            row["synthetic bursts where it holds"] = "(main traces only)"
        else:
            row["synthetic bursts where it holds"] = " ".join(
                f"b{b}" + (f"/raw {raw:g}" if raw else "") for raw in raws for b in bursts
                if name in per[(raw, b)] and per[(raw, b)][name][0]) or "none"
        if alt is not None and name in alt:
            row["with Booting at 460.4/s"] = alt[name][0]
        if name == claims.FIG11A and reuse:
            ctl = claims.evaluate({"Radio/WB": {}}, fig11a={c: {"Radio/WB": {s: r["read_us"] for s, r in v.items()}}
                                                           for c, v in reuse.items()})
            if claims.FIG11A in ctl:
                row["control: 4 MiB working set, bursts of 8"] = ctl[claims.FIG11A][0]
        claim_rows.append(row)
    claim_fields = list(dict.fromkeys(k for r in claim_rows for k in r))
    ctx.write_csv(claim_rows, claim_fields, name="claims.csv")

    # the band: per synthetic stand-in, each scheduler's read change against the base by burst size
    band_rows = []
    real_burst = {r["workload"].split(" (")[0]: r["mean_burst"] for r in wl_rows if "real trace" in r["workload"]}
    for w in main_wl:
        for raw in raws:
            row = {"workload": f"{w} (synthetic)", "raw": raw}
            for s in [x for x in ("drs", "fot", "rrf", "size") if x in scheds]:
                for b in bursts:
                    f = band[(raw, b, w)]["fig9"]
                    row[f"{s} b{b}"] = round(claims.rel(f[s]["read"], f[base]["read"]), 1)
            drs = [row[f"{sweep} b{b}"] for b in bursts] if f"{sweep} b{bursts[0]}" in row else [0]
            row[f"{sweep} min"], row[f"{sweep} max"] = min(drs), max(drs)
            if w in real:
                for s in [x for x in ("drs", "fot", "rrf", "size") if x in scheds]:
                    row[f"{s} real trace"] = round(claims.rel(fig9[w][s]["read"], fig9[w][base]["read"]), 1)
                row["real mean burst"] = real_burst.get(w, "")
            band_rows.append(row)
    band_fields = list(dict.fromkeys(k for r in band_rows for k in r))
    ctx.write_csv(band_rows, band_fields, name="band.csv")

    plots(ctx, scheds, base, main_wl, fig9, fig10, fig11a, fig11b, band, bursts, raws, depths)

    # summary.json: per workload, the paper's one number, the claims, the Table 1 check
    for w, wl in main_wl.items():
        if "drs" in scheds:
            ctx.headline(f"{wl.label}: DRS read latency vs {base.upper()}",
                         round(claims.rel(fig9[w]["drs"]["read"], fig9[w][base]["read"]), 2), "%")
    if paper_rate and "drs" in scheds:
        f = paper_rate["fig9"]
        ctx.headline(f"Booting, the real trace at Table 1's 460.4/s: DRS read latency vs {base.upper()}",
                     round(claims.rel(f["drs"]["read"], f[base]["read"]), 2), "%")
    if "drs" in scheds and base == "rcf":
        best = min(claims.rel(fig9[w]["drs"]["read"], fig9[w]["rcf"]["read"]) for w in main_wl)
        ctx.headline("DRS read latency vs RCF, best workload", round(best, 2), "%", claims.PAPER_BEST_READ_PCT)
    for c in claim_rows:
        ctx.headline("claim: " + c["claim"], c["holds"], "holds (1/0)", 1)
    if reuse:
        for c in (min(reuse), max(reuse)):
            ctx.headline(f"Fig. 11a control (4 MiB working set, bursts of 8), {c} B map cache: DRS read latency vs "
                         f"{base.upper()}", round(claims.rel(reuse[c]["drs"]["read_us"], reuse[c][base]["read_us"]), 2),
                         "%")
    for r in wl_rows:
        if "real trace" in r["workload"]:   # Table 1 from the trace itself, beside the paper's
            for k, paper, what, unit in (("read_kib", "read_table1", "mean read size", "KiB"),
                                         ("write_kib", "write_table1", "mean write size", "KiB"),
                                         ("write_pct", "write_pct_table1", "write requests", "%"),
                                         ("rate", "rate_table1", "arrival rate", "requests/s")):
                ctx.headline(f"{r['workload']}: Table 1 {what}", r[k], unit, r[paper])
    wall = sum(float(r["replay_wall_s"]) for r in R.rows)
    cmds = sum(int(r["flash_commands"]) for r in R.rows)
    ctx.headline("replay speed over every run", round(cmds / wall) if wall else 0, "flash commands / s of wall time")

    print("\nTable 1 from each trace (csd replay --stats-only) beside the paper's: sizes in KiB (1024 bytes, which "
          "the paper's kB are) and in kB of 1000 bytes; mean burst: requests per burst (arrivals under 1 ms apart), "
          "burst gap: the median gap inside one; reads after writes: reads touching a map cache line one of the 16 "
          "writes before them touched within 1 s; offered load: s of flash work per s of arrivals (overall, and in "
          "the busiest second)")
    print_table(wl_rows, ["workload", "requests", "span_s", "read_kib", "read_kb_1000", "read_table1", "write_kib",
                          "write_kb_1000", "write_table1", "write_pct", "write_pct_table1", "rate", "rate_table1",
                          "worst_pct", "outside_5pct", "mean_burst", "burst_gap_us", "reads_after_writes_pct",
                          "offered_load", "peak_1s_load", "window_s"])
    if paper_rate:
        print(f"\n{paper_rate['label']}: arrival times x {paper_rate['scale']:.4f}; offered load "
              f"{paper_rate['load']:.2f}" + (f", measured over its first {R.window:g} s ({paper_rate['limit']} requests)"
                                             if paper_rate["limit"] else ""))
        print_table([{"scheduler": s, "read_us": v["read"], "write_us": v["write"],
                      "read_rel_pct": round(claims.rel(v["read"], paper_rate["fig9"][base]["read"]), 2),
                      "write_rel_pct": round(claims.rel(v["write"], paper_rate["fig9"][base]["write"]), 2)}
                     for s, v in paper_rate["fig9"].items()], ["scheduler", "read_us", "write_us", "read_rel_pct",
                                                              "write_rel_pct"])
    if reuse:
        print("\nFig. 11a control: the Radio/WB stand-in over a 4 MiB span (its working set fits the larger caches), "
              "bursts of 8")
        print_table([{"cache_bytes": c, f"{base}_read_us": v[base]["read_us"], "drs_read_us": v["drs"]["read_us"],
                      "drs_rel_pct": round(claims.rel(v["drs"]["read_us"], v[base]["read_us"]), 1),
                      "flash_commands": v["drs"]["flash_commands"], "reads_delayed": v["drs"]["reads_delayed"]}
                     for c, v in sorted(reuse.items())],
                    ["cache_bytes", f"{base}_read_us", "drs_read_us", "drs_rel_pct", "flash_commands", "reads_delayed"])
    print(f"\nsynthetic band: read latency against {base.upper()} (%) by burst size (b1 = Poisson)")
    print_table(band_rows, band_fields)
    print("\nclaims")
    print_table(claim_rows, claim_fields)
    print()
    ctx.finish([r for r in R.rows if r["exp"] == "fig9"],
               ["workload", "scheduler", "read_us", "write_us", "all_us", "read_rel_pct", "write_rel_pct",
                "all_rel_pct", "io_queue_us", "flash_queue_us", "flash_us", "host_link_us", "reads_delayed"])


def plots(ctx, scheds, base, main_wl, fig9, fig10, fig11a, fig11b, band, bursts, raws, depths):
    ws = list(main_wl)
    labels = [main_wl[w].label.replace(" (", "\n(") for w in ws]
    B = base.upper()
    for k, name in (("read", "read"), ("write", "write"), ("all", "I/O")):
        ctx.plot(f"fig9_{k}.png", f"Fig. 9: mean {name} latency against {B}", "workload",
                 f"{name} latency / {B}'s (ratio)",
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
    if "drs" in scheds:
        for raw in raws:
            ctx.plot(f"band_drs_raw{raw:g}.png",
                     f"DRS's read latency against {B}, synthetic stand-ins, reads after writes {raw:g}",
                     "requests per burst (count)", f"read latency change against {B} (%)",
                     {f"{w} (synthetic)": (bursts, [claims.rel(band[(raw, b, w)]["fig9"]["drs"]["read"],
                                                               band[(raw, b, w)]["fig9"][base]["read"]) for b in bursts])
                      for w in ws}, logx=True, legend_below=True)
