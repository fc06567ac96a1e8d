"""The REMUS paper's claims (Huang et al., RTCSA 2025): abstract, II-A (Table I), IV-B (Fig. 4), IV-C
(Fig. 5, overhead). Against the baselines under the paper adaptation (docs/SCHEDULERS.md, section 3)
with the readings section 7.9 adopts: HORAE's remaining-work critical path, Fig. 5's requests of whole
MiB, Table I's one request per application."""
from ledger.core import Above, AtMost, Claim, Compute, Entry, Within

P = "REMUS"
BENCH = "remus"
ADAPT = r"\(paper adaptation\)"
RESULTS = "SCHEDULERS.md#71-both-adaptations-beside-the-paper"
READINGS = "SCHEDULERS.md#79-the-readings-tried-for-the-rows-off-by-more-than-10-percent"
TABLE1 = "SCHEDULERS.md#75-fig-5-and-table-i"
OVERHEAD = "SCHEDULERS.md#78-overhead"
APPS = "CFS, one request per application"


def fig(n, over, axis):
    return Entry(BENCH, rf"Fig\. {n} REMUS / {over} \(mean over {axis}\) {ADAPT}")


def mean_of(n, axis):
    """the mean of REMUS / CFS, HORAE, SERICO on one figure (the abstract's "on average compared to the
    baselines")"""
    def f(out):
        return sum(fig(n, o, axis).value(out) for o in ("CFS", "HORAE", "SERICO")) / 3
    return f


def colocate_first(out):
    """co-located over the better of dedicated and host-only (> 1: co-location is the fastest)"""
    e = lambda what: Entry(BENCH, rf"Table I {what}, {APPS} {ADAPT}").value(out)   # noqa: E731
    col = e("CSD-colocate / host-only")
    return col / max(1.0, e("CSD-dedicate / host-only"))


# (figure, baseline, the paper's REMUS / baseline, where, axis, setup, the doc section of a difference)
FIGURES = [(4, "CFS", 1.65, "IV-B, Fig. 4, simulator", "K", "paper", RESULTS),
           (4, "HORAE", 1.32, "IV-B, Fig. 4", "K", "paper", READINGS),
           (4, "SERICO", 1.59, "IV-B, Fig. 4", "K", "paper", READINGS),
           (5, "CFS", 1.42, "IV-C, Fig. 5, YS9203", "mixes", "stand-in", READINGS),
           (5, "HORAE", 1.33, "IV-C, Fig. 5", "mixes", "stand-in", READINGS),
           (5, "SERICO", 1.41, "IV-C, Fig. 5", "mixes", "stand-in", READINGS)]

CLAIMS = [Claim(P, f"REMUS's throughput is {paper}x {over}'s on average ({where})", setup, fig(n, over, axis),
                Within(paper), "x", why) for n, over, paper, where, axis, setup, why in FIGURES] + [
    Claim(P, "REMUS improves throughput by 1.51x over the baselines on the simulator (abstract)", "paper",
          Compute(BENCH, mean_of(4, "K"), "mean of Fig. 4's REMUS / CFS, HORAE, SERICO"), Within(1.51), "x",
          READINGS),
    Claim(P, "REMUS improves throughput by 1.39x over the baselines on the real platform (abstract)", "stand-in",
          Compute(BENCH, mean_of(5, "mixes"), "mean of Fig. 5's REMUS / CFS, HORAE, SERICO"), Within(1.39), "x",
          READINGS),
    Claim(P, "co-locating SQL and KNN on two CSDs gives 1.94x the throughput of dedicating one CSD to each "
             "(Table I: 1.57 / 0.81)", "stand-in",
          Entry(BENCH, rf"Table I CSD-colocate / CSD-dedicate, {APPS} {ADAPT}"), Within(1.94), "x", TABLE1),
    Claim(P, "dedicated CSDs reach 0.81x the host-only throughput (Table I), with an assumed host", "stand-in",
          Entry(BENCH, rf"Table I CSD-dedicate / host-only, {APPS} {ADAPT}"), Within(0.81), "x", TABLE1),
    Claim(P, "co-located CSDs reach 1.57x the host-only throughput (Table I), with an assumed host", "stand-in",
          Entry(BENCH, rf"Table I CSD-colocate / host-only, {APPS} {ADAPT}"), Within(1.57), "x", TABLE1),
    Claim(P, "co-located CSDs reach 1.57x the host-only throughput (Table I), host-only calibrated to the "
             "paper's dedicated / host-only", "calibration",
          Entry(BENCH, rf"Table I CSD-colocate / host-only, host-only calibrated .*, {APPS} {ADAPT}"),
          Within(1.57), "x", TABLE1),
    Claim(P, "co-location has the highest throughput of host-only, dedicated and co-located (Table I)",
          "stand-in", Compute(BENCH, colocate_first, "co-located / the better of dedicated and host-only"),
          Above(1), "x", TABLE1),
    Claim(P, "REMUS's decisions cost only 0.6% of the execution time with 10 pending requests (IV-C)",
          "stand-in", Entry(BENCH, r"REMUS decision host CPU time / device core time per decision \(Fig\. 5\)"),
          AtMost(0.6), "%", OVERHEAD),
]
