"""The targets the benches print are the ones docs/PERFORMANCE.md states: both come from
bench/targets.py, and no bench spells a target of its own."""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import targets  # noqa: E402


def figure_rows():
    """{figure: target cell} of the table under '## The figures' in docs/PERFORMANCE.md."""
    text = open(os.path.join(ROOT, "docs", "PERFORMANCE.md"), encoding="utf-8").read()
    section = text.split("## The figures", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 5 and not set(cells[0]) <= set("-"):
            rows[cells[0]] = cells[-1]
    return rows


def test_every_target_is_the_docs_one():
    rows = figure_rows()
    for figure in targets.TARGETS:
        assert figure in rows, f"docs/PERFORMANCE.md has no row '{figure}'"
        assert rows[figure].startswith(targets.text(figure)), (figure, rows[figure], targets.text(figure))


def test_no_bench_spells_its_own_target():
    for f in sorted(os.listdir(os.path.join(ROOT, "bench"))):
        if f.endswith(".py") and f != "targets.py":
            src = open(os.path.join(ROOT, "bench", f), encoding="utf-8").read()
            assert not re.search(r"target\s*(<=|>=|≤|≥)\s*\d", src), f"bench/{f} states a target of its own"


def test_met_is_judged_both_ways():
    assert targets.met("grep / memory limit", 0.5) and not targets.met("grep / memory limit", 0.49)
    assert targets.met("web-log DeviceJob / host-normal", 0.05) and not targets.met("web-log DeviceJob / host-normal", 0.051)
