"""The level-aware hybrid placement paper's claims (Jeong et al., IEEE Access 2020): abstract, VI-B
(Fig. 9, Fig. 10), conclusion. `bench hybrid` reports each figure twice: with the device as the paper
describes it ("literal paper") and with our adaptation of the scaled-down device ("ours")."""
from ledger.core import Below, Claim, Compute, Entry, Missing, Within

P = "Hybrid"
BENCH = "hybrid"
WHERE = "HYBRID.md#measured-against-the-paper"
LITERAL = r"\((the )?literal[ -]paper\)"
OURS = r"\(ours\)"


def latency_trend(out):
    """level / combo latency (mean over workloads) at the largest SLC share over at the smallest"""
    rows = out.rows(BENCH, "normalized.csv")
    by = {}
    for r in rows:
        by.setdefault(int(float(r["slc_%"])), []).append(float(r["latency_vs_combo"]))
    if len(by) < 2:
        raise Missing("out/bench/hybrid/normalized.csv has fewer than two SLC shares")
    mean = {s: sum(v) / len(v) for s, v in by.items()}
    return mean[max(mean)] / mean[min(mean)]


CLAIMS = [
    Claim(P, "level-aware placement cuts the average I/O latency by 12.11% against ComboFTL (abstract)", "paper",
          Entry(BENCH, rf"mean latency level/combo {LITERAL}"), Within(0.879), "x", WHERE),
    Claim(P, "level-aware placement raises the device's durability by 22.39% against ComboFTL (abstract)", "paper",
          Entry(BENCH, rf"mean durability level/combo {LITERAL}"), Within(1.224), "x", WHERE),
    Claim(P, "the average I/O latency falls by 12.11%, our scaled device (abstract)", "calibration",
          Entry(BENCH, rf"mean latency level/combo {OURS}"), Within(0.879), "x", WHERE),
    Claim(P, "durability rises by 22.39%, our scaled device (abstract)", "calibration",
          Entry(BENCH, rf"mean durability level/combo {OURS}"), Within(1.224), "x", WHERE),
    Claim(P, "fill-random with 10% SLC: latency 0.80x ComboFTL's (Fig. 9)", "paper",
          Entry(BENCH, rf"fill-random 10% SLC: latency level/combo {LITERAL}"), Within(0.80), "x", WHERE),
    Claim(P, "fill-random with 10% SLC: durability 1.38x ComboFTL's (Fig. 9)", "paper",
          Entry(BENCH, rf"fill-random 10% SLC: durability level/combo {LITERAL}"), Within(1.38), "x", WHERE),
    Claim(P, "fill-random with 10% SLC: 29.66% of the host's writes go to SLC (Fig. 10b)", "paper",
          Entry(BENCH, rf"fill-random 10% SLC: SLC share of writes {LITERAL}"), Within(29.66), "%", WHERE),
    Claim(P, "the latency reduction grows with the SLC share (Fig. 9)", "paper",
          Compute(BENCH, latency_trend, "level/combo latency at the largest SLC share over at the smallest"),
          Below(1), "x", WHERE),
]
