"""The DRS Table 1 workload generator (native/tools/trace_gen.py): every workload's generated average
read and write size, write share and arrival rate within a tolerance of the table, and the same
statistics recomputed from what the device saw when it replayed a trace (csd replay's per-request
CSV: LBAs of 4096 bytes and arrival times), independently of the generator's own reader."""
import csv
import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "tools")
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
sys.path.insert(0, TOOLS)
import trace_gen  # noqa: E402


@pytest.mark.parametrize("workload", sorted(trace_gen.TABLE1))
def test_generated_statistics_match_table1(workload, tmp_path):
    path = tmp_path / "t.csv"
    trace_gen.write_msr(trace_gen.generate(workload, 20000), path)
    s = trace_gen.stats(path)
    rd, wr, wpct, rate = trace_gen.TABLE1[workload]
    assert s["requests"] == 20000
    # sizes: the fewer requests of a kind, the noisier its mean (YouTube has ~500 reads)
    assert s["read_kb"] == pytest.approx(rd, rel=0.08)
    assert s["write_kb"] == pytest.approx(wr, rel=0.08)
    assert s["write_pct"] == pytest.approx(wpct, abs=1.5)
    assert s["rate"] == pytest.approx(rate, rel=0.05)


def test_statistics_seen_by_the_device(tmp_path):
    img = tmp_path / "d.img"
    subprocess.run([CSD, "format", img, "--capacity", "300M", "--preset", "drs"], check=True, capture_output=True)
    tr = tmp_path / "booting.csv"
    subprocess.run([sys.executable, os.path.join(TOOLS, "trace_gen.py"), "--workload", "Booting", "--requests", "3000",
                    "--out", tr], check=True)
    out = tmp_path / "o.csv"
    j = json.loads(subprocess.run([CSD, "replay", img, tr, "--csv", out, "--json"], check=True, capture_output=True,
                                  text=True).stdout)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    rd = [int(r["count"]) * 4 for r in rows if r["op"] == "read"]
    wr = [int(r["count"]) * 4 for r in rows if r["op"] == "write"]
    arr = [int(r["arrival_ns"]) for r in rows]
    s = trace_gen.stats(tr)
    assert j["requests"] == s["requests"] == 3000
    assert sum(rd) / len(rd) == pytest.approx(s["read_kb"])
    assert sum(wr) / len(wr) == pytest.approx(s["write_kb"])
    assert 100 * len(wr) / len(rows) == pytest.approx(s["write_pct"])
    assert (len(arr) - 1) / ((arr[-1] - arr[0]) / 1e9) == pytest.approx(s["rate"], rel=1e-6)


def test_check_prints_the_table_side_by_side(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(TOOLS, "trace_gen.py"), "--all", "--requests", "2000", "--outdir",
                          tmp_path, "--check"], check=True, capture_output=True, text=True).stdout
    assert "generated / Table 1" in out
    assert "Booting" in out and "/ 460.40" in out
    assert sorted(os.listdir(tmp_path)) == sorted(trace_gen.file_name(w) for w in trace_gen.TABLE1)


@pytest.mark.parametrize("burst,n,tol", [(4, 20000, 0.05), (64, 100000, 0.08)])
def test_bursts_arrive_together_at_table1_rate(burst, n, tol):
    """Requests come in bursts of --burst, --burst-gap apart inside a burst; the bursts' starts keep the
    table's mean rate (the fewer bursts, the noisier the rate: 1563 bursts of 64)."""
    reqs = trace_gen.generate("Radio/WB", n, burst=burst)
    gaps = [b[0] - a[0] for a, b in zip(reqs, reqs[1:])]
    assert min(gaps) >= 0
    inside = sum(1 for g in gaps if g == round(trace_gen.BURST_GAP_S * 1e9))
    assert inside / len(gaps) == pytest.approx((burst - 1) / burst, abs=0.01)
    rate = (len(reqs) - 1) / ((reqs[-1][0] - reqs[0][0]) / 1e9)
    assert rate == pytest.approx(trace_gen.TABLE1["Radio/WB"][3], rel=tol)
    # the rest of Table 1's row is unchanged by bursts
    w = [r for r in reqs if r[1]]
    assert 100 * len(w) / n == pytest.approx(trace_gen.TABLE1["Radio/WB"][2], abs=1.5)


@pytest.mark.parametrize("raw", [0.0, 0.3, 1.0])
def test_reads_follow_the_latest_write(raw):
    """--raw: that share of reads starts where the latest write started (counted independently by
    walking the trace); the others never do, but by chance."""
    reqs = trace_gen.generate("Radio/WB", 20000, raw=raw)
    last, follow, reads = None, 0, 0
    for _, w, off, _size in reqs:
        if w:
            last = off
        elif last is not None:
            reads += 1
            follow += off == last
    assert follow / reads == pytest.approx(raw, abs=0.02)


def test_burst_1_is_poisson_and_bursts_are_burstier():
    """--burst 1: exponential inter-arrival times (coefficient of variation 1); bursts of 16 raise it
    (gaps of 50 us inside, long ones between)."""
    def cv(reqs):
        g = [b[0] - a[0] for a, b in zip(reqs, reqs[1:])]
        m = sum(g) / len(g)
        return math.sqrt(sum((x - m) ** 2 for x in g) / len(g)) / m
    assert cv(trace_gen.generate("Facebook", 20000)) == pytest.approx(1.0, abs=0.05)
    assert cv(trace_gen.generate("Facebook", 20000, burst=16)) > 3


def test_bad_burst_and_raw_refused(tmp_path):
    for args in (["--burst", "0"], ["--raw", "1.5"], ["--burst-gap", "-1"]):
        p = subprocess.run([sys.executable, os.path.join(TOOLS, "trace_gen.py"), "--workload", "Movie", "--out",
                            tmp_path / "x.csv", *args], capture_output=True, text=True)
        assert p.returncode == 2 and "must be" in p.stderr
