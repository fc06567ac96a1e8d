"""The Smart SSD paper's claims (Kang et al., MSST'13): abstract, V-B (micro-benchmarks), V-C
(applications), conclusion."""
from ledger.core import Above, Below, Claim, Compute, Entries, Entry, InRange, Missing, Within

P = "Smart SSD"
BW = "EXPERIMENTS.md#internal-read-bandwidth-paper-v-b-1--binsmartssd-bench-flash"
DRAM = "EXPERIMENTS.md#dram-micro-benchmark-paper-v-b-2-fig-6--binsmartssd-bench-dram-64-mib-of-random-data"
FILTER = "EXPERIMENTS.md#data-filter-paper-v-c-4--binsmartssd-bench-datafilter-128-mib-32-byte-structures-60-match"
WEBLOG = "WEBLOG.md#paper-vs-ours"
ENERGY = "WEBLOG.md#energy-by-phase-the-32-byte-case-on-the-papers-terms"


def dram_rows(out):
    return {int(r["accesses_per_page"]): r for r in out.rows("dram")}


def dram_device_growth(out):
    """device time at 1024 accesses per page over its time at 256: 4 if it grows in proportion"""
    r = dram_rows(out)
    return float(r[1024]["device_ms"]) / float(r[256]["device_ms"])


def dram_host_growth(out):
    r = dram_rows(out)
    return float(r[1024]["host_ms"]) / float(r[1]["host_ms"])


def speedups(out, query):
    """{entry bytes: host-optimized device time / device version's device time} for one query"""
    t = {}
    for r in out.rows("weblog"):
        if r["query"] == query and r["version"] in ("host-optimized", "device"):
            t[(int(r["entry_B"]), r["version"])] = float(r["device_ms"])
    s = {e: t[(e, "host-optimized")] / t[(e, "device")] for e, v in t if v == "device" and (e, "host-optimized") in t}
    if len(s) < 2:
        raise Missing(f"weblog results.csv: {query} at fewer than two entry sizes in both versions")
    return s


def growth_with_entry_size(out):
    """the smallest step-to-step growth of Q1's speed-up from one entry size to the next (> 1: it rises at
    every step)"""
    s = speedups(out, "q1")
    es = sorted(s)
    return min(s[b] / s[a] for a, b in zip(es, es[1:]))


def q2_over_q1(out):
    """Q2's speed-up over host-optimized / Q1's, at the largest entry size"""
    s1, s2 = speedups(out, "q1"), speedups(out, "q2")
    e = max(set(s1) & set(s2))
    return s2[e] / s1[e]


CLAIMS = [
    Claim(P, "internal read bandwidth is 1.8x the host link with the firmware's overhead (V-B-1)", "calibration",
          Entry("flash", r"internal read bandwidth / host link, one tasklet request.*"), Within(1.8), "x", BW),
    Claim(P, "the channels' bandwidth is 2.5x the host link by specification (V-B-1)", "calibration",
          Entry("flash", r"channel bandwidth / host link \(specification.*"), Within(2.5), "x", BW),
    Claim(P, "the device gains only below about 128 DRAM accesses per 8 KB page (V-B-2, Fig. 6)", "calibration",
          Entry("dram", r"break-even DRAM accesses per page.*"), Within(128), "accesses", DRAM),
    Claim(P, "device time grows in proportion to the DRAM accesses per page: 4x from 256 to 1024 (Fig. 6)",
          "calibration", Compute("dram", dram_device_growth, "device time at 1024 / at 256 accesses per page"),
          Within(4.0), "x", DRAM),
    Claim(P, "the host's time stays nearly constant from 1 to 1024 accesses per page, within 25% (Fig. 6)",
          "paper", Compute("dram", dram_host_growth, "host time at 1024 / at 1 access per page"),
          Below(1.25, "about 1"), "x", DRAM),
    Claim(P, "the LBA-returning data filter is 40% faster than all comparisons on the device (V-C-4)", "paper",
          Entry("datafilter", r"LBA filter speed-up over all comparisons on the device"), Within(1.4), "x", FILTER),
    Claim(P, "the LBA-returning data filter is 18% slower than the host (V-C-4)", "paper",
          Entry("datafilter", r"LBA filter time / host time"), Within(1.18), "x", FILTER),
    Claim(P, "the Smart SSD outperforms host-side processing by 2-3x (abstract; Fig. 8, Q1, 256-byte entries)",
          "stand-in", Entry("weblog", r"q1 256 B: host-optimized / device, device time \(speed-up\)"),
          InRange(2, 3), "x", WEBLOG),
    Claim(P, "with 32-byte entries host-optimized is faster than the Smart SSD (Fig. 8, Q1)", "stand-in",
          Entry("weblog", r"q1 32 B: device / host-optimized, device time"), Above(1), "x", WEBLOG),
    Claim(P, "the Smart SSD's advantage grows with the entry size at every step (Fig. 8, Q1)", "stand-in",
          Compute("weblog", growth_with_entry_size, "smallest step growth of Q1's speed-up over host-optimized"),
          Above(1), "x", WEBLOG),
    Claim(P, "Q2's gap to host-optimized is narrower than Q1's (Fig. 8b)", "stand-in",
          Compute("weblog", q2_over_q1, "Q2's speed-up / Q1's at the largest entry size"), Below(1), "x", WEBLOG),
    Claim(P, "in the exec phase the Smart SSD system uses less than half the host versions' energy (Fig. 10)",
          "calibration", Entries("weblog", r"q1 \d+ B: energy saved vs host-optimized \(modeled, device time\)", "min"),
          Above(0.5), "fraction saved", ENERGY),
    Claim(P, "in-storage processing uses about 2% of the host versions' energy above idle (conclusion, 256 B)",
          "calibration", Entry("weblog", r"q1 256 B: exec-phase energy above idle, device / host-optimized.*"),
          Within(0.02), "fraction", ENERGY),
]
