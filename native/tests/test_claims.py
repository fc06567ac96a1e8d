"""The claims ledger (bench/ledger/, bench/claims.py): the definitions, the rules, what happens when a
bench's output is missing or ambiguous, and that the ledger in docs/EXPERIMENTS.md is the generator's
output: rebuilding it from the definitions and the values it prints gives it back byte for byte."""
import json
import os
import subprocess
import sys

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROOT = os.path.abspath(os.path.join(NATIVE, ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from ledger import BENCHES, CLAIMS  # noqa: E402
from ledger import core, doc  # noqa: E402


def test_definitions():
    assert core.check(CLAIMS) == []
    for p in core.PAPERS:
        assert sum(c.paper == p for c in CLAIMS) >= 6, p
    for c in CLAIMS:
        assert c.bench in BENCHES, c.name
        assert c.setup in core.SETUPS
        doc.heading(c.doc)          # the section that explains a difference exists


def test_a_repeated_name_or_a_thin_paper_is_an_error():
    twice = CLAIMS + [CLAIMS[0]]
    assert any("two claims named" in e for e in core.check(twice))
    errors = core.check([c for c in CLAIMS if c.paper != "DRS"][:-1] + [c for c in CLAIMS if c.paper == "DRS"][:5])
    assert any(e.startswith("DRS: 5 claims") for e in errors)


def test_rules():
    w = core.Within(1.65)
    assert w.holds(1.65 * 1.1) and w.holds(1.65 * 0.9) and not w.holds(1.82) and not w.holds(1.48)
    assert w.ratio(1.68) == 1.02
    n = core.Within(-52.6)
    assert n.holds(-50) and not n.holds(-11.1)
    r = core.InRange(2, 3)
    assert r.holds(1.8) and r.holds(3.3) and not r.holds(1.79) and not r.holds(3.31)
    neg = core.InRange(-3, -1)
    assert neg.holds(-3.3) and neg.holds(-0.9) and not neg.holds(-0.89) and not neg.holds(0.5)
    assert neg.show_paper() == "-3 to -1"
    assert core.Above(1).holds(1.01) and not core.Above(1).holds(1.0)
    assert core.Below(1).holds(0.99) and not core.Below(1).holds(1.0)
    assert core.AtMost(0.6).holds(0.6) and not core.AtMost(0.6).holds(0.61)
    assert core.Yes().holds(1) and not core.Yes().holds(0)


def test_values_print_as_they_are_judged():
    for v in (1.7993, 0.4940678650901342, 141.4, -52.63, 4.001928, 1234.5, 0.0213456, 2, 1e-5, -0.000123):
        s = core.sig3(v)
        assert float(core.show(s)) == s
        assert core.sig3(float(core.show(s))) == s
    assert core.show(core.sig3(141.4)) == "141"
    assert core.show(core.sig3(1234.5)) == "1230"


def write(root, bench, entries, csv_text=None):
    d = os.path.join(root, bench)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(entries, f)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"command": f"bin/smartssd bench {bench} --test"}, f)
    if csv_text is not None:
        with open(os.path.join(d, "results.csv"), "w") as f:
            f.write(csv_text)


def by_name(entries):
    return {e["name"]: e for e in entries}


def test_missing_and_ambiguous_sources_are_reported_not_measured(tmp_path):
    root = str(tmp_path)
    write(root, "flash", [{"name": "internal read bandwidth / host link, one tasklet request (calibrated)", "ours": 1.7993,
                           "unit": "x"}])
    write(root, "datafilter", [{"name": "LBA filter time / host time", "ours": 0.49, "unit": "x"},
                               {"name": "lba filter time / host time", "ours": 0.5, "unit": "x"}])
    write(root, "dram", [], "accesses_per_page,device_ms,host_ms\n1,124,228\n256,424,234\n1024,1636,253\n")
    out = core.Outputs(root)
    got = by_name(c.evaluate(out) for c in CLAIMS)
    bw = got["Smart SSD: internal read bandwidth is 1.8x the host link with the firmware's overhead (V-B-1)"]
    assert (bw["status"], bw["ours"], bw["holds"], bw["ratio"]) == ("measured", 1.8, True, 1.0)
    assert bw["command"] == "bin/smartssd bench flash --test"
    two = got["Smart SSD: the LBA-returning data filter is 18% slower than the host (V-C-4)"]
    assert two["status"] == "not measured" and two["ours"] is None and two["holds"] is None
    assert "2 entries match" in two["why"]
    growth = got["Smart SSD: device time grows in proportion to the DRAM accesses per page: 4x from 256 to 1024 (Fig. 6)"]
    assert growth["ours"] == 3.86 and growth["holds"]
    never = got["REMUS: REMUS's throughput is 1.65x CFS's on average (IV-B, Fig. 4, simulator)"]
    assert never["status"] == "not measured" and "no out/bench/remus/summary.json" in never["why"]
    nothing = got["Smart SSD: the channels' bandwidth is 2.5x the host link by specification (V-B-1)"]
    assert "no entry matching" in nothing["why"]
    assert len(got) == len(CLAIMS)


def rebuild(section):
    """The section from the definitions and the values, commands and reasons it prints"""
    header, rows = doc.parse(section)
    entries = []
    for c in CLAIMS:
        cells = rows.pop(c.name)          # KeyError: a claim the document lacks
        if cells["holds"] == "not measured":
            entries.append(c.judged(None, cells["command"], why=cells["why"]))
        else:
            entries.append(c.judged(float(cells["ours"].split(" ")[0]), cells["command"]))
    assert not rows, f"rows for claims that are not defined: {sorted(rows)}"
    return doc.render(entries, header)


def test_the_ledger_in_experiments_md_is_the_generators():
    with open(os.path.join(ROOT, "docs", "EXPERIMENTS.md"), encoding="utf-8") as f:
        text = f.read()
    section = doc.section(text)
    assert section is not None, "docs/EXPERIMENTS.md has no claims ledger: bin/smartssd bench claims --write-doc"
    assert rebuild(section) == section, ("the ledger in docs/EXPERIMENTS.md is not what the definitions give: "
                                         "regenerate it (bin/smartssd bench claims --collect --write-doc)")


def test_a_hand_edit_is_caught():
    with open(os.path.join(ROOT, "docs", "EXPERIMENTS.md"), encoding="utf-8") as f:
        section = doc.section(f.read())
    flipped = section.replace("| yes |", "| **no** |", 1) if "| yes |" in section else section.replace(
        "| **no** |", "| yes |", 1)
    assert flipped != section
    assert rebuild(flipped) != flipped


def run_claims(out_dir, *args):
    env = dict(os.environ, CSD_BENCH_OUT=out_dir)
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "benchlib.py"), "claims", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_the_bench_collects_every_claim(tmp_path):
    root = str(tmp_path)
    write(root, "flash", [{"name": "internal read bandwidth / host link, one tasklet request (calibrated)", "ours": 1.5,
                           "unit": "x"}])
    r = run_claims(root, "--collect")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(root, "claims", "summary.json")) as f:
        entries = json.load(f)
    assert [e["name"] for e in entries] == [c.name for c in CLAIMS]
    for e in entries:
        assert e["setup"] in core.SETUPS and e["holds"] in (True, False, None)
        assert (e["holds"] is None) == (e["status"] == "not measured") == (e["ours"] is None)
    bw = by_name(entries)["Smart SSD: internal read bandwidth is 1.8x the host link with the firmware's overhead (V-B-1)"]
    assert (bw["ours"], bw["holds"], bw["paper"]) == (1.5, False, 1.8)
    for f in ("results.csv", "ledger.md", "run.json"):
        assert os.path.exists(os.path.join(root, "claims", f)), f
    with open(os.path.join(root, "claims", "ledger.md")) as f:
        assert rebuild(f.read()) == open(os.path.join(root, "claims", "ledger.md")).read()


def test_bad_arguments(tmp_path):
    r = run_claims(str(tmp_path), "--only", "flash,nosuch")
    assert r.returncode != 0 and "--only nosuch: not a bench the claims use" in r.stderr
    r = run_claims(str(tmp_path), "--fast")
    assert r.returncode != 0 and "unknown argument '--fast'" in r.stderr


@pytest.mark.parametrize("bench", sorted(BENCHES))
def test_every_bench_the_claims_run_exists(bench):
    name = {"2pm": "twopm"}.get(bench, bench)
    assert os.path.exists(os.path.join(ROOT, "bench", f"{name}.py"))
