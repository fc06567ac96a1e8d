"""The DRS paper's claims (Lee et al., IEEE Access 2021): abstract, VI-B (Fig. 9), VI-C (Fig. 10),
VI-D (Fig. 11), conclusion. `bench drs` replays the real Nexus 5 traces it is given (--traces DIR;
`bench claims --traces DIR` passes it on) and synthetic stand-ins shaped like Table 1 for the others;
it names its Fig. 9 entries "<workload> (real trace): ..." or "<workload> (synthetic): ...", and judges
the paper's orderings itself into "claim: <text>" entries (1: holds, 0: not), on the real traces where
it has them. The two orderings it does not judge are computed here from its results.csv (one row per
run: exp, workload, scheduler, read_us, write_us, all_us)."""
from ledger.core import Above, Claim, Compute, Entries, Entry, Within, Yes, literal

P = "DRS"
BENCH = "drs"
FIG9 = "DRS.md#fig-9-mean-latency-against-rcf"
FIG10 = "DRS.md#fig-10-the-latency-in-parts-rcf--drs-mean-us-per-request"
FIG11 = "DRS.md#fig-11-map-cache-size-and-queue-depth"


def judged(text):
    """the bench's own verdict on one of the paper's statements"""
    return Entry(BENCH, literal(f"claim: {text}"))


def lowest_share(col):
    """share of the workloads where DRS's mean `col` latency is the lowest of every scheduler's (ties count)"""
    def f(out):
        rows = [r for r in out.rows(BENCH) if r.get("exp") == "fig9"]
        by = {}
        for r in rows:
            if r.get("ftl") == rows[0].get("ftl"):      # the first FTL's runs, when the bench ran several
                by.setdefault(r["workload"], {})[r["scheduler"].lower()] = float(r[col])
        ok = [all(s["drs"] <= v * 1.001 for v in s.values()) for s in by.values()]
        return sum(ok) / len(ok)
    return f


CLAIMS = [
    Claim(P, "DRS cuts the mean read latency by up to 51% against RCF (abstract; Fig. 9a, real Nexus 5 traces)",
          "paper", Entries(BENCH, r".+ \(real trace\): DRS read latency vs RCF", "min"), Within(-51), "%", FIG9),
    Claim(P, "DRS cuts the mean read latency by up to 51% against RCF (Fig. 9a, traces generated from Table 1)",
          "stand-in", Entries(BENCH, r".+ \(synthetic\): DRS read latency vs RCF", "min"), Within(-51), "%", FIG9),
    Claim(P, "DRS has the lowest mean read latency of all schedulers on every workload (VI-B)", "stand-in",
          judged("DRS has the lowest read latency on every workload"), Yes(), "1/0", FIG9),
    Claim(P, "DRS has the shortest write latency in most workloads (VI-B)", "stand-in",
          Compute(BENCH, lowest_share("write_us"), "share of workloads where DRS's write latency is lowest"),
          Above(0.5, "> 0.5 (most)"), "fraction", FIG9),
    Claim(P, "DRS has the shortest I/O latency in most workloads (VI-B)", "stand-in",
          Compute(BENCH, lowest_share("all_us"), "share of workloads where DRS's I/O latency is lowest"),
          Above(0.5, "> 0.5 (most)"), "fraction", FIG9),
    Claim(P, "RRF's reads beat RCF's on average (VI-B)", "stand-in",
          judged("RRF's reads beat RCF's on average"), Yes(), "1/0", FIG9),
    Claim(P, "YouTube: RRF's reads are slower than RCF's (VI-B)", "stand-in",
          judged("YouTube: RRF's reads are slower than RCF's"), Yes(), "1/0", FIG9),
    Claim(P, "FOT has the lowest read latency of RCF, Size, RRF and FOT on Booting, Facebook and Radio/WB (VI-B)",
          "stand-in", judged("FOT has the lowest read latency of RCF, Size, RRF and FOT on Booting, Facebook and "
                             "Radio/WB"), Yes(), "1/0", FIG9),
    Claim(P, "Booting: Size has the shortest write latency (VI-B)", "stand-in",
          judged("Size has the shortest write latency on Booting"), Yes(), "1/0", FIG9),
    Claim(P, "DRS cuts the flash command queue wait the most and leaves the flash operation time unchanged "
             "(VI-C, Fig. 10)", "stand-in",
          judged("DRS cuts the flash command queue wait the most and leaves the flash operation time unchanged "
                 "(Fig. 10)"), Yes(), "1/0", FIG10),
    Claim(P, "DRS is best at the smallest map cache and its gain shrinks as the cache grows (VI-D, Fig. 11a)",
          "stand-in", judged("DRS is best at the smallest map cache and its gain shrinks as the cache grows "
                             "(Fig. 11a)"), Yes(), "1/0", FIG11),
    Claim(P, "deeper flash command queues help until a workload-dependent saturation (VI-D, Fig. 11b)", "stand-in",
          judged("deeper flash command queues help until a workload-dependent saturation (Fig. 11b)"), Yes(), "1/0",
          FIG11),
]
