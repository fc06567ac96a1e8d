"""csd replay on the drs preset, as bench drs uses it: the DRS paper's Fig. 10 parts of every request's
latency (I/O request queue, flash command queue, its own flash operation time, and the host link) add up
to it, its own flash time is the sum of its commands' times and does not move with the scheduler (the
paper: "the flash operation time does not change because ... command scheduling only reorders the flash
commands"), and the flash command queue depth counts command sets, so depth 1 serves one request's
commands at a time. Run by ctest (cli_py) with CSD_BIN set."""
import csv
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import trace_gen  # noqa: E402

READ_NS, PROG_NS = 60000 + 10240, 10240 + 700000   # drs: tR + X, X + tProg (one chip, no firmware time)
SCHEDULERS = ("fifo", "rcf", "size", "rrf", "fot", "drs")


def csd(*args):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, f"csd {' '.join(map(str, args))}: {p.stderr}"
    return p.stdout


def replay(tmp_path, trace, ftl, sched, *extra):
    img = tmp_path / f"{ftl}-{sched}.img"
    if img.exists():
        img.unlink()
    csd("format", img, "--capacity", "64M", "--preset", "drs", "--set", f"ftl={ftl}")
    out = tmp_path / f"{ftl}-{sched}.csv"
    j = json.loads(csd("replay", img, trace, "--prefill", "--json", "--csv", out, "--set",
                       f"flash_scheduler={sched}", *extra))
    with open(out) as f:
        return j, list(csv.DictReader(f))


@pytest.fixture(scope="module")
def bursty(tmp_path_factory):
    """Radio/WB in bursts of 16 with reads following writes: requests overlap on the one chip."""
    path = tmp_path_factory.mktemp("tr") / "rwb.csv"
    trace_gen.write_msr(trace_gen.generate("Radio/WB", 600, span=32 << 20, burst=16, raw=0.5), path)
    return path


def parts(x):
    return [int(x[k]) for k in ("io_queue_ns", "flash_queue_ns", "flash_ns", "host_link_ns")]


def test_parts_add_up_and_flash_time_is_the_commands(tmp_path, bursty):
    j, rows = replay(tmp_path, bursty, "page", "drs")
    assert len(rows) == 600
    for x in rows:
        p = parts(x)
        assert min(p) >= 0, x
        assert sum(p) == int(x["latency_ns"]) == int(x["done_ns"]) - int(x["arrival_ns"])
        # whole map in DRAM: one command per page, each its service time
        assert int(x["flash_ns"]) == int(x["count"]) * (READ_NS if x["op"] == "read" else PROG_NS)
        assert int(x["io_queue_ns"]) == int(x["admit_ns"]) - int(x["arrival_ns"])
    # the JSON's means are the CSV's
    for k, col in (("io_queue_us", "io_queue_ns"), ("flash_queue_us", "flash_queue_ns"), ("flash_us", "flash_ns"),
                   ("host_link_us", "host_link_ns")):
        assert j["mean_breakdown"][k] == pytest.approx(sum(int(x[col]) for x in rows) / len(rows) / 1000.0)
        reads = [x for x in rows if x["op"] == "read"]
        assert j["mean_breakdown_read"][k] == pytest.approx(sum(int(x[col]) for x in reads) / len(reads) / 1000.0)
    # offered load: the own flash time over the span of arrivals
    arr = [int(x["arrival_ns"]) for x in rows]
    assert j["offered_load"] == pytest.approx(sum(int(x["flash_ns"]) for x in rows) / (max(arr) - min(arr)))
    assert j["flash_queue_depth"] == 256


def test_flash_time_does_not_move_with_the_scheduler(tmp_path, bursty):
    """On the map-cached FTL the commands are the same whatever the order (the FTL translates at
    submission, in submission order): each request's own flash time is identical under all six
    schedulers, while its queue waits, and so its latency, move."""
    runs = {s: replay(tmp_path, bursty, "dftl", s)[1] for s in SCHEDULERS}
    base = runs["fifo"]
    assert any(int(x["flash_ns"]) > int(x["count"]) * READ_NS for x in base if x["op"] == "read")   # map reads
    for s in SCHEDULERS:
        assert [int(x["flash_ns"]) for x in runs[s]] == [int(x["flash_ns"]) for x in base], s
        assert [int(x["flash_ops"]) for x in runs[s]] == [int(x["flash_ops"]) for x in base], s
        for x in runs[s]:
            assert sum(parts(x)) == int(x["latency_ns"])
    assert [x["latency_ns"] for x in runs["drs"]] != [x["latency_ns"] for x in base]
    # delayed requests (a set waiting for another request's map command): the JSON's counts are the CSV's
    j, rows = replay(tmp_path, bursty, "dftl", "drs")
    for op in ("read", "write"):
        mine = [x for x in rows if x["op"] == op]
        d = j["delayed_requests"][op]
        assert d["clf"] == sum(1 for x in mine if int(x["clf_delayed"]))
        assert d["dle"] == sum(1 for x in mine if int(x["dle_delayed"]))
        assert d["any"] == sum(1 for x in mine if int(x["clf_delayed"]) or int(x["dle_delayed"]))
    assert j["delayed_requests"]["read"]["any"] > 0


def test_queue_depth_one_serves_one_request_at_a_time(tmp_path, bursty):
    """flash_queue_depth = 1: a request enters the flash command queue only when it is empty (a
    request of several command sets enters alone), so in admission order every request is admitted
    after the one before it has finished its flash commands. At 256 they overlap."""
    def overlaps(rows):
        flash = sorted((int(x["admit_ns"]), int(x["flash_done_ns"])) for x in rows if int(x["flash_done_ns"]))
        return sum(1 for a, b in zip(flash, flash[1:]) if b[0] < a[1])
    _, one = replay(tmp_path, bursty, "dftl", "drs", "--set", "flash_queue_depth=1")
    _, deep = replay(tmp_path, bursty, "dftl", "drs")
    assert overlaps(one) == 0
    assert overlaps(deep) > 50
    assert sum(int(x["io_queue_ns"]) for x in one) > sum(int(x["io_queue_ns"]) for x in deep)
