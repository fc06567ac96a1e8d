"""The 2PM paper's claims (Yoon et al., IEEE Access 2021): abstract, V-B (Fig. 9, Fig. 10), V-C
(Fig. 11), V-D (Fig. 12). The workloads are generated from the paper's chart of 16 MSR-referenced mixes
(stand-in). Fig. 9's entries may end with ", mean of N workloads"; Fig. 12's sweep is of 2PM's key
latency over PAQ's or over its basic rules' (readfirst), whichever the bench reports."""
import re

from ledger.core import Below, Claim, Compute, Entry, InRange, Missing, Within, Yes, literal

P = "2PM"
BENCH = "2pm"
WHERE = "2PM.md#the-bench-binsmartssd-bench-2pm"


def sens(out, what):
    """{x: 2PM's key latency / PAQ's} of the Fig. 12 sweep over `what` (qd, slots, chips)"""
    rx = re.compile(rf"Fig\. 12: 2PM key latency / (PAQ|readfirst's) at {what} = (\d+)", re.I)
    got = {int(m.group(2)): float(e["ours"]) for e in out.summary(BENCH) for m in [rx.fullmatch(e["name"])] if m}
    if len(got) < 2:
        raise Missing(f"fewer than two `Fig. 12: 2PM key latency / ... at {what} = N` entries in out/bench/2pm")
    return got


def last_over_first(what):
    def f(out):
        s = sens(out, what)
        return s[max(s)] / s[min(s)]
    return f


def best_chips(out):
    s = sens(out, "chips")
    return min(s, key=s.get)


MEAN = r"(, mean of \d+ workloads)?"


def fig9(who, what):
    return Entry(BENCH, rf"Fig\. 9: {who} {what} latency vs PAQ{MEAN}")


CLAIMS = [
    Claim(P, "2PM+ cuts key-request latency by 52.6% on average against PAQ (abstract; Fig. 9b)", "stand-in",
          fig9(r"2PM\+", "key-request"), Within(-52.6), "%", WHERE),
    Claim(P, "2PM+ raises non-key latency by 1.5% on average against PAQ (Fig. 9a)", "stand-in",
          fig9(r"2PM\+", "non-key"), Within(1.5), "%", WHERE),
    Claim(P, "2PM's reordering alone cuts key-request latency against PAQ (Fig. 9b)", "stand-in",
          fig9("2PM", "key-request"), Below(0), "%", WHERE),
    Claim(P, "Slacker cuts key-request latency by 4.5% against PAQ (V-B)", "stand-in",
          fig9("Slacker", "key-request"), Within(-4.5), "%", WHERE),
    Claim(P, "Slacker cuts non-key latency by 5.4% against PAQ (V-B)", "stand-in",
          fig9("Slacker", "non-key"), Within(-5.4), "%", WHERE),
    Claim(P, "CARS improves key-request latency by only 1-3% against PAQ (V-B)", "stand-in",
          fig9(r"CARS( \(host queue\))?", "key-request"), InRange(-3, -1), "%", WHERE),
    Claim(P, "FLIN improves key-request latency by only 1-3% against PAQ (V-B)", "stand-in",
          fig9("FLIN", "key-request"), InRange(-3, -1), "%", WHERE),
    Claim(P, "out-of-order processing shortens the wait of landed sub-requests against in-order (Fig. 10)",
          "stand-in", Entry(BENCH, literal("claim: out-of-order processing shortens the wait of landed sub-requests "
                                           "against in-order (Fig. 10)")), Yes(), "1/0", WHERE),
    Claim(P, "anti-starvation cuts the total delay of key requests by 79.8%, 2PM+ against 2PM (Fig. 11)",
          "stand-in", Entry(BENCH, r"Fig\. 11: total delay of key requests vs PAQ, 2PM\+ against 2PM \(anti-starvation\)"),
          Within(-79.8), "%", WHERE),
    Claim(P, "delayed key requests are about 3% of all requests under 2PM+ (Fig. 11)", "stand-in",
          Entry(BENCH, r"Fig\. 11: key requests delayed vs PAQ under 2PM\+, share of all requests"),
          Within(3.0), "%", WHERE),
    Claim(P, "the p99.99 delay of a key request is below 1 ms under 2PM+ (Fig. 11)", "stand-in",
          Entry(BENCH, r"Fig\. 11: p99\.99 delay of a key request (vs PAQ )?under 2PM\+ "
                       r"\(largest over workloads( and seeds)?\)"), Below(1.0), "ms", WHERE),
    Claim(P, "the gain grows with the request queue depth: key latency lower at the deepest queue (Fig. 12a)",
          "stand-in", Compute(BENCH, last_over_first("qd"), "2PM's key latency ratio at the largest over the smallest qd"),
          Below(1), "x", WHERE),
    Claim(P, "the gain grows with the sub-request queue size (Fig. 12b)", "stand-in",
          Compute(BENCH, last_over_first("slots"), "2PM's key latency ratio at the largest over the smallest queue size"),
          Below(1), "x", WHERE),
    Claim(P, "the gain is largest with 16 chips per group and shrinks from 32 (Fig. 12c)", "stand-in",
          Compute(BENCH, best_chips, "chips per group where 2PM's key latency ratio is lowest"), Within(16, 0), "chips",
          WHERE),
]
