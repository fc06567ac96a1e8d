"""The level-aware hybrid placement paper's claims (Jeong et al., IEEE Access 2020): abstract, VI-B
(Fig. 9, Fig. 10), conclusion. `bench hybrid` reports each figure twice: with Algorithms 1-5 as the paper
prints them ("literal paper") and with our additions to Algorithms 3 and 5 ("ours", docs/HYBRID.md)."""
from ledger.core import Below, Claim, Compute, Entry, Missing, Within, literal

P = "Hybrid"
BENCH = "hybrid"
WHERE = "HYBRID.md#measured-against-the-paper"
LITERAL = r"\((the )?literal[ -]paper\)"
OURS = r"\(ours\)"


def latency_trend(out):
    """level / combo latency (mean over workloads) at the largest SLC share over at the smallest"""
    rows = out.rows(BENCH, "normalized.csv")
    col = "latency_literal" if rows and "latency_literal" in rows[0] else "latency_vs_combo"   # the paper's device
    by = {}
    for r in rows:
        by.setdefault(int(float(r["slc_%"])), []).append(float(r[col]))
    if len(by) < 2:
        raise Missing("out/bench/hybrid/normalized.csv has fewer than two SLC shares")
    mean = {s: sum(v) / len(v) for s, v in by.items()}
    return mean[max(mean)] / mean[min(mean)]


# (what the paper states, the summary entry, the paper's value, unit): each judged on the algorithms as
# the paper prints them ("literal paper", setup paper) and with our additions ("ours", calibration)
FIGURES = [("level-aware placement cuts the average I/O latency by 12.11% against ComboFTL (abstract)",
            "mean latency level/combo", 0.879, "x"),
           ("level-aware placement raises the device's durability by 22.39% against ComboFTL (abstract)",
            "mean durability level/combo", 1.224, "x"),
           ("fill-random with 10% SLC: latency 0.80x ComboFTL's (Fig. 9)",
            "fill-random 10% SLC: latency level/combo", 0.80, "x"),
           ("fill-random with 10% SLC: durability 1.38x ComboFTL's (Fig. 9)",
            "fill-random 10% SLC: durability level/combo", 1.38, "x"),
           ("fill-random with 10% SLC: 29.66% of the host's writes go to SLC (Fig. 10b)",
            "fill-random 10% SLC: SLC share of writes", 29.66, "%"),
           ("fill-random with 1% SLC: 3.91% of the host's writes go to SLC (Fig. 10b)",
            "fill-random 1% SLC: SLC share of writes", 3.91, "%")]
VARIANTS = [(LITERAL, "", "paper"), (OURS, ", with our additions to Algorithms 3 and 5", "calibration")]

CLAIMS = [Claim(P, text.replace(" (", f"{note} (", 1) if note else text, setup,
                Entry(BENCH, rf"{literal(entry)} {variant}"), Within(paper), unit, WHERE)
          for variant, note, setup in VARIANTS for text, entry, paper, unit in FIGURES] + [
    Claim(P, "the latency reduction grows with the SLC share (Fig. 9)", "paper",
          Compute(BENCH, latency_trend, "level/combo latency at the largest SLC share over at the smallest"),
          Below(1), "x", WHERE),
]
