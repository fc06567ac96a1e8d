"""The fuzz ledger adds up: every fuzz target (native/fuzz/fuzz_*.c and the Jazzer target) has at
least one campaign in native/fuzz/LEDGER.csv, every line is well formed, and docs/RELIABILITY.md's
table of cumulative executions is the ledger's sums."""
import csv
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "native", "tools"))
import fuzz  # noqa: E402


def test_every_target_has_a_campaign():
    done = {r["target"] for r in fuzz.read_ledger()}
    missing = [t for t in fuzz.all_targets() if t not in done]
    assert not missing, f"no campaign in native/fuzz/LEDGER.csv for {missing}: run bin/smartssd fuzz --targets ..."


def test_ledger_lines_are_well_formed():
    with open(fuzz.LEDGER, newline="") as f:
        assert next(csv.reader(f)) == fuzz.LEDGER_FIELDS
    rows = fuzz.read_ledger()
    assert rows
    for r in rows:
        assert re.fullmatch(r"\d{4}-\d\d-\d\d(T\d\d:\d\dZ)?", r["date"]), r
        assert re.fullmatch(r"fuzz_[a-z0-9_]+|[A-Za-z]+FuzzTest", r["target"]), r["target"]   # removed targets keep their history
        assert int(r["executions"]) > 0 and int(r["seconds"]) > 0, r
        for k in ("cov_start", "cov_end", "ft_start", "ft_end", "corpus_added"):
            assert r[k] == "" or int(r[k]) >= 0, (k, r)
        assert r["findings"], r


def test_docs_show_the_ledger_sums():
    assert fuzz.docs_table() == fuzz.ledger_markdown(fuzz.read_ledger()), \
        "docs/RELIABILITY.md's fuzz table is not the ledger's: run bin/smartssd fuzz ledger --docs"


def test_totals_add_up():
    rows = [{"date": "2026-01-01", "target": "fuzz_plan", "executions": "7"},
            {"date": "2026-01-03", "target": "fuzz_plan", "executions": "5"}]
    t = fuzz.totals(rows)
    assert t["fuzz_plan"] == (2, 12, "2026-01-03") and t["fuzz_frame"] == (0, 0, "")
