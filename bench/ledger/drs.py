"""The DRS paper's claims (Lee et al., IEEE Access 2021): abstract, VI-B (Fig. 9), VI-C (Fig. 10),
VI-D (Fig. 11), conclusion. `bench drs` names its Fig. 9 entries "<workload> (real trace): ..." for the
real Nexus5 traces and "<workload> (synthetic): ..." for the traces generated from Table 1; the
orderings are computed here from its results.csv (one row per run: exp, ftl, workload, scheduler,
read_us, write_us, all_us, flash_queue_us, flash_us, qd, cache)."""
from ledger.core import Above, Below, Claim, Compute, Entries, Missing, Within

P = "DRS"
BENCH = "drs"
FIG9 = "DRS.md#fig-9-mean-latency-against-rcf"
FIG10 = "DRS.md#fig-10-waiting-time-breakdown-rcf--drs-mean-us-per-request"
FIG11 = "DRS.md#fig-11-map-cache-size-and-queue-depth"


def runs(out, exp):
    """{workload: {scheduler: row}} of one experiment, on the first FTL the bench used"""
    rows = [r for r in out.rows(BENCH) if r.get("exp") == exp]
    if not rows:
        raise Missing(f"no `{exp}` rows in out/bench/{BENCH}/results.csv")
    ftl = rows[0].get("ftl")
    by = {}
    for r in rows:
        if r.get("ftl") == ftl:
            by.setdefault(r["workload"], {})[r["scheduler"].lower()] = r
    return by


def lowest_share(col):
    """share of the workloads where DRS's mean `col` latency is the lowest of every scheduler's (ties count)"""
    def f(out):
        by = runs(out, "fig9")
        ok = [all(float(s["drs"][col]) <= float(r[col]) * 1.0005 for r in s.values()) for s in by.values()]
        return sum(ok) / len(ok)
    return f


def mean_ratio(sched, col, over="rcf"):
    def f(out):
        by = runs(out, "fig9")
        v = [float(s[sched][col]) / float(s[over][col]) for s in by.values() if float(s[over][col])]
        return sum(v) / len(v)
    return f


def named(by, word):
    got = [w for w in by if w.split()[0].lower() == word.lower()]
    if not got:
        raise Missing(f"no {word} workload in this run of `bench {BENCH}`")
    return got


def booting_size_write(out):
    """Booting: Size's mean write latency / the lowest of the other schedulers' (the largest over Booting runs)"""
    by = runs(out, "fig9")
    return max(float(by[w]["size"]["write_us"]) / min(float(r["write_us"]) for s, r in by[w].items() if s != "size")
               for w in named(by, "Booting"))


def youtube_rrf(out):
    """YouTube: RRF's mean read latency / RCF's (the smallest over YouTube runs)"""
    by = runs(out, "fig9")
    return min(float(by[w]["rrf"]["read_us"]) / float(by[w]["rcf"]["read_us"]) for w in named(by, "YouTube"))


def cache_gain(out):
    """DRS / RCF read latency (mean over workloads) at the smallest map cache over at the largest"""
    rows = [r for r in out.rows(BENCH) if r.get("exp") == "fig11a" and r["scheduler"].lower() in ("drs", "rcf")]
    if not rows:
        raise Missing("no fig11a (map-cache size) rows in out/bench/drs/results.csv")
    by = {}
    for r in rows:
        by.setdefault(int(r["cache"]), {}).setdefault(r["workload"], {})[r["scheduler"].lower()] = float(r["read_us"])
    rel = {c: sum(w["drs"] / w["rcf"] for w in ws.values()) / len(ws) for c, ws in by.items()}
    return rel[min(rel)] / rel[max(rel)]


def depth_gain(out):
    """DRS's read latency at the deepest queue / at depth 1, mean over workloads"""
    rows = [r for r in out.rows(BENCH) if r.get("exp") == "fig11b"]
    if not rows:
        raise Missing("no fig11b (queue depth) rows in out/bench/drs/results.csv")
    by = {}
    for r in rows:
        by.setdefault(r["workload"], {})[int(r["qd"])] = float(r["read_us"])
    v = [q[max(q)] / q[min(q)] for q in by.values()]
    return sum(v) / len(v)


CLAIMS = [
    Claim(P, "DRS cuts the mean read latency by up to 51% against RCF (abstract; Fig. 9a, real Nexus5 traces)",
          "paper", Entries(BENCH, r".+ \(real trace\): DRS read latency vs RCF", "min"), Within(-51), "%", FIG9),
    Claim(P, "DRS cuts the mean read latency by up to 51% against RCF (Fig. 9a, traces generated from Table 1)",
          "stand-in", Entries(BENCH, r".+ \(synthetic\): DRS read latency vs RCF", "min"), Within(-51), "%", FIG9),
    Claim(P, "DRS has the lowest mean read latency of all schedulers on every workload (VI-B)", "stand-in",
          Compute(BENCH, lowest_share("read_us"), "share of workloads where DRS's read latency is lowest"),
          Above(0.999, "1 (every workload)"), "fraction", FIG9),
    Claim(P, "DRS has the shortest write latency in most workloads (VI-B)", "stand-in",
          Compute(BENCH, lowest_share("write_us"), "share of workloads where DRS's write latency is lowest"),
          Above(0.5, "> 0.5 (most)"), "fraction", FIG9),
    Claim(P, "DRS has the shortest I/O latency in most workloads (VI-B)", "stand-in",
          Compute(BENCH, lowest_share("all_us"), "share of workloads where DRS's I/O latency is lowest"),
          Above(0.5, "> 0.5 (most)"), "fraction", FIG9),
    Claim(P, "RRF's read latency is lower than RCF's on average (VI-B)", "stand-in",
          Compute(BENCH, mean_ratio("rrf", "read_us"), "RRF / RCF read latency, mean over workloads"),
          Below(1), "x", FIG9),
    Claim(P, "Booting: Size has the shortest write latency (VI-B)", "stand-in",
          Compute(BENCH, booting_size_write, "Booting: Size's write latency / the lowest other scheduler's"),
          Below(1.0005, "<= 1 (lowest)"), "x", FIG9),
    Claim(P, "YouTube: RRF's read latency is higher than RCF's (VI-B)", "stand-in",
          Compute(BENCH, youtube_rrf, "YouTube: RRF / RCF read latency"), Above(1), "x", FIG9),
    Claim(P, "DRS mainly cuts the flash command queue waiting time (VI-C, Fig. 10)", "stand-in",
          Compute(BENCH, mean_ratio("drs", "flash_queue_us"), "DRS / RCF flash-queue wait, mean over workloads"),
          Below(1), "x", FIG10),
    Claim(P, "the flash operation time does not change with the scheduler, within 5% (VI-C, Fig. 10)", "stand-in",
          Compute(BENCH, mean_ratio("drs", "flash_us"), "DRS / RCF flash operation time, mean over workloads"),
          Within(1.0, 0.05), "x", FIG10),
    Claim(P, "DRS gains most with the smallest map cache (VI-D, Fig. 11a)", "stand-in",
          Compute(BENCH, cache_gain, "DRS / RCF read latency at the smallest cache over at the largest"),
          Below(1), "x", FIG11),
    Claim(P, "read latency falls as the command queue deepens (VI-D, Fig. 11b)", "stand-in",
          Compute(BENCH, depth_gain, "DRS read latency at the deepest queue / at depth 1, mean over workloads"),
          Below(1), "x", FIG11),
]
