"""bench hybrid: level-aware placement on a hybrid SLC/TLC device against its ComboFTL-style baseline,
driven by a real LSM store (hybrid paper, section VI; docs/LSM.md).

1. Record the Table 3 workloads on RocksDB (`bin/smartssd lsm record`): SST creations and deletions with
   their levels and sizes, and compaction input reads, into out/bench/hybrid/traces/ (kept and reused
   while records and seed are the same).
2. For every workload, SLC share (1, 2, 3, 5, 10% of the blocks, Table 4) and placement policy (`level`,
   the paper's method; `combo`, the baseline), format a fresh image of preset `hybrid` (Table 2) with the
   blocks scaled down with the data, and replay the trace on it 3 times (`bin/smartssd lsm replay
   --repeat 3`: one object per SST, writes hinted level + 1, deleted files deleted, compaction inputs
   read back; the files left live by one run deleted before the next), measuring the last run.
3. From the device's counters during that run (docs/HYBRID.md): the average I/O latency (`io.*`), the
   durability of VI-B (MIN over regions of blocks x max P/E / erases in one run; infinite for a region
   without erases), and the SLC/TLC share of the host's reads and writes (Fig. 10); latency and
   durability normalized to `combo` (Fig. 9).

Without the device's `hybrid` preset and its `level` / `combo` placement policies the bench stops with a
message and prints no numbers.

Arguments: --quick (20 K records, 4 KiB pages), --records N (default 200000), --workloads a,b,...,
--shares 1,2,...,  --seed S, --pages-per-block N (TLC pages per block, default 12; SLC mode holds N/3),
--erase-per-page (erase times scaled by N / 768, Table 2's erase cost per page; default: Table 2's
10 ms per block), --write-buffer, --target-file, --level-base SIZE (the RocksDB store's memtable, SST
file and level-1 sizes, passed to `lsm record`; default 1M, 1M, 4M).
"""
import json
import math
import os
import subprocess
import sys

WORKLOADS = ["fill-random", "zipf-write", "zipf-update", "latest-write", "latest-update"]
SHARES = [1, 2, 3, 5, 10]
POLICIES = ["level", "combo"]
# Runs of a workload per image: the first ages the device (fills it), the last is measured (a workload's
# steady state; the paper's durability is in runs of a workload until a region wears out).
REPEAT = 3
# The paper's figures (section VI-B): averages over workloads and shares, the full-random 10% point of
# Fig. 9, Fig. 10's full-random SLC write shares, and the share of SST writes that were level 1.
PAPER = {
    "latency_avg": 0.88, "durability_avg": 1.22,
    "latency_fill_random_10": 0.80, "durability_fill_random_10": 1.38,
    "slc_write_share_fill_random_10": 29.66, "slc_write_share_fill_random_1": 3.91,
    "l1_share": {"fill-random": 10, "zipf-write": 18, "latest-write": 18, "zipf-update": 53, "latest-update": 61},
}


def parse(args):
    o = {"quick": False, "records": 200_000, "workloads": WORKLOADS, "shares": SHARES, "seed": 1, "ppb": 12,
         "erase_per_page": False, "tree": {}}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--quick":
            o["quick"] = True
        elif a == "--erase-per-page":
            o["erase_per_page"] = True
        elif a in ("--write-buffer", "--target-file", "--level-base") and i + 1 < len(args):
            o["tree"][a] = args[i + 1]
            i += 1
        elif a in ("--records", "--workloads", "--shares", "--seed", "--pages-per-block") and i + 1 < len(args):
            v = args[i + 1]
            i += 1
            if a == "--records":
                o["records"] = int(v)
            elif a == "--seed":
                o["seed"] = int(v)
            elif a == "--pages-per-block":
                o["ppb"] = int(v)
                if o["ppb"] < 12 or o["ppb"] % 3:
                    sys.exit("bench hybrid: --pages-per-block must be a multiple of 3, at least 12 (SLC mode holds a third)")
            elif a == "--workloads":
                o["workloads"] = v.split(",")
                bad = [w for w in o["workloads"] if w not in WORKLOADS]
                if bad:
                    sys.exit(f"bench hybrid: unknown workloads {bad} (of {', '.join(WORKLOADS)})")
            else:
                o["shares"] = [int(s) for s in v.split(",")]
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            sys.exit(f"bench hybrid: unknown argument {a!r} (--quick, --records N, --workloads a,b, --shares 1,2, --seed S,"
                     " --pages-per-block N, --erase-per-page, --write-buffer SIZE, --target-file SIZE, --level-base SIZE)")
        i += 1
    if o["quick"] and "--records" not in args:
        o["records"] = 20_000
    return o


def geometry(o):
    """Device size and blocks for a run: capacity 2 x the records' bytes (the paper's 400 GB device for 200 GB of
    records); blocks shrunk (Table 2's 768 / 256 pages per TLC / SLC-mode block, by 64) so that a plane has
    ~300 blocks (the paper's has 4,096) and even 1% of them is 3 SLC-mode blocks, the device's minimum."""
    cap = 2 * o["records"] * 1024
    page = 4096 if o["quick"] else 16384
    g = {"capacity": cap, "page_bytes": page, "pages_per_block": o["ppb"], "slc_pages_per_block": o["ppb"] // 3, "set": []}
    if o["erase_per_page"]:
        # Table 2: 10 ms per block of 768 TLC / 256 SLC-mode pages; keep that per page (docs/HYBRID.md, scaling)
        t = 10_000_000 * o["ppb"] // 768
        g["set"] = ["--set", f"t_erase_ns={t}", "--set", f"t_erase_slc_ns={t}"]
        g["t_erase_ns"] = t
    return g


def csd_json(b, *args):
    out = b.run(b.tool("csd"), *args, "--json")
    return json.loads(out)


def probe(b, g):
    """The device must have preset hybrid and placements level and combo: else stop, no numbers."""
    img = os.path.join(b.out, "probe.img")
    for pol in POLICIES:
        if os.path.exists(img):
            os.remove(img)
        r = subprocess.run([b.tool("csd"), "format", img, "--capacity", "64M", "--preset", "hybrid",
                            "--set", f"placement={pol}"], capture_output=True, text=True)
        if r.returncode:
            sys.exit("bench hybrid: this device has no hybrid SLC/TLC preset with placement "
                     f"'{pol}' (csd format --preset hybrid --set placement={pol}: {r.stderr.strip() or r.stdout.strip()}).\n"
                     "The bench compares the placement policies 'level' (the hybrid paper's method) and 'combo' "
                     "(its ComboFTL baseline) and prints no numbers without them.")
        ident = csd_json(b, "identify", img)
        params = ident.get("params", {})
        if params.get("placement") != pol or "slc_share_pct" not in params:
            sys.exit(f"bench hybrid: the device formatted with placement={pol} reports placement "
                     f"{params.get('placement')!r} and no SLC share: no hybrid placement support, no numbers.")
        stats = csd_json(b, "stats", img)
        counters = stats.get("counters", stats)
        if not any(k.startswith("region.slc.") for k in flat(counters)):
            sys.exit("bench hybrid: the device reports no per-region counters (region.slc.*): no numbers.")
    os.remove(img)


def flat(d, prefix=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, f"{prefix}{k}."))
    else:
        out[prefix[:-1]] = d
    return out


def java(*args):
    cp = os.environ.get("SMARTSSD_LSM_CP")
    if not cp:
        sys.exit("bench hybrid: run it as `bin/smartssd bench hybrid` (it builds the LSM tools)")
    cmd = [os.environ.get("SMARTSSD_JAVA", "java"), "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
           "-cp", cp, "io.smartssd.lsm.LsmCli"] + [str(a) for a in args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{' '.join(cmd[-len(args):])}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def record(b, o, w):
    d = os.path.join(b.out, "traces")
    os.makedirs(d, exist_ok=True)
    tree = "".join(f"-{k[2:]}{v}" for k, v in sorted(o["tree"].items()))
    trace = os.path.join(d, f"{w}-{o['records']}-{o['seed']}{tree}.trace")
    meta = trace + ".json"
    if os.path.exists(trace) and os.path.exists(meta):
        return trace, json.load(open(meta))
    tree = [x for kv in sorted(o["tree"].items()) for x in kv]
    r = json.loads(java("record", "--workload", w, "--records", o["records"], "--seed", o["seed"], "--out", trace,
                        *tree, "--json"))
    json.dump(r, open(meta, "w"))
    return trace, r


def durability(c, delta):
    """VI-B: MIN over regions of Durability / EraseCount (blocks x max P/E over one run's erases; inf for 0)."""
    vals = []
    for reg in ("slc", "tlc"):
        e = delta.get(f"wear.{reg}.erases", 0)
        d = c.get(f"wear.{reg}.durability", 0)
        vals.append(math.inf if e == 0 else d / e)
    return min(vals)


def share(a, b_):
    return 100.0 * a / (a + b_) if a + b_ else 0.0


def ratio(x, y):
    if math.isinf(x) and math.isinf(y):
        return 1.0
    if math.isinf(y):
        return 0.0
    if math.isinf(x):
        return math.inf
    return x / y if y else math.inf


def main(b):
    o = parse(b.args)
    g = geometry(o)
    probe(b, g)
    rows = []
    level_bytes = {}
    for w in o["workloads"]:
        trace, rec = record(b, o, w)
        print(f"{w}: {rec['writes']} writes, {rec['reads']} reads, {rec['trace_events']} trace events, levels {rec['levels']}",
              flush=True)
        for s in o["shares"]:
            for pol in POLICIES:
                img = os.path.join(b.out, "run.img")
                if os.path.exists(img):
                    os.remove(img)
                b.run(b.tool("csd"), "format", img, "--capacity", str(g["capacity"]), "--preset", "hybrid",
                      "--set", f"placement={pol}", "--set", f"slc_share_pct={s}", "--set", f"page_bytes={g['page_bytes']}",
                      "--set", f"pages_per_block={g['pages_per_block']}",
                      "--set", f"slc_pages_per_block={g['slc_pages_per_block']}", *g["set"])
                ident = csd_json(b, "identify", img)
                r = json.loads(java("replay", trace, "--image", img, "--repeat", REPEAT, "--json"))
                os.remove(img)
                c = r["counters"]           # after the last run (wear.*.durability, place.*)
                d = r["counters_delta"]     # during the last run: its I/O, erases and region shares
                level_bytes[w] = r["levels"]
                row = {
                    "workload": w, "slc_share_pct": s, "policy": pol,
                    "slc_blocks_per_plane": ident.get("params", {}).get("slc_blocks_per_plane", ""),
                    "avg_io_us": (d["io.device_ns"] / d["io.commands"] if d.get("io.commands") else r["avg_io_ns"]) / 1e3,
                    "durability_runs": durability(c, d),
                    "slc_erases": d.get("wear.slc.erases", 0), "tlc_erases": d.get("wear.tlc.erases", 0),
                    "slc_host_write_pct": share(d.get("region.slc.host_programs", 0), d.get("region.tlc.host_programs", 0)),
                    "slc_host_read_pct": share(d.get("region.slc.host_reads", 0), d.get("region.tlc.host_reads", 0)),
                    "migrated_pages": d.get("ftl.migrated_pages", 0),
                    "slc_target_hint": c.get("place.slc_target_hint", ""),
                    "host_write_mib": r["write_bytes"] / 2**20, "host_read_mib": r["read_bytes"] / 2**20,
                    "device_s": r["device_clock_ns"] / 1e9,
                }
                rows.append(row)
                print(f"  {w} {s}% {pol}: {row['avg_io_us']:.0f} us, durability {row['durability_runs']:.3g} runs, "
                      f"SLC writes {row['slc_host_write_pct']:.1f}%, reads {row['slc_host_read_pct']:.1f}%", flush=True)
    b.write_csv(rows)
    report(b, o, g, rows, level_bytes)


def report(b, o, g, rows, level_bytes):
    by = {(r["workload"], r["slc_share_pct"], r["policy"]): r for r in rows}
    table = []
    lat, dur = [], []
    for w in o["workloads"]:
        for s in o["shares"]:
            lv, cb = by[(w, s, "level")], by[(w, s, "combo")]
            lr = lv["avg_io_us"] / cb["avg_io_us"] if cb["avg_io_us"] else math.nan
            dr = ratio(lv["durability_runs"], cb["durability_runs"])
            lat.append(lr)
            if not math.isinf(dr):
                dur.append(dr)
            paper_l = PAPER["latency_fill_random_10"] if (w, s) == ("fill-random", 10) else ""
            paper_d = PAPER["durability_fill_random_10"] if (w, s) == ("fill-random", 10) else ""
            table.append({"workload": w, "slc_%": s, "latency_vs_combo": lr, "paper_latency": paper_l,
                          "durability_vs_combo": dr, "paper_durability": paper_d,
                          "slc_writes_level_%": lv["slc_host_write_pct"], "slc_writes_combo_%": cb["slc_host_write_pct"],
                          "slc_reads_level_%": lv["slc_host_read_pct"], "slc_reads_combo_%": cb["slc_host_read_pct"]})
    b.write_csv(table, name="normalized.csv")
    if lat:
        b.headline("average I/O latency, level / combo (mean over workloads and shares)", sum(lat) / len(lat), "x",
                   PAPER["latency_avg"])
    if dur:
        b.headline("durability, level / combo (mean over finite ratios)", sum(dur) / len(dur), "x", PAPER["durability_avg"])
    if ("fill-random", 10, "level") in by:
        t = next(t for t in table if t["workload"] == "fill-random" and t["slc_%"] == 10)
        b.headline("fill-random, 10% SLC: latency level / combo", t["latency_vs_combo"], "x", PAPER["latency_fill_random_10"])
        b.headline("fill-random, 10% SLC: durability level / combo", t["durability_vs_combo"], "x",
                   PAPER["durability_fill_random_10"])
        b.headline("fill-random, 10% SLC: host writes to SLC under level", t["slc_writes_level_%"], "%",
                   PAPER["slc_write_share_fill_random_10"])
    if ("fill-random", 1, "level") in by:
        b.headline("fill-random, 1% SLC: host writes to SLC under level", by[("fill-random", 1, "level")]["slc_host_write_pct"],
                   "%", PAPER["slc_write_share_fill_random_1"])
    for w, lvls in level_bytes.items():
        total = sum(v["write_bytes"] for v in lvls.values())
        if total:
            b.headline(f"{w}: level-1 share of SST writes", 100.0 * lvls.get("1", {"write_bytes": 0})["write_bytes"] / total,
                       "%", PAPER["l1_share"][w])
    plots(b, o, table)
    b.finish(table, ["workload", "slc_%", "latency_vs_combo", "paper_latency", "durability_vs_combo", "paper_durability",
                     "slc_writes_level_%", "slc_writes_combo_%", "slc_reads_level_%", "slc_reads_combo_%"])
    print(f"scaling: {o['records']} records of 1 KiB (Table 3 / {200_000_000 // o['records']:,}), capacity "
          f"{g['capacity'] >> 20} MiB, {g['page_bytes'] // 1024} KiB pages, {g['pages_per_block']} / "
          f"{g['slc_pages_per_block']} pages per TLC / SLC-mode block, erase "
          f"{g.get('t_erase_ns', 10_000_000) / 1e6:g} ms, RocksDB {' '.join(f'{k} {v}' for k, v in sorted(o['tree'].items())) or 'defaults'}")


def plots(b, o, table):
    def series(key):
        out = {}
        for w in o["workloads"]:
            pts = [(t["slc_%"], t[key]) for t in table if t["workload"] == w and not math.isinf(t[key])]
            if pts:
                out[w] = ([p[0] for p in pts], [p[1] for p in pts])
        return out
    b.plot("fig9_latency.png", "Avg I/O latency, level / combo (Fig. 9; paper 0.80x at 10%, fill-random)",
           "SLC share of blocks (%)", "latency / ComboFTL's (x)", series("latency_vs_combo"))
    b.plot("fig9_durability.png", "Durability, level / combo (Fig. 9; paper 1.38x at 10%, fill-random)",
           "SLC share of blocks (%)", "durability / ComboFTL's (x)", series("durability_vs_combo"))
    b.plot("fig10_writes.png", "Host writes landing in SLC under level (Fig. 10b)",
           "SLC share of blocks (%)", "SLC share of host writes (%)", series("slc_writes_level_%"))
    b.plot("fig10_reads.png", "Host reads served from SLC under level (Fig. 10a)",
           "SLC share of blocks (%)", "SLC share of host reads (%)", series("slc_reads_level_%"))
