"""The claims ledger's parts: a claim's definition, where its measured value comes from, the rule that
judges it, and the evaluation against the benches' outputs (out/bench/NAME/summary.json, results.csv).

A claim is measured when its source finds what it needs; otherwise it is reported "not measured" with
the reason (an entry missing, two entries matching one pattern), never dropped and never given a value.
Measured values are rounded to three significant figures before they are judged, so the ledger printed
in docs/EXPERIMENTS.md is a fixed point: judging the printed value gives the printed verdict."""
import csv
import json
import math
import os
import re

PAPERS = ["Smart SSD", "2PM", "DRS", "REMUS", "Hybrid"]
SETUPS = ("paper", "calibration", "stand-in")


class Missing(Exception):
    """A source could not find what it needs: the claim is not measured, and this says why."""


def sig3(v):
    """v rounded to three significant figures (a float; ints stay ints)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int) or v == 0 or not math.isfinite(v):
        return v
    r = round(v, 2 - int(math.floor(math.log10(abs(v)))))
    return int(r) if abs(r) >= 1000 and r == int(r) else r


def show(v):
    """A value as the ledger prints it; float(show(v)) == v for every v that sig3 gave."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, int) or v == int(v):       # 32 chips and 32.0 chips print alike
        return str(int(v))
    return repr(float(v))


# ---- where a claim's value comes from ----------------------------------------------------------

class Outputs:
    """The benches' outputs under one directory (out/bench by default): summary entries and CSV rows."""

    def __init__(self, root):
        self.root = root
        self._summary, self._csv = {}, {}

    def summary(self, bench):
        if bench not in self._summary:
            path = os.path.join(self.root, bench, "summary.json")
            if not os.path.exists(path):
                raise Missing(f"no out/bench/{bench}/summary.json: `bench {bench}` has not run")
            with open(path) as f:
                self._summary[bench] = json.load(f)
        return self._summary[bench]

    def rows(self, bench, name="results.csv"):
        key = (bench, name)
        if key not in self._csv:
            path = os.path.join(self.root, bench, name)
            if not os.path.exists(path):
                raise Missing(f"no out/bench/{bench}/{name}: `bench {bench}` has not run")
            with open(path, newline="") as f:
                self._csv[key] = list(csv.DictReader(f))
        return self._csv[key]

    def run_info(self, bench):
        path = os.path.join(self.root, bench, "run.json")
        if not os.path.exists(path):
            return {}
        with open(path) as f:
            return json.load(f)

    def matching(self, bench, pattern):
        """Summary entries of bench whose name matches pattern (a regular expression over the whole name,
        ignoring case: benches spell policies either way)."""
        rx = re.compile(pattern, re.I)
        return [e for e in self.summary(bench) if rx.fullmatch(e["name"])]


def literal(text):
    """text as a pattern that matches it alone (re.escape, but leaving spaces and dashes readable)"""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


def number(v, what):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise Missing(f"{what}: {v!r} is not a number")
    if not math.isfinite(x):
        raise Missing(f"{what}: {v!r} is not finite")
    return x


class Entry:
    """The value of the one summary entry of `bench` whose name matches `pattern`."""

    def __init__(self, bench, pattern):
        self.bench, self.pattern = bench, pattern

    def value(self, out):
        got = out.matching(self.bench, self.pattern)
        if not got:
            raise Missing(f"no entry matching `{self.pattern}` in out/bench/{self.bench}/summary.json")
        if len(got) > 1:
            raise Missing(f"{len(got)} entries match `{self.pattern}` in out/bench/{self.bench}/summary.json")
        return number(got[0]["ours"], got[0]["name"])

    def describe(self):
        return f"{self.bench}: `{self.pattern}`"


class Entries:
    """`reduce` (min, max, mean) over the values of every summary entry of `bench` matching `pattern`."""

    def __init__(self, bench, pattern, reduce, at_least=1):
        self.bench, self.pattern, self.reduce, self.at_least = bench, pattern, reduce, at_least

    def value(self, out):
        got = out.matching(self.bench, self.pattern)
        if len(got) < self.at_least:
            raise Missing(f"{len(got)} entries match `{self.pattern}` in out/bench/{self.bench}/summary.json "
                          f"(at least {self.at_least} needed)")
        vals = [number(e["ours"], e["name"]) for e in got]
        return {"min": min, "max": max, "mean": lambda v: sum(v) / len(v)}[self.reduce](vals)

    def describe(self):
        return f"{self.bench}: {self.reduce} over `{self.pattern}`"


class Compute:
    """fn(out) -> value, from the bench's summary entries or CSV rows; fn raises Missing when it cannot."""

    def __init__(self, bench, fn, what):
        self.bench, self.fn, self.what = bench, fn, what

    def value(self, out):
        try:
            return self.fn(out)
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            raise Missing(f"{self.what}: the bench's output lacks {e!r}")

    def describe(self):
        return f"{self.bench}: {self.what}"


# ---- how a claim is judged ------------------------------------------------------------------------

class Within:
    """Quantitative: ours within ±tol (relative) of the paper's number."""
    kind = "quantitative"

    def __init__(self, paper, tol=0.10):
        self.paper, self.tol = paper, tol

    def holds(self, ours):
        return abs(ours / self.paper - 1) <= self.tol + 1e-12

    def ratio(self, ours):
        return sig3(ours / self.paper)

    def show_paper(self):
        return show(self.paper)


class InRange:
    """Quantitative: the paper gives a range; ours within it, widened by ±tol."""
    kind = "quantitative"

    def __init__(self, lo, hi, tol=0.10):
        self.lo, self.hi, self.tol = lo, hi, tol
        self.paper = f"{show(lo)} to {show(hi)}"

    def holds(self, ours):
        return self.lo - self.tol * abs(self.lo) - 1e-12 <= ours <= self.hi + self.tol * abs(self.hi) + 1e-12

    def ratio(self, ours):
        mid = (self.lo + self.hi) / 2
        return sig3(ours / mid)

    def show_paper(self):
        return self.paper


class Above:
    """Qualitative: ours above a threshold (an ordering or a trend stated as a number)."""
    kind = "qualitative"

    def __init__(self, threshold, paper=None):
        self.threshold = threshold
        self.paper = paper if paper is not None else f"> {show(threshold)}"

    def holds(self, ours):
        return ours > self.threshold

    def ratio(self, ours):
        return None

    def show_paper(self):
        return self.paper


class Below(Above):
    """Qualitative: ours below a threshold."""

    def __init__(self, threshold, paper=None):
        super().__init__(threshold, paper if paper is not None else f"< {show(threshold)}")

    def holds(self, ours):
        return ours < self.threshold


class AtMost(Above):
    """Quantitative bound: the paper gives an upper bound ("only 0.6%"); ours at or below it."""
    kind = "quantitative"

    def __init__(self, bound):
        super().__init__(bound, f"<= {show(bound)}")

    def holds(self, ours):
        return ours <= self.threshold + 1e-12

    def ratio(self, ours):
        return sig3(ours / self.threshold)


class Yes(Above):
    """Qualitative, from a bench that judges the statement itself: ours is 1 (holds) or 0."""

    def __init__(self):
        super().__init__(0.5, "holds")


# ---- a claim --------------------------------------------------------------------------------------

class Claim:
    """One claim of one paper: the text (what the paper states, where), how the setup relates to the
    paper's, the bench that measures it and the source of `ours` in its output, the paper's value and
    the rule, the unit, and the doc section that explains a difference."""

    def __init__(self, paper, text, setup, source, rule, unit, doc):
        assert paper in PAPERS, paper
        assert setup in SETUPS, setup
        assert "|" not in text and "`" not in text, text
        self.paper, self.text, self.setup, self.source, self.rule, self.unit, self.doc = \
            paper, text, setup, source, rule, unit, doc

    @property
    def name(self):
        return f"{self.paper}: {self.text}"

    @property
    def bench(self):
        return self.source.bench

    def evaluate(self, out):
        """The ledger's entry for this claim from the outputs under out (an Outputs)."""
        command = out.run_info(self.bench).get("command", f"bin/smartssd bench {self.bench}")
        try:
            return self.judged(self.source.value(out), command)
        except Missing as m:
            return self.judged(None, command, why=str(m))

    def judged(self, ours, command, why=None):
        """The entry for a measured value (ours; rounded here) or, with ours None, for a claim not
        measured (why)."""
        e = {"name": self.name, "paper_name": self.paper, "claim": self.text, "setup": self.setup,
             "kind": self.rule.kind, "unit": self.unit, "bench": self.bench, "source": self.source.describe(),
             "doc": self.doc, "command": command}
        if self.rule.paper is not None:
            e["paper"] = self.rule.paper
        if ours is None:
            e.update(status="not measured", ours=None, holds=None, why=why)
            return e
        ours = sig3(ours)
        e.update(status="measured", ours=ours, holds=bool(self.rule.holds(ours)), ratio=self.rule.ratio(ours))
        return e


def check(claims):
    """Definition errors: repeated names, fewer than six claims for a paper."""
    errors, seen = [], set()
    for c in claims:
        if c.name in seen:
            errors.append(f"two claims named {c.name!r}")
        seen.add(c.name)
    for p in PAPERS:
        n = sum(c.paper == p for c in claims)
        if n < 6:
            errors.append(f"{p}: {n} claims (at least 6)")
    return errors
