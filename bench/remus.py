"""bench remus: the REMUS paper's results (Huang et al., "REMUS: Efficient Multi-Request Scheduling in
Computational Storage Devices") on the engine's stage mode, from the C harness bench_remus:

  Fig. 4   simulated groups of 50 requests, c_i in [0.2, X] us: throughput of every policy and the
           offline optimum, normalized to CFS (paper: REMUS 1.65x CFS, 1.32x HORAE, 1.59x SERICO)
  Fig. 5   SQL / STAT / KNN mixes on the ys9203 preset (paper: 1.42x CFS, 1.33x HORAE, 1.41x SERICO)
  Table I  host-only vs dedicated vs co-located devices, SQL 3 GB + KNN 1 GB (paper: 1, 0.81, 1.57)
  overhead wall time of one decision with 10 pending requests (paper: 0.6% of the execution time)
  real     plan (SQL), stats and knn tasklets over real bytes, through the device's commands

usage: bin/smartssd bench remus [reuse] [FIG4_GROUPS [FIG5_GROUPS]]   (defaults 3 and 1; minutes)
  reuse: keep the experiments already in out/bench/remus/results.csv and run only the missing ones
docs/SCHEDULERS.md explains the setups and every difference from the paper.
"""
import csv
import io
import os
import statistics
import tempfile

POLICIES = ["fcfs", "cfs", "horae", "serico", "remus"]
PAPER = {
    ("fig4", "cfs"): 1.65, ("fig4", "horae"): 1.32, ("fig4", "serico"): 1.59,
    ("fig5", "cfs"): 1.42, ("fig5", "horae"): 1.33, ("fig5", "serico"): 1.41,
}


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


def ratios(rows, exp, over, of="remus"):
    """Per x (averaged over groups): `of` throughput / `over` throughput."""
    by = {}
    for r in rows:
        if r["experiment"] == exp:
            by.setdefault((r["x"], r["group"]), {})[r["policy"]] = float(r["MB_per_s"])
    per_x = {}
    for (x, _), pol in by.items():
        if of in pol and over in pol:
            per_x.setdefault(x, []).append(pol[of] / pol[over])
    return {x: statistics.mean(v) for x, v in per_x.items()}


def normalized(rows, exp, xs):
    """{policy: [mean throughput / CFS throughput at each x]}"""
    by = {}
    for r in rows:
        if r["experiment"] == exp:
            by.setdefault((r["x"], r["group"]), {})[r["policy"]] = float(r["MB_per_s"])
    out = {}
    for x in xs:
        groups = [pol for (xx, _), pol in by.items() if xx == x]
        for p in set().union(*[g.keys() for g in groups]):
            out.setdefault(p, []).append(statistics.mean(g[p] / g["cfs"] for g in groups if p in g))
    return out


def main(b):
    reuse = b.args[:1] == ["reuse"]
    args = b.args[1:] if reuse else b.args
    g4 = args[0] if len(args) > 0 else "3"
    g5 = args[1] if len(args) > 1 else "1"
    tool = b.tool("bench_remus")
    text = b.run(tool, "header")
    have = set()
    if reuse:   # keep the experiments of the last run's results.csv, run the missing ones
        with open(os.path.join(b.out, "results.csv")) as f:
            old = f.read()
        text = old
        have = {r["experiment"] for r in rows_of(old)}
    for mode, groups in (("fig4", g4), ("fig5", g5), ("table1", "1"), ("overhead", "1")):
        if mode not in have:
            print(f"running {mode} ...", flush=True)
            text += b.run(tool, mode, groups)
    if "real" not in have:
        print("running real tasklets ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            text += b.run(b.tool("bench_remus_real"), tmp, "48")
    rows = rows_of(text)
    b.write_csv(rows)

    table = []

    def add(name, ours, paper, unit="x"):
        b.headline(name, round(ours, 3), unit, paper=paper)
        row = {"figure": name, "ours": ours, "paper": paper if paper is not None else "", "unit": unit}
        if paper:
            row["ours/paper"] = ours / paper
            row["within 10%"] = "yes" if abs(ours / paper - 1) <= 0.10 else "no"
        table.append(row)

    # Fig. 4
    xs4 = sorted({r["x"] for r in rows if r["experiment"] == "fig4"}, key=float)
    norm4 = normalized(rows, "fig4", xs4)
    b.plot("fig4.png", "Fig. 4: normalized throughput, T_f = 65 us (stage model)",
           "X: c_i uniform in [0.2, X] (us)", "throughput / CFS throughput (ratio)",
           {p: ([float(x) for x in xs4], norm4[p]) for p in POLICIES + ["optimum"] if p in norm4})
    for over in ("cfs", "horae", "serico"):
        r = ratios(rows, "fig4", over)
        add(f"Fig. 4 REMUS / {over.upper()} (mean over X)", statistics.mean(r.values()), PAPER[("fig4", over)])
    opt = ratios(rows, "fig4", "optimum")
    add("Fig. 4 REMUS / offline optimum (worst X)", min(opt.values()), None)
    add("Fig. 4 offline optimum / lower bound (worst X)", min(ratios(rows, "fig4", "bound", "optimum").values()), None)

    # Fig. 5
    mixes = []
    for r in rows:
        if r["experiment"] == "fig5" and r["x"] not in mixes:
            mixes.append(r["x"])
    norm5 = normalized(rows, "fig5", mixes)
    b.plot("fig5.png", "Fig. 5: normalized throughput, ys9203 preset", "request mix (SQL / STAT / KNN)",
           "throughput / CFS throughput (ratio)", {p: (mixes, norm5[p]) for p in POLICIES}, kind="bar")
    for over in ("cfs", "horae", "serico"):
        r = ratios(rows, "fig5", over)
        add(f"Fig. 5 REMUS / {over.upper()} (mean over mixes)", statistics.mean(r.values()), PAPER[("fig5", over)])

    # Table I
    t1 = {(r["x"], r["policy"]): float(r["MB_per_s"]) for r in rows if r["experiment"] == "table1"}
    host = t1[("host-only", "host")]
    b.plot("table1.png", "Table I: SQL 3 GB + KNN 1 GB on two devices", "setup (device policy)",
           "throughput / host-only throughput (ratio)",
           {p: (["dedicated", "co-located"], [t1[("dedicated", p)] / host, t1[("co-located", p)] / host])
            for p in POLICIES}, kind="bar")
    add("Table I CSD-dedicate / host-only (REMUS)", t1[("dedicated", "remus")] / host, 0.81)
    add("Table I CSD-colocate / host-only (REMUS)", t1[("co-located", "remus")] / host, 1.57)
    add("Table I CSD-colocate / CSD-dedicate (REMUS)", t1[("co-located", "remus")] / t1[("dedicated", "remus")],
        1.57 / 0.81)

    # overhead
    ov = {r["policy"]: float(r["ns_per_decision"]) for r in rows if r["experiment"] == "overhead"}
    dev = [float(r["ns_per_decision"]) for r in rows
           if r["experiment"] == "fig5" and r["policy"] == "remus" and float(r["ns_per_decision"]) > 0]
    add("REMUS decision, 10 pending requests: host wall time", ov["remus"], None, "ns")
    add("REMUS decision wall time / device core time per decision (Fig. 5)",
        100 * ov["remus"] / statistics.mean(dev), 0.6, "%")

    # real tasklets (plan / stats / knn over real bytes, through the device's commands)
    real = {r["policy"]: float(r["MB_per_s"]) for r in rows if r["experiment"] == "real"}
    b.plot("real.png", "Real tasklets (plan SQL + stats + knn, 48 MiB), ys9203 preset", "request scheduler",
           "throughput (MB/s)", {"device time": (POLICIES, [real[p] for p in POLICIES])}, kind="bar")
    add("Real tasklets SQL+STAT+KNN: REMUS / CFS", real["remus"] / real["cfs"], None)

    b.finish(table, ["figure", "ours", "paper", "unit", "ours/paper", "within 10%"])
