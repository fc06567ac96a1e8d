"""bench remus: the REMUS paper's results (Huang et al., "REMUS: Efficient Multi-Request Scheduling in
Computational Storage Devices") on the engine's stage mode, from the C harness bench_remus, with the
baselines under both adaptations (baseline_adaptation: shared-engine, the default, and paper):

  Fig. 4    simulated groups of 50 requests; the X axis set around the balance point c_b (eq. 10-11) as
            K = mean c_i / c_b; every policy, the offline optimum, its lower bound and the serial
            schedule ("room" = serial / bound: what any scheduler can gain); 8 channels (main), 2 and 4
            (sweep), and the other reading of 6:4 (c_i < c_b : c_i > c_b, unequal sizes)
            (paper: REMUS 1.65x CFS, 1.32x HORAE, 1.59x SERICO)
  Fig. 5    SQL / STAT / KNN mixes on the ys9203 preset, requests of whole MiB (paper: 1.42x CFS, 1.33x
            HORAE, 1.41x SERICO); also requests of any page count, and the baselines with Q = 64
  Table I   host-only vs dedicated vs co-located devices, SQL 3 GB + KNN 1 GB, one request per
            application (the paper's "two requests") and in 0.5 GiB requests (paper: 1, 0.81, 1.57)
  readings  HORAE's critical path as predecessor time; SERICO's halves of N_pl pages, its deadlines
            never updated or every 10 ms, its EDF over requests; the baselines split per chip
            (paper+split) (docs/SCHEDULERS.md, section 7.9)
  ablation  CFS under paper, the engine's advantages switched on one at a time, then REMUS's own parts
            (eq. 12 buffers, Algorithm 1); each advantage also taken alone from shared-engine
  buffer    the buffer rules made to bind: Fig. 4 at the balance point with smaller ISP buffers
  overhead  host CPU time of one decision with 10 pending requests (paper: 0.6% of the execution time)
  real      plan (SQL), stats and knn tasklets over real bytes, through the device's commands

usage: bin/smartssd bench remus [--quick] [reuse] [FIG4_GROUPS [FIG5_GROUPS]]   (defaults 3 and 1; ~40 minutes on 2 busy cores)
  --quick: Fig. 4 (one group, K = 0.5, 1, 2), Fig. 5 and Table I only (a minute or two)
  reuse: keep the experiments already in out/bench/remus/results.csv and run only the missing ones
Summary names end with the adaptation they ran under: "(paper adaptation)" or "(shared engine)".
docs/SCHEDULERS.md explains the setups and every difference from the paper.
"""
import csv
import io
import os
import statistics
import tempfile

BASELINES = ["fcfs", "cfs", "horae", "serico"]
POLICIES = BASELINES + ["remus"]
ADAPTS = ["shared-engine", "paper"]
ADAPT_NAME = {"shared-engine": "shared engine", "paper": "paper adaptation"}
PAPER = {
    ("fig4", "cfs"): 1.65, ("fig4", "horae"): 1.32, ("fig4", "serico"): 1.59,
    ("fig5", "cfs"): 1.42, ("fig5", "horae"): 1.33, ("fig5", "serico"): 1.41,
}
KS = "0.25,0.5,0.75,1,1.25,1.5,2,3"          # mean c_i / c_b on the Fig. 4 axis
KS_CB = "0.75,1,1.25,1.5,2,3"                # the other reading needs c_i > c_b for the longer ones
KS_QUICK = "0.5,1,2"
# readings of the baselines tested against the paper's figures (docs/SCHEDULERS.md, section 7.9):
# (bench_remus options on Fig. 4, on Fig. 5 (4 planes), what the summary calls it, the baselines it changes)
HORAE_PRED = ["--policies", "horae", "--set", "horae_critical_path=predecessor"]
SPLIT = ["--policies", "cfs,horae,serico", "--paper-as", "paper+split"]
READINGS = [
    (HORAE_PRED, HORAE_PRED, "HORAE's critical path as predecessor time", ["horae"]),
    (["--policies", "serico", "--set", "serico_half_pages=2"], ["--policies", "serico", "--set", "serico_half_pages=4"],
     "SERICO halves of N_pl pages", ["serico"]),
    (["--policies", "serico", "--set", "serico_period_ns=3600000000000"],
     ["--policies", "serico", "--set", "serico_period_ns=3600000000000"], "SERICO deadlines never updated", ["serico"]),
    (["--policies", "serico", "--set", "serico_period_ns=10000000"],
     ["--policies", "serico", "--set", "serico_period_ns=10000000"], "SERICO deadlines every 10 ms", ["serico"]),
    (["--policies", "serico", "--set", "serico_edf=request"], ["--policies", "serico", "--set", "serico_edf=request"],
     "SERICO EDF over requests", ["serico"]),
    (SPLIT, SPLIT, "baselines split per chip (paper+split)", ["cfs", "horae", "serico"]),
]


def suffix(opts):
    """the rows' reading after "halves" / "mib": bench_remus names each --set, and --paper-as"""
    return "".join(f"/{opts[i + 1]}" for i, o in enumerate(opts) if o == "--set") + \
        "".join(f"/as={opts[i + 1]}" for i, o in enumerate(opts) if o == "--paper-as")


def adaptation(opts):
    """the adaptation the baselines of a reading ran under"""
    return next((opts[i + 1] for i, o in enumerate(opts) if o == "--paper-as"), "paper")
BUFFERS = "83886080,2097152,1048576,524288,262144"   # 80 MB (the paper's), then smaller until they bind


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


def key_of(r):
    return (r["experiment"], r["channels"], r["reading"])


def groups_of(rows, exp, channels=None, reading=None):
    """{(x, group): {(policy, adaptation): MB/s}} plus {(x, group): X_us}"""
    by, xus = {}, {}
    for r in rows:
        if r["experiment"] != exp or (channels and r["channels"] != channels) or (reading and r["reading"] != reading):
            continue
        by.setdefault((r["x"], r["group"]), {})[(r["policy"], r["adaptation"])] = float(r["MB_per_s"])
        xus[(r["x"], r["group"])] = float(r["X_us"])
    return by, xus


def per_x(by, f):
    """{x: mean over groups of f(group's dict)} for the groups where f is defined"""
    out = {}
    for (x, _), pol in by.items():
        v = f(pol)
        if v is not None:
            out.setdefault(x, []).append(v)
    return {x: statistics.mean(v) for x, v in out.items()}


def ratio(of, over):
    return lambda pol: pol[of] / pol[over] if of in pol and over in pol else None


def room(pol):
    return pol[("bound", "-")] / pol[("serial", "-")] if ("serial", "-") in pol else None


def ordered(xs):
    try:
        return sorted(xs, key=float)
    except ValueError:
        return list(xs)


def main(b):
    quick = "--quick" in b.args
    args = [a for a in b.args if a != "--quick"]
    reuse = args[:1] == ["reuse"]
    args = args[1:] if reuse else args
    if reuse:   # a reuse completes the same run: run.json names that run
        b.args = [a for a in b.args if a != "reuse"]
    g4 = args[0] if len(args) > 0 else "3"
    g5 = args[1] if len(args) > 1 else "1"
    tool = b.tool("bench_remus")
    text = b.run(tool, "header")
    have = set()
    if reuse:   # keep the experiments of the last run's results.csv, run the missing ones
        with open(os.path.join(b.out, "results.csv")) as f:
            old = f.read()
        text = old
        have = {key_of(r) for r in rows_of(old)}
    if quick:
        plan = [(("fig4", "8", "halves"), ["fig4", "1", "8", "halves", KS_QUICK]),
                (("fig5", "8", "mib"), ["fig5", "1", "mib"]),
                (("table1", "8", "apps"), ["table1", "apps"]),
                (("table1", "8", "halfgib"), ["table1", "halfgib"]),
                (("overhead", "8", "-"), ["overhead"])]
    else:
        plan = [
            (("fig4", "8", "halves"), ["fig4", g4, "8", "halves", KS]),
            (("fig4", "4", "halves"), ["fig4", "1", "4", "halves", KS]),
            (("fig4", "2", "halves"), ["fig4", "1", "2", "halves", KS]),
            (("fig4", "8", "cb"), ["fig4", "1", "8", "cb", KS_CB]),
            # the other reading of Q (Table II: "the maximum parallelism that the flash controller can
            # provide", per core): every chip's planes, 32, for each baseline core; REMUS keeps its 16
            (("fig4", "8", "halves/Q32"), ["fig4", "1", "8", "halves", KS, "32"]),
            (("fig5", "8", "mib"), ["fig5", g5, "mib"]),
            (("fig5", "8", "pages"), ["fig5", g5, "pages"]),
            (("fig5", "8", "mib/Q64"), ["--policies", "cfs", "fig5", g5, "mib", "64"]),
            (("table1", "8", "apps"), ["table1", "apps"]),
            (("table1", "8", "halfgib"), ["table1", "halfgib"]),
            (("ablation4", "8", "halves"), ["ablation", KS]),
            (("buffer", "8", "halves"), ["buffer", "1", BUFFERS]),
            (("overhead", "8", "-"), ["overhead"]),
        ]
        for opts4, opts5, _, _ in READINGS:
            plan.append((("fig4", "8", "halves" + suffix(opts4)), opts4 + ["fig4", "1", "8", "halves", KS]))
            plan.append((("fig5", "8", "mib" + suffix(opts5)), opts5 + ["fig5", g5, "mib"]))
    for key, cmd in plan:
        if key not in have:
            print(f"running {' '.join(cmd)} ...", flush=True)
            text += b.run(tool, *cmd)
    if not quick and ("real", "8", "-") not in have:
        print("running real tasklets ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            text += b.run(b.tool("bench_remus_real"), tmp, "48")
    rows = rows_of(text)
    b.write_csv(rows)
    report(b, rows)


# ---- the report --------------------------------------------------------------------------------

def report(b, rows):
    import benchlib
    table = []

    def add(name, ours, paper=None, unit="x", room_v=None, adapt=""):
        """One summary entry; its name ends with the adaptation it ran under (when it is one of a pair)."""
        full = f"{name} ({ADAPT_NAME[adapt]})" if adapt else name
        b.headline(full, round(ours, 4), unit, paper=paper)
        row = {"figure": full, "ours": ours, "paper": paper if paper is not None else "",
               "unit": unit, "room": room_v if room_v is not None else ""}
        if isinstance(paper, float):
            row["ours/paper"] = ours / paper
            row["within 10%"] = "yes" if abs(ours / paper - 1) <= 0.10 else "no"
        table.append(row)

    def ratios(by, what, axis, over_list=("cfs", "horae", "serico"), adapts=ADAPTS, note="", room_v=None,
               paper_key=None):
        for a in adapts:
            for over in over_list:
                r = per_x(by, ratio(("remus", a), (over, a)))
                if r:
                    add(f"{what} REMUS / {over.upper()} (mean over {axis}){note}", statistics.mean(r.values()),
                        PAPER[(paper_key, over)] if paper_key else None, room_v=room_v, adapt=a)

    # Fig. 4, main: 8 channels, the paper's reading of 6:4
    by4, xus4 = groups_of(rows, "fig4", "8", "halves")
    ks = ordered({x for x, _ in by4})
    room4 = per_x(by4, room)
    ratios(by4, "Fig. 4", "K", room_v=statistics.mean(room4.values()), paper_key="fig4")
    opt = per_x(by4, ratio(("remus", "shared-engine"), ("optimum", "-")))
    bnd = per_x(by4, ratio(("remus", "shared-engine"), ("bound", "-")))
    ob = per_x(by4, ratio(("optimum", "-"), ("bound", "-")))
    worst = min(opt, key=opt.get)
    add(f"Fig. 4 REMUS / offline optimum (worst K: {worst})", opt[worst], None, room_v=room4[worst])
    worst = min(bnd, key=bnd.get)
    add(f"Fig. 4 REMUS / lower bound (worst K: {worst})", bnd[worst], None, room_v=room4[worst])
    add("Fig. 4 REMUS / lower bound (mean over K)", statistics.mean(bnd.values()), None,
        room_v=statistics.mean(room4.values()))
    worst = min(ob, key=ob.get)
    add(f"Fig. 4 offline optimum / lower bound (worst K: {worst})", ob[worst], None, room_v=room4[worst])
    add("Fig. 4 room: serial schedule / lower bound (mean over K)", statistics.mean(room4.values()), None)
    add("Fig. 4 room (max over K)", max(room4.values()), None)
    beaten = [(x, p, a) for (x, _), pol in by4.items() for (p, a), v in pol.items()
              if p in POLICIES and v > pol[("bound", "-")] * 1.0005]
    if beaten:
        print(f"note: these runs beat the (eq. 5) lower bound: {beaten}")

    fig4_tables(b, benchlib, by4, xus4, ks, "8 channels, 6:4 = lower : upper half of [0.2, X], equal sizes",
                "fig4.png")
    # channel sweep and the other reading
    sweep = []
    for ch in ("2", "4", "8"):
        by, _ = groups_of(rows, "fig4", ch, "halves")
        if not by:
            continue
        rm = per_x(by, room)
        for a in ADAPTS:
            row = {"channels": ch, "adaptation": a, "room mean": statistics.mean(rm.values()),
                   "room max": max(rm.values())}
            for over in ("cfs", "horae", "serico"):
                r = per_x(by, ratio(("remus", a), (over, a)))
                row[f"REMUS/{over.upper()} mean"] = statistics.mean(r.values())
                row[f"REMUS/{over.upper()} max"] = max(r.values())
            sweep.append(row)
            if ch != "8":
                add(f"Fig. 4, {ch} channels: REMUS / CFS (mean over K)", row["REMUS/CFS mean"], PAPER[("fig4", "cfs")],
                    room_v=row["room mean"], adapt=a)
    if len(sweep) > 2:
        print("\nFig. 4 by channel count (throughput ratios, mean and max over K; room = serial / lower bound):")
        benchlib.print_table(sweep, list(sweep[0].keys()))
    byq, _ = groups_of(rows, "fig4", "8", "halves/Q32")
    if byq:
        ratios(byq, "Fig. 4, baselines' Q = 32 (every chip's planes; REMUS 16):", "K", adapts=["paper"],
               room_v=statistics.mean(per_x(byq, room).values()), paper_key="fig4")
    bycb, xuscb = groups_of(rows, "fig4", "8", "cb")
    if bycb:
        ratios(bycb, "Fig. 4 other reading (c_i < c_b : c_i > c_b, unequal sizes):", "K",
               room_v=statistics.mean(per_x(bycb, room).values()), paper_key="fig4")
        fig4_tables(b, benchlib, bycb, xuscb, ordered({x for x, _ in bycb}),
                    "8 channels, 6:4 = c_i < c_b : c_i > c_b, sizes 0.25-1.75x the mean", "fig4-cb.png")

    # Fig. 5: requests of whole MiB (the paper-faithful sizes), then the other readings
    by5, _ = groups_of(rows, "fig5", reading="mib")
    mixes = []
    for r in rows:
        if r["experiment"] == "fig5" and r["x"] not in mixes:
            mixes.append(r["x"])
    room5 = per_x(by5, room)
    ratios(by5, "Fig. 5", "mixes", room_v=statistics.mean(room5.values()), paper_key="fig5")
    add("Fig. 5 room: serial schedule / lower bound (mean over mixes)", statistics.mean(room5.values()), None)
    fig5_tables(b, benchlib, by5, mixes, room5)
    byp, _ = groups_of(rows, "fig5", reading="pages")
    if byp:
        ratios(byp, "Fig. 5, requests of any page count:", "mixes", paper_key="fig5")
    by64, _ = groups_of(rows, "fig5", reading="mib/Q64")
    if by64:
        ratios(by64, "Fig. 5, baselines' Q = 64 (every chip's planes; REMUS 32):", "mixes", over_list=("cfs",),
               adapts=["paper"], paper_key="fig5")
    readings(rows, add)

    table1(b, benchlib, rows, add)
    if any(r["experiment"] == "ablation4" for r in rows):
        ablation(b, benchlib, rows, add)
    buffer_table(b, benchlib, rows)

    # overhead
    ov = {r["policy"]: float(r["ns_per_decision"]) for r in rows if r["experiment"] == "overhead"}
    dev = [float(r["ns_per_decision"]) for r in rows
           if r["experiment"] == "fig5" and r["reading"] == "mib" and r["policy"] == "remus"
           and r["adaptation"] == "shared-engine" and float(r["ns_per_decision"]) > 0]
    add("REMUS decision, 10 pending requests: host CPU time", ov["remus"], None, "ns")
    add("REMUS decision host CPU time / device core time per decision (Fig. 5)",
        100 * ov["remus"] / statistics.mean(dev), 0.6, "%")

    # real tasklets (plan / stats / knn over real bytes, through the device's commands)
    real = {(r["policy"], r["adaptation"]): float(r["MB_per_s"]) for r in rows if r["experiment"] == "real"}
    if real:
        b.plot("real.png", "Real tasklets (plan SQL + stats + knn, 48 MiB), ys9203 preset", "request scheduler",
               "throughput (MB/s)", {a: (POLICIES, [real[(p, a)] for p in POLICIES]) for a in ADAPTS}, kind="bar")
        for a in ADAPTS:
            add("Real tasklets SQL+STAT+KNN: REMUS / CFS", real[("remus", a)] / real[("cfs", a)], None, adapt=a)
    forced = sum(int(r["forced"]) for r in rows if r["forced"].isdigit())
    add("waits the engine had to override (all runs)", forced, None, "count")

    print("\nSummary (room = serial schedule / lower bound: the most any scheduler can gain on that setup):")
    b.finish(table, ["figure", "ours", "paper", "ours/paper", "within 10%", "room", "unit"])


def readings(rows, add):
    """HORAE's and SERICO's readings tested against the paper's figures (section 7.9): REMUS / the
    baseline under paper, on Fig. 4 (8 channels, one group) and Fig. 5."""
    out = []
    for opts4, opts5, what, overs in READINGS:
        row = {"reading": what}
        for fig, base, axis, opts in (("fig4", "halves", "K", opts4), ("fig5", "mib", "mixes", opts5)):
            by, _ = groups_of(rows, fig, "8", base + suffix(opts))
            a = adaptation(opts)
            for over in overs:
                r = per_x(by, ratio(("remus", a), (over, a)))
                if r:
                    v = statistics.mean(r.values())
                    row[f"{fig} REMUS / {over.upper()}"] = v
                    add(f"{'Fig. 4' if fig == 'fig4' else 'Fig. 5'}, {what}: REMUS / {over.upper()} (mean over {axis})",
                        v, PAPER[(fig, over)], adapt="paper")
        if len(row) > 1:
            out.append(row)
    if out:
        import benchlib
        print("\nReadings of the baselines under paper (Fig. 4: 8 channels, one group; Fig. 5: whole-MiB requests):")
        benchlib.print_table(out, ["reading"] + [f"{f} REMUS / {o}" for f in ("fig4", "fig5")
                                                 for o in ("CFS", "HORAE", "SERICO")])


def table1(b, benchlib, rows, add):
    """Table I under both readings of its requests; the devices under REMUS and under CFS in either
    adaptation; host-only is the assumed host (PCIe 3.0 x2 links, a host core 10x a device core)."""
    t1 = {(r["reading"], r["x"], r["policy"], r["adaptation"]): float(r["MB_per_s"]) for r in rows
          if r["experiment"] == "table1"}
    t1ms = {(r["reading"], r["x"], r["policy"], r["adaptation"]): int(r["makespan_ns"]) / 1e6 for r in rows
            if r["experiment"] == "table1"}
    t1rows = []
    for reading, what in (("apps", "one request per application"), ("halfgib", "0.5 GiB requests")):
        if (reading, "host-only", "host", "-") not in t1:
            continue
        host = t1[(reading, "host-only", "host", "-")]
        for p, a in [("remus", "shared-engine"), ("remus-uncapped", "shared-engine")] + \
                [(p, a) for a in ADAPTS for p in BASELINES]:
            ded, col = t1[(reading, "dedicated", p, a)], t1[(reading, "co-located", p, a)]
            t1rows.append({"requests": what, "device policy": p, "adaptation": a if p in BASELINES else "(both)",
                           "dedicated / host-only": ded / host, "co-located / host-only": col / host,
                           "co-located / dedicated": col / ded,
                           "KNN device (ms)": t1ms[(reading, "knn-device", p, a)]})
        for p, a in (("remus", "shared-engine"), ("cfs", "paper"), ("cfs", "shared-engine")):
            label = "REMUS" if p == "remus" else "CFS"
            adapt = a if p != "remus" else ""
            ded, col = t1[(reading, "dedicated", p, a)], t1[(reading, "co-located", p, a)]
            add(f"Table I CSD-dedicate / host-only, {label}, {what}", ded / host, 0.81, adapt=adapt)
            add(f"Table I CSD-colocate / host-only, {label}, {what}", col / host, 1.57, adapt=adapt)
            add(f"Table I CSD-colocate / CSD-dedicate, {label}, {what}", col / ded, round(1.57 / 0.81, 3), adapt=adapt)
            if reading == "apps" and p == "cfs" and a == "paper":
                # the host's speed is not in the paper: read off its Table I (dedicated / host-only = 0.81)
                add(f"Table I CSD-colocate / host-only, host-only calibrated to dedicated / host-only = 0.81, "
                    f"{label}, {what}", 0.81 * col / ded, 1.57, adapt=adapt)
    bound = ("halfgib", "co-located", "bound", "-")
    if bound in t1:
        add("Table I co-located, 0.5 GiB requests: REMUS / lower bound",
            t1[("halfgib", "co-located", "remus", "shared-engine")] / t1[bound], None)
        add("Table I dedicated KNN device, 0.5 GiB requests: REMUS, Q_thres capped (ms)",
            t1ms[("halfgib", "knn-device", "remus", "shared-engine")], None, "ms")
        add("Table I dedicated KNN device, 0.5 GiB requests: REMUS, Q_thres uncapped as Algorithm 1 is written (ms)",
            t1ms[("halfgib", "knn-device", "remus-uncapped", "shared-engine")], None, "ms")
    if not t1rows:
        return
    print("\nTable I (SQL 3 GB + KNN 1 GB on two ys9203 devices; host-only: assumed PCIe 3.0 x2 link, host 10x a "
          "device core):")
    benchlib.print_table(t1rows, list(t1rows[0].keys()))
    b.plot("table1.png", "Table I: SQL 3 GB + KNN 1 GB on two devices", "setup (requests, device policy, adaptation)",
           "throughput / host-only throughput (ratio)",
           {f"{r['requests'][:8]} {r['device policy']} {r['adaptation']}":
            (["dedicated", "co-located"], [r["dedicated / host-only"], r["co-located / host-only"]])
            for r in t1rows if r["device policy"] in ("remus", "cfs")}, kind="bar")


def fig4_tables(b, benchlib, by, xus, ks, what, png):
    """Per K, per adaptation: every policy / CFS, REMUS / bound, the optimum, room; and the plot."""
    plt = benchlib._pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    room_k = per_x(by, room)
    for ax, a in zip(axes, ADAPTS):
        out = []
        series = {p: [] for p in POLICIES + ["optimum", "bound"]}
        for k in ks:
            x_us = statistics.mean(v for (xx, _), v in xus.items() if xx == k)
            row = {"K": float(k), "X (us)": x_us}
            for p in POLICIES:
                pa = (p, a)
                row[p] = per_x(by, ratio(pa, ("cfs", a)))[k]
                series[p].append(row[p])
            for p in ("optimum", "bound"):
                v = per_x(by, ratio((p, "-"), ("cfs", a)))[k]
                row[p] = v
                series[p].append(v)
            row["serial"] = per_x(by, ratio(("serial", "-"), ("cfs", a)))[k]
            row["REMUS/bound"] = per_x(by, ratio(("remus", a), ("bound", "-")))[k]
            row["room"] = room_k[k]
            row["CFS MB/s"] = statistics.mean(pol[("cfs", a)] for (xx, _), pol in by.items() if xx == k)
            out.append(row)
        print(f"\nFig. 4 ({what}), {a}: throughput / CFS ({a}); K = mean c_i / c_b; room = serial / bound:")
        benchlib.print_table(out, list(out[0].keys()))
        for p, ys in series.items():
            ax.plot([float(k) for k in ks], ys, marker="o", label=p, linestyle="--" if p in ("optimum", "bound") else "-")
        ax.set_title(f"{a} adaptation", fontsize=10)
        ax.set_xlabel("K = mean c_i / c_b (balance point, eq. 10-11) (ratio)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("throughput / CFS throughput (ratio)")
    fig.suptitle(f"Fig. 4: normalized throughput, T_f = 65 us ({what})", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(b.out, png), dpi=110)
    plt.close(fig)


def fig5_tables(b, benchlib, by, mixes, room5):
    plt = benchlib._pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, a in zip(axes, ADAPTS):
        out = []
        for m in mixes:
            row = {"mix": m}
            for p in POLICIES:
                row[p] = per_x(by, ratio((p, a), ("cfs", a)))[m]
            row["bound"] = per_x(by, ratio(("bound", "-"), ("cfs", a)))[m]
            row["room"] = room5[m]
            row["CFS MB/s"] = statistics.mean(pol[("cfs", a)] for (xx, _), pol in by.items() if xx == m)
            out.append(row)
        print(f"\nFig. 5 (ys9203), {a}: throughput / CFS ({a}); room = serial / bound:")
        benchlib.print_table(out, list(out[0].keys()))
        width = 0.8 / len(POLICIES)
        for i, p in enumerate(POLICIES):
            ax.bar([j + i * width for j in range(len(mixes))], [r[p] for r in out], width, label=p)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(mixes))])
        ax.set_xticklabels(mixes, fontsize=8, rotation=15)
        ax.set_title(f"{a} adaptation", fontsize=10)
        ax.set_xlabel("request mix (SQL / STAT / KNN)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("throughput / CFS throughput (ratio)")
    fig.suptitle("Fig. 5: normalized throughput, ys9203 preset", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(b.out, "fig5.png"), dpi=110)
    plt.close(fig)


def ablation(b, benchlib, rows, add):
    """The waterfall: CFS under paper, then one engine advantage at a time, then REMUS's own parts; and
    the other ablation runs (bench_remus.c, STEPS)."""
    labels = []
    for r in rows:
        if r["experiment"] == "ablation4" and r["policy"] not in labels:
            labels.append(r["policy"])
    steps, others = labels[:7], labels[7:]   # the first 7: CFS under paper ... REMUS (NCUMULATIVE)
    out = {}
    for exp in ("ablation4", "ablation5"):
        by = {}
        for r in rows:
            if r["experiment"] == exp:
                by.setdefault(r["x"], {})[r["policy"]] = float(r["MB_per_s"])
        # mean over the axis of throughput / CFS under paper, and of REMUS / step
        out[exp] = {s: (statistics.mean(v[s] / v[steps[0]] for v in by.values()),
                        statistics.mean(v[steps[-1]] / v[s] for v in by.values()))
                    for s in labels}
    table = []
    prev4 = prev5 = None
    for s in labels:
        t4, r4 = out["ablation4"][s]
        t5, r5 = out["ablation5"][s]
        row = {"step": s, "Fig. 4: / CFS paper": t4, "Fig. 4 step gain": t4 / prev4 if prev4 and s in steps else "",
               "Fig. 4: REMUS / this": r4, "Fig. 5: / CFS paper": t5,
               "Fig. 5 step gain": t5 / prev5 if prev5 and s in steps else "", "Fig. 5: REMUS / this": r5}
        table.append(row)
        if s in steps:
            prev4, prev5 = t4, t5
            if s != steps[0]:
                add(f"ablation, Fig. 4: step '{s}' (x previous)", row["Fig. 4 step gain"], None)
                add(f"ablation, Fig. 5: step '{s}' (x previous)", row["Fig. 5 step gain"], None)
        else:
            add(f"ablation, Fig. 4: REMUS / ({s})", r4, None)
            add(f"ablation, Fig. 5: REMUS / ({s})", r5, None)
    print("\nAblation (Fig. 4: 8 channels, group 0, mean over K; Fig. 5: group 0, mean over mixes). Cumulative steps "
          "from CFS under paper to REMUS; each engine advantage taken alone from shared-engine CFS and given alone "
          "to CFS under paper; HORAE's and SERICO's paper / our readings on either engine:")
    benchlib.print_table(table, list(table[0].keys()))
    plt = benchlib._pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for ax, exp, title in ((axes[0], "ablation4", "Fig. 4 (mean over K)"), (axes[1], "ablation5", "Fig. 5 (mean over mixes)")):
        level = 1.0
        for i, s in enumerate(steps):
            t = out[exp][s][0]
            lo, hi = (0, t) if i == 0 or i == len(steps) - 1 else (min(level, t), max(level, t))
            color = "tab:gray" if i == 0 else "tab:blue" if i == len(steps) - 1 else ("tab:green" if t >= level else "tab:red")
            ax.bar(i, hi - lo, bottom=lo, color=color)
            ax.text(i, hi + 0.01, f"{t:.2f}", ha="center", fontsize=8)
            level = t
        ax.set_xticks(range(len(steps)))
        ax.set_xticklabels(steps, rotation=30, ha="right", fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.axhline(1.0, color="black", linewidth=0.5)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("throughput / CFS (paper adaptation) throughput (ratio)")
    fig.suptitle("Ablation: CFS under paper, engine advantages one at a time, then eq. 12 and Algorithm 1 (REMUS)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(b.out, "ablation.png"), dpi=110)
    plt.close(fig)


def buffer_table(b, benchlib, rows):
    by, _ = groups_of(rows, "buffer")
    out = []
    for (x, _), pol in sorted(by.items(), key=lambda kv: -float(kv[0][0])):
        for a in ADAPTS:
            row = {"ISP buffer (KiB)": float(x) / 1024, "adaptation": a}
            for p in BASELINES:
                row[f"REMUS/{p.upper()}"] = pol[("remus", a)] / pol[(p, a)]
            row["REMUS MB/s"] = pol[("remus", a)]
            out.append(row)
    if out:
        print("\nBuffer made to bind (Fig. 4, K = 1, 8 channels, group 0; baselines 2Q per request, SERICO two "
              "halves, REMUS eq. 12; each core gets half the buffer):")
        benchlib.print_table(out, list(out[0].keys()))
