"""bench hybrid: level-aware placement on a hybrid SLC/TLC device against its ComboFTL-style baseline,
driven by a real LSM store, at one consistent scale (hybrid paper, section VI; docs/LSM.md).

One scale factor 1/S (--scale S, default 256) is applied to everything the paper sizes: Table 3's records
(200 M / S), RocksDB's defaults of the time (64 MiB memtables and files, 256 MiB level 1, pending-compaction
limits 64 / 256 GiB, 8 MiB block cache, all / S), and the device's blocks (Table 2's 768 / 256 pages per
TLC / SLC-mode block / S, erase time / S: the erase cost per page stays Table 2's) while the device keeps
Table 4's 32,768 blocks (4,096 per plane), 16 KiB pages and 20% over-provisioning.

1. Record the Table 3 workloads on RocksDB (`lsm record --scale S`, paced so compaction keeps up; point
   lookups of the update-heavy ones recorded) into out/bench/hybrid/traces/ (kept and reused), and check
   each tree's level sizes and level-1 write share against the paper's (`lsm check`); a tree far off stops
   the bench unless --force.
2. For every workload, SLC share (1, 2, 3, 5, 10% of the blocks, Table 4) and configuration -- `level` as
   printed (Algorithms 1-5 read literally), `level` with our additions (level_balance_ours,
   level_migrate_any), and `combo` (the baseline) -- format a fresh timing-only image (discard_data) and
   replay the trace once (`lsm replay`: the paper's EraseCount is one run of the workload).
3. Report, beside the paper's: average I/O latency and VI-B durability normalized to combo (Fig. 9), the
   SLC share of the host's writes and reads (Fig. 10), each for the literal and our variant.

--sweep (fill-random at 10% SLC only) varies what the paper leaves open: channel speed, request size,
write-ahead log, GC reserve per plane or device-wide, ComboFTL's threshold, and (a what-if) a balance aiming
below Algorithm 3's phi (bench/hybrid_sweep.py); written to out/bench/hybrid/sweep/.

Arguments: --scale S (1/S; S divides 256: 256, 128, 64, ...; results of another scale than 256 go to
out/bench/hybrid/scale-S/), --quick (a smoke test, out/bench/hybrid/quick/: 1/1024 records and RocksDB sizes
on a quarter of the 1/256 device, shares 1 and 10), --records N, --workloads a,b,
--shares 1,10, --seed S, --jobs N (replays at once, default 2), --force (replay trees far from the
paper's), --sweep.
"""
import concurrent.futures as cf
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time

WORKLOADS = ["fill-random", "zipf-write", "zipf-update", "latest-write", "latest-update"]
SHARES = [1, 2, 3, 5, 10]
# configurations replayed per point: (name, placement, extra device params)
CONFIGS = [
    ("literal", "level", []),
    ("ours", "level", ["level_balance_ours=1", "level_migrate_any=1"]),
    ("combo", "combo", []),
]
VARIANTS = {"literal": "literal paper", "ours": "ours"}
TABLE3_RECORDS = 200_000_000
PAPER = {
    "latency_avg": 0.88, "durability_avg": 1.22,
    "latency_fill_random_10": 0.80, "durability_fill_random_10": 1.38,
    "slc_write_share_fill_random_10": 29.66, "slc_write_share_fill_random_1": 3.91,
    "l1_share": {"fill-random": 10, "zipf-write": 18, "latest-write": 18, "zipf-update": 53, "latest-update": 61},
}


def parse(args):
    o = {"quick": False, "scale": 256, "records": None, "workloads": WORKLOADS, "shares": SHARES, "seed": 1,
         "jobs": 2, "force": False, "sweep": False}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--quick", "--force", "--sweep"):
            o[a[2:]] = True
        elif a in ("--records", "--workloads", "--shares", "--seed", "--scale", "--jobs") and i + 1 < len(args):
            v = args[i + 1]
            i += 1
            if a == "--workloads":
                o["workloads"] = v.split(",")
                bad = [w for w in o["workloads"] if w not in WORKLOADS]
                if bad:
                    sys.exit(f"bench hybrid: unknown workloads {bad} (of {', '.join(WORKLOADS)})")
            elif a == "--shares":
                o["shares"] = [int(s) for s in v.split(",")]
            else:
                o[a[2:]] = int(v)
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            sys.exit(f"bench hybrid: unknown argument {a!r} (--scale S, --quick, --records N, --workloads a,b, --shares 1,2,"
                     " --seed S, --jobs N, --force, --sweep)")
        i += 1
    if o["scale"] < 1 or 256 % o["scale"]:
        sys.exit(f"bench hybrid: --scale {o['scale']}: the scale must divide 256 (blocks of 768 / S TLC and 256 / S SLC-mode"
                 " pages), e.g. 256 (default) or 64")
    if o["quick"]:
        if "--shares" not in args:
            o["shares"] = [1, 10]
        o["rocks_scale"] = 1024
    else:
        o["rocks_scale"] = o["scale"]
    if o["records"] is None:
        o["records"] = TABLE3_RECORDS // o["rocks_scale"]
    return o


def geometry(o):
    """The device at scale 1/S: Table 4's 4,096 blocks per plane (a quarter with --quick), Table 2's blocks / S
    with erase time / S, capacity the 10%-SLC device's pages less 20% over-provisioning (one capacity for every
    share, as Table 4 keeps the block count)."""
    s = o["scale"] if not o["quick"] else 256
    bpp = 4096 if not o["quick"] else 1024
    ppb, sppb = 768 // s, 256 // s
    slc10 = bpp * 10 // 100
    pages = 8 * ((bpp - slc10) * ppb + slc10 * sppb)
    cap = int(pages / 1.2) * 16384
    t_erase = 10_000_000 // s
    sets = [f"page_bytes=16384", f"pages_per_block={ppb}", f"slc_pages_per_block={sppb}", f"blocks_per_plane={bpp}",
            f"t_erase_ns={t_erase}", f"t_erase_slc_ns={t_erase}", "discard_data=1",
            # ComboFTL's size threshold (64 KiB, an assumption) scaled with the files: a scaled-down SST written
            # in one command is "large" exactly when the file it stands for would have been
            f"combo_small_bytes={max(1, 65536 // o['rocks_scale'])}"]
    return {"capacity": cap, "ppb": ppb, "sppb": sppb, "bpp": bpp, "t_erase_ns": t_erase, "set": sets}


def image_dir(b):
    """Timing-only images hold only records; /dev/shm keeps their small writes off the disk when it exists."""
    d = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else b.out
    return os.path.join(d, f"smartssd-bench-hybrid-{os.getpid()}")


def csd_json(b, *args):
    return json.loads(b.run(b.tool("csd"), *args, "--json"))


def probe(b):
    """The device must have preset hybrid, placements level and combo and the switches: else stop, no numbers."""
    d = image_dir(b)
    os.makedirs(d, exist_ok=True)
    img = os.path.join(d, "probe.img")
    for name, pol, extra in CONFIGS:
        if os.path.exists(img):
            os.remove(img)
        r = subprocess.run([b.tool("csd"), "format", img, "--capacity", "64M", "--preset", "hybrid",
                            "--set", f"placement={pol}", *sum((["--set", x] for x in extra), [])],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("bench hybrid: this device has no hybrid SLC/TLC preset with placement "
                     f"'{pol}' ({' '.join(extra)}) (csd format: {r.stderr.strip() or r.stdout.strip()}).\n"
                     "The bench compares the placement policies 'level' (the hybrid paper's method) and 'combo' "
                     "(its ComboFTL baseline) and prints no numbers without them.")
        params = csd_json(b, "identify", img).get("params", {})
        if params.get("placement") != pol or "slc_share_pct" not in params:
            sys.exit(f"bench hybrid: the device formatted with placement={pol} reports placement "
                     f"{params.get('placement')!r} and no SLC share: no hybrid placement support, no numbers.")
    os.remove(img)


def java(*args):
    cp = os.environ.get("SMARTSSD_LSM_CP")
    if not cp:
        sys.exit("bench hybrid: run it as `bin/smartssd bench hybrid` (it builds the LSM tools)")
    cmd = [os.environ.get("SMARTSSD_JAVA", "java"), "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
           "-cp", cp, "io.smartssd.lsm.LsmCli"] + [str(a) for a in args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def java_ok(*args):
    rc, out, err = java(*args)
    if rc:
        sys.exit(f"lsm {' '.join(map(str, args))}: exit {rc}\n{err}")
    return out


def trace_path(b, o, w):
    d = os.path.join(o.get("trace_root", b.out), "traces")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, f"{w}-s{o['rocks_scale']}-r{o['records']}-seed{o['seed']}.trace")


def record(b, o, w):
    """Record workload w (kept: a trace with its .json is reused). The store lives in /dev/shm when there is one."""
    trace = trace_path(b, o, w)
    meta = trace + ".json"
    if os.path.exists(trace) and os.path.exists(meta):
        return trace, json.load(open(meta))
    db = os.path.join(os.path.dirname(image_dir(b)), f"smartssd-bench-hybrid-db-{os.getpid()}-{w}")
    shutil.rmtree(db, ignore_errors=True)
    try:
        r = json.loads(java_ok("record", "--workload", w, "--scale", o["rocks_scale"], "--records", o["records"],
                               "--seed", o["seed"], "--db", db, "--out", trace + ".tmp", "--json"))
    finally:
        shutil.rmtree(db, ignore_errors=True)
    os.replace(trace + ".tmp", trace)
    json.dump(r, open(meta, "w"))
    return trace, r


def level_check(o, trace):
    rc, out, err = java("check", trace, "--json", "--force")
    if rc:
        sys.exit(f"lsm check {trace}: exit {rc}\n{err}")
    return json.loads(out)


def replay(b, g, trace, pol, share, extra, tag, more_sets=(), replay_args=()):
    """Format a fresh timing-only image and replay the trace once; the replay's JSON."""
    d = image_dir(b)
    os.makedirs(d, exist_ok=True)
    img = os.path.join(d, f"{tag}.img")
    if os.path.exists(img):
        os.remove(img)
    sets = [x for s in [*g["set"], f"placement={pol}", f"slc_share_pct={share}", *extra, *more_sets] for x in ("--set", s)]
    b.run(b.tool("csd"), "format", img, "--capacity", str(g["capacity"]), "--preset", "hybrid", *sets)
    try:
        return json.loads(java_ok("replay", trace, "--image", img, "--json", "--force", *replay_args))
    finally:
        os.remove(img)


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


def row_of(r, w, s, name, pol):
    c, d = r["counters"], r["counters_delta"]
    cmds = d.get("io.commands", 0)
    return {
        "workload": w, "slc_share_pct": s, "config": name, "policy": pol,
        "avg_io_us": (d["io.device_ns"] / cmds if cmds else r["avg_io_ns"]) / 1e3,
        "durability_runs": durability(c, d),
        "slc_erases": d.get("wear.slc.erases", 0), "tlc_erases": d.get("wear.tlc.erases", 0),
        "slc_host_write_pct": share(d.get("region.slc.host_programs", 0), d.get("region.tlc.host_programs", 0)),
        "slc_host_read_pct": share(d.get("region.slc.host_reads", 0), d.get("region.tlc.host_reads", 0)),
        "migrated_pages": d.get("ftl.migrated_pages", 0), "gc_pages_moved": d.get("ftl.gc_pages_moved", 0),
        "slc_target_hint": c.get("place.slc_target_hint", ""),
        "host_write_mib": r["write_bytes"] / 2**20, "host_read_mib": r["read_bytes"] / 2**20,
        "lookups": r.get("lookups", 0), "io_commands": cmds, "device_s": r["device_clock_ns"] / 1e9,
    }


def main(b):
    t0 = time.time()
    o = parse(b.args)
    g = geometry(o)
    probe(b)
    print(f"scale 1/{o['scale']}: {o['records']:,} records of 1 KiB, RocksDB sizes / {o['rocks_scale']}, "
          f"{g['bpp']} blocks per plane of {g['ppb']} / {g['sppb']} pages (TLC / SLC mode), erase "
          f"{g['t_erase_ns']:,} ns, capacity {g['capacity'] / 1e9:.2f} GB" + (" (quick: a smoke test)" if o["quick"] else ""),
          flush=True)
    workloads = ["fill-random"] if o["sweep"] else o["workloads"]
    o["trace_root"] = b.out   # traces of every scale live in out/bench/hybrid/traces/
    if o["scale"] != 256 or o["quick"]:
        # another scale's results go beside the default's, not over them
        b.out = os.path.join(b.out, "quick" if o["quick"] else f"scale-{o['scale']}")
        os.makedirs(b.out, exist_ok=True)
    traces, checks = {}, {}
    with cf.ThreadPoolExecutor(max_workers=max(1, o["jobs"])) as ex:
        for w, (trace, rec) in zip(workloads, ex.map(lambda w: record(b, o, w), workloads)):
            traces[w] = trace
            print(f"{w}: {rec['writes']:,} writes, {rec['reads']:,} reads ({rec.get('lookups', 0):,} lookups reaching SST files),"
                  f" {rec['trace_events']:,} trace events, levels {rec['levels']}", flush=True)
    far = []
    for w in workloads:
        checks[w] = level_check(o, traces[w])
        print(f"level check of {w} ({os.path.basename(traces[w])}):")
        print(check_text(checks[w]["level_check"]))
        if not checks[w]["level_check"]["ok"]:
            far.append(w)
    if far and not o["force"]:
        sys.exit(f"bench hybrid: the recorded trees of {', '.join(far)} are far from the paper's (FAR above): no numbers."
                 " --force to go on (docs/LSM.md, the level check)")
    if o["sweep"]:
        import hybrid_sweep
        b.out = os.path.join(b.out, "sweep")   # its own results.csv, summary.json beside the bench's
        os.makedirs(b.out, exist_ok=True)
        hybrid_sweep.run(b, o, g, traces["fill-random"], t0)
        shutil.rmtree(image_dir(b), ignore_errors=True)
        return
    jobs = [(w, s, name, pol, extra) for w in workloads for s in o["shares"] for name, pol, extra in CONFIGS]
    rows = []

    def one(j):
        w, s, name, pol, extra = j
        r = replay(b, g, traces[w], pol, s, extra, f"{w}-{s}-{name}")
        return row_of(r, w, s, name, pol)

    with cf.ThreadPoolExecutor(max_workers=max(1, o["jobs"])) as ex:
        for row in ex.map(one, jobs):
            rows.append(row)
            print(f"  {row['workload']} {row['slc_share_pct']}% {row['config']}: {row['avg_io_us']:.0f} us, durability "
                  f"{row['durability_runs']:.3g} runs, SLC writes {row['slc_host_write_pct']:.1f}%, "
                  f"reads {row['slc_host_read_pct']:.1f}%", flush=True)
    shutil.rmtree(image_dir(b), ignore_errors=True)
    b.write_csv(rows)
    report(b, o, g, rows, checks, t0)


def check_text(lc):
    lines = ["  level  written  share  live MiB  limit MiB  mean fill"]
    for lv, l in sorted(lc["levels"].items(), key=lambda x: int(x[0])):
        lim = l["limit_bytes"]
        limit = f"{lim / 2**20:.1f}" if lim else "-"
        fill = f"{l['mean_fill']:.2f}" if lim else "-"
        lines.append(f"  {lv:>5}  {l['written_bytes'] / 2**20:6.0f} M  {l['share_pct']:4.1f}%  {l['final_bytes'] / 2**20:8.1f}  "
                     f"{limit:>9}  {fill:>9}")
    for f in lc["findings"]:
        lines.append(f"  {f.get('mark', 'ok' if f['ok'] else 'FAR'):<4} {f['what']}: {f['ours']} ({f['reference']})")
    return "\n".join(lines)


def timing(t0, b=None):
    """Wall and CPU time of the whole bench (recording included), printed and, with b, in summary.json: on a
    shared machine the wall time depends on the load, so the CPU time and the load average go beside it."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    cpu = ru.ru_utime + ru.ru_stime + me.ru_utime + me.ru_stime
    wall, load = time.time() - t0, os.getloadavg()[0]
    if b is not None:
        b.headline("bench wall time", round(wall, 1), "s")
        b.headline("bench CPU time (this process and its children)", round(cpu, 1), "s")
        b.headline("load average at the end (1 min)", round(load, 2), "processes")
    print(f"bench hybrid: {wall:.0f} s wall, {cpu:.0f} s CPU (this process and its children; "
          f"load average now {load:.1f})")


def normalized(o, rows):
    by = {(r["workload"], r["slc_share_pct"], r["config"]): r for r in rows}
    table = []
    for w in o["workloads"]:
        for s in o["shares"]:
            cb = by[(w, s, "combo")]
            t = {"workload": w, "slc_%": s, "slc_writes_combo_%": cb["slc_host_write_pct"]}
            for v in VARIANTS:
                lv = by[(w, s, v)]
                t[f"latency_{v}"] = lv["avg_io_us"] / cb["avg_io_us"] if cb["avg_io_us"] else math.nan
                t[f"durability_{v}"] = ratio(lv["durability_runs"], cb["durability_runs"])
                t[f"slc_writes_{v}_%"] = lv["slc_host_write_pct"]
                t[f"slc_reads_{v}_%"] = lv["slc_host_read_pct"]
            table.append(t)
    return table


def report(b, o, g, rows, checks, t0):
    table = normalized(o, rows)
    b.write_csv(table, name="normalized.csv")
    fr = {t["slc_%"]: t for t in table if t["workload"] == "fill-random"}
    for v, label in VARIANTS.items():
        lat = [t[f"latency_{v}"] for t in table]
        dur = [t[f"durability_{v}"] for t in table if not math.isinf(t[f"durability_{v}"])]
        if 10 in fr:
            b.headline(f"fill-random 10% SLC: latency level/combo ({label})", fr[10][f"latency_{v}"], "x",
                       PAPER["latency_fill_random_10"])
            b.headline(f"fill-random 10% SLC: durability level/combo ({label})", fr[10][f"durability_{v}"], "x",
                       PAPER["durability_fill_random_10"])
            b.headline(f"fill-random 10% SLC: SLC share of writes ({label})", fr[10][f"slc_writes_{v}_%"], "%",
                       PAPER["slc_write_share_fill_random_10"])
        if 1 in fr:
            b.headline(f"fill-random 1% SLC: SLC share of writes ({label})", fr[1][f"slc_writes_{v}_%"], "%",
                       PAPER["slc_write_share_fill_random_1"])
        if lat:
            b.headline(f"mean latency level/combo ({label})", sum(lat) / len(lat), "x", PAPER["latency_avg"])
        if dur:
            b.headline(f"mean durability level/combo ({label})", sum(dur) / len(dur), "x", PAPER["durability_avg"])
    if 10 in fr:
        b.headline("fill-random 10% SLC: SLC share of writes (combo)", fr[10]["slc_writes_combo_%"], "%")
    for w, c in checks.items():
        lc = c["level_check"]
        b.headline(f"{w}: level-1 share of SST writes", lc["levels"].get("1", {"share_pct": 0.0})["share_pct"], "%",
                   PAPER["l1_share"][w])
        b.headline(f"{w}: level check passed", 1 if lc["ok"] else 0, "bool", 1)
    plots(b, o, table)
    timing(t0, b)
    b.finish(table, ["workload", "slc_%", "latency_literal", "latency_ours", "durability_literal", "durability_ours",
                     "slc_writes_literal_%", "slc_writes_ours_%", "slc_writes_combo_%", "slc_reads_literal_%",
                     "slc_reads_ours_%"])
    print("paper: fill-random at 10% SLC 0.80x latency, 1.38x durability, 29.66% of writes in SLC (3.91% at 1%); "
          "means over the five workloads 0.88x and 1.22x")


def plots(b, o, table):
    for v, label in VARIANTS.items():
        def series(key):
            out = {}
            for w in o["workloads"]:
                pts = [(t["slc_%"], t[key]) for t in table if t["workload"] == w and not math.isinf(t[key])]
                if pts:
                    out[w] = ([p[0] for p in pts], [p[1] for p in pts])
            return out
        b.plot(f"fig9_latency_{v}.png", f"Avg I/O latency, level ({label}) / combo (Fig. 9; paper 0.80x at 10%, fill-random)",
               "SLC share of blocks (%)", "latency / ComboFTL's (x)", series(f"latency_{v}"))
        b.plot(f"fig9_durability_{v}.png", f"Durability, level ({label}) / combo (Fig. 9; paper 1.38x at 10%, fill-random)",
               "SLC share of blocks (%)", "durability / ComboFTL's (x)", series(f"durability_{v}"))
        b.plot(f"fig10_writes_{v}.png", f"Host writes landing in SLC, level ({label}) (Fig. 10b)",
               "SLC share of blocks (%)", "SLC share of host writes (%)", series(f"slc_writes_{v}_%"))
        b.plot(f"fig10_reads_{v}.png", f"Host reads served from SLC, level ({label}) (Fig. 10a)",
               "SLC share of blocks (%)", "SLC share of host reads (%)", series(f"slc_reads_{v}_%"))
