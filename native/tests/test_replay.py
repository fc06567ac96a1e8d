"""csd replay: hand-written MSR-Cambridge and blkparse snippets parsed into the requests they describe
(checked row by row in the per-request CSV), every kind of bad line reported with its line number (or
skipped), offsets past the namespace refused or wrapped, and the latency percentiles of the table and
--json recomputed independently from the per-request CSV. Run by ctest (cli_py) with CSD_BIN set."""
import csv
import json
import math
import os

import pytest

from csdcli import csd



@pytest.fixture()
def tiny(tmp_path):
    img = tmp_path / "tiny.img"
    csd("format", img, "--capacity", "1M", "--preset", "tiny")   # 256 LBAs of 4096 bytes
    return img


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


MSR = """128166372003061629,hm,1,Read,0,4096,5023
128166372003061729,hm,1,Write,8192,8192,77
128166372003071629,hm,1,read,5000,100,1
128166372003071629,hm,1,WRITE,1044480,4096,1
"""

BLK = """  8,0    3        1     0.000000000  4162  Q  WS 16 + 8 [kjournald]
  8,0    3        2     0.000002222  4162  G  WS 16 + 8 [kjournald]
  8,0    3        3     0.000100000  4162  Q   R 0 + 16 [cat]
  8,0    3        4     0.000150000  4162  Q  FN [flush]
  8,0    3        5     0.001000000  4162  Q   D 2040 + 8 [fstrim]
  8,0    3        6     0.001000000  4162  C   R 0 + 16 [0]
CPU3 (8,0):
 Reads Queued:           1,        8KiB
"""


def test_msr_snippet_parsed_row_by_row(tiny, tmp_path):
    tr = tmp_path / "t.csv"
    tr.write_text(MSR)
    out = tmp_path / "out.csv"
    j = json.loads(csd("replay", tiny, tr, "--csv", out, "--json").stdout)
    assert (j["requests"], j["reads"], j["writes"], j["skipped_lines"]) == (4, 2, 2, 0)
    r = rows(out)
    # (line, op, lba, count, arrival relative to the first, in ns: filetime units of 100 ns)
    got = [(int(x["line"]), x["op"], int(x["lba"]), int(x["count"]), int(x["arrival_ns"]) - int(r[0]["arrival_ns"]))
           for x in r]
    assert got == [(1, "read", 0, 1, 0), (2, "write", 2, 2, 10000), (3, "read", 1, 1, 1000000),
                   (4, "write", 255, 1, 1000000)]
    assert all(x["status"] == "0" for x in r)


def test_blkparse_snippet_parsed_row_by_row(tiny, tmp_path):
    tr = tmp_path / "t.txt"
    tr.write_text(BLK)
    out = tmp_path / "out.csv"
    j = json.loads(csd("replay", tiny, tr, "--csv", out, "--json").stdout)
    assert (j["requests"], j["reads"], j["writes"], j["trims"]) == (3, 1, 1, 1)
    r = rows(out)
    # Q events only; sectors of 512 bytes; the flush (no data) and the summary are not requests
    got = [(int(x["line"]), x["op"], int(x["lba"]), int(x["count"]), int(x["arrival_ns"]) - int(r[0]["arrival_ns"]))
           for x in r]
    assert got == [(1, "write", 2, 1, 0), (3, "read", 0, 2, 100000), (5, "trim", 255, 1, 1000000)]
    # the same trace named explicitly
    j2 = json.loads(csd("replay", tiny, tr, "--format", "blkparse", "--json").stdout)
    assert j2["requests"] == 3


BAD_MSR = [
    ("128166372003061629,hm,1,Read,0,4096", "expected 7 comma-separated fields"),
    ("12816637200306162x,hm,1,Read,0,4096,1", "timestamp '12816637200306162x' is not an integer"),
    ("128166372003061629,hm,1,Flush,0,4096,1", "type 'Flush' is not Read or Write"),
    ("128166372003061629,hm,1,Read,-5,4096,1", "offset '-5' is not an integer"),
    ("128166372003061629,hm,1,Read,0,4k,1", "size '4k' is not an integer"),
    ("128166372003061629,hm,1,Read,0,0,1", "size is 0"),
    ("128166372003061628,hm,1,Read,0,4096,1", "time goes backwards"),
    ("128166372003061629,hm,1,Read,1048576,4096,1", "bytes [1048576, +4096) are past the namespace (256 LBAs"),
]

BAD_BLK = [
    ("garbage here", "not a blkparse event line"),
    ("  8,0    3        1     0.00x  4162  Q  R 0 + 8 [a]", "time '0.00x' is not a number of seconds"),
    ("  8,0    3        1     1.000000000  4162  Q  R 0 8 [a]", "expected 'SECTOR + COUNT'"),
    ("  8,0    3        1     1.000000000  4162  Q  R zz + 8 [a]", "sector 'zz' is not an integer"),
    ("  8,0    3        1     1.000000000  4162  Q  R 0 + q [a]", "sector count 'q' is not an integer"),
    ("  8,0    3        1     1.000000000  4162  Q  RX 0 + 8 [a]", "RWBS 'RX' has an unknown flag 'X'"),
    ("  8,0    3        1     1.000000000  4162  Q  R 0 + 0 [a]", "size is 0"),
]


@pytest.mark.parametrize("fmt,good,bad,why", [("msr", "128166372003061629,hm,1,Read,0,4096,1", b, w) for b, w in BAD_MSR]
                         + [("blkparse", "  8,0    3        1     1.000000000  4162  Q  R 0 + 8 [a]", b, w)
                            for b, w in BAD_BLK])
def test_bad_line_stops_with_line_number_or_is_skipped(tiny, tmp_path, fmt, good, bad, why):
    tr = tmp_path / "bad.trace"
    tr.write_text(f"{good}\n{good}\n{bad}\n{good}\n")
    p = csd("replay", tiny, tr, "--format", fmt, ok=False)
    assert p.returncode == 1
    assert f"bad.trace:3: {why}" in p.stderr, p.stderr
    assert p.stdout == ""   # nothing replayed
    j = json.loads(csd("replay", tiny, tr, "--format", fmt, "--on-error", "skip", "--json").stdout)
    assert (j["requests"], j["skipped_lines"]) == (3, 1)
    # the JSON error names the line too
    p = csd("replay", tiny, tr, "--format", fmt, "--json", ok=False)
    assert f"bad.trace:3: {why}" in json.loads(p.stdout)["message"]


def test_wrap_folds_offsets_into_the_namespace(tiny, tmp_path):
    tr = tmp_path / "t.csv"
    # LBA 300 -> 300 mod 256 = 44; LBA 510 + 4 pages -> 254 does not fit: the last 4 LBAs
    tr.write_text("128166372003061629,hm,1,Write,1228800,4096,1\n128166372003061630,hm,1,Read,2088960,16384,1\n")
    assert csd("replay", tiny, tr, ok=False).returncode == 1
    out = tmp_path / "o.csv"
    csd("replay", tiny, tr, "--wrap", "--csv", out)
    assert [(int(x["lba"]), int(x["count"])) for x in rows(out)] == [(44, 1), (252, 4)]


def nearest_rank(v, p):
    v = sorted(v)
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]


def test_percentiles_match_an_independent_computation(tmp_path):
    img = tmp_path / "d.img"
    csd("format", img, "--capacity", "8M", "--preset", "tiny")
    tr = tmp_path / "t.csv"
    import random
    rnd = random.Random(7)
    t = 128166372003061629
    lines = []
    for _ in range(3000):
        t += int(rnd.expovariate(1 / 300.0))
        op = "Write" if rnd.random() < 0.4 else "Read"
        lines.append(f"{t},hm,1,{op},{4096 * rnd.randrange(2000)},{4096 * rnd.randint(1, 8)},0")
    tr.write_text("\n".join(lines) + "\n")
    out = tmp_path / "o.csv"
    png = tmp_path / "cdf.png"
    j = json.loads(csd("replay", img, tr, "--queue-depth", "4", "--csv", out, "--plot", png, "--json").stdout)
    assert j["queue_depth"] == 4
    r = rows(out)
    assert len(r) == 3000
    for x in r:   # the per-request times are consistent
        assert int(x["arrival_ns"]) <= int(x["admit_ns"]) <= int(x["done_ns"])
        assert int(x["latency_ns"]) == int(x["done_ns"]) - int(x["arrival_ns"])
    for name, sel in (("read", {"read"}), ("write", {"write"}), ("all", {"read", "write"})):
        v = [int(x["latency_ns"]) for x in r if x["op"] in sel and x["status"] == "0"]
        s = j["latency"][name]
        assert s["count"] == len(v)
        for key, p in (("p50_us", 50), ("p90_us", 90), ("p99_us", 99), ("p99.9_us", 99.9)):
            assert s[key] == pytest.approx(nearest_rank(v, p) / 1000.0, abs=1e-9), (name, key)
        assert s["max_us"] == pytest.approx(max(v) / 1000.0)
        assert s["mean_us"] == pytest.approx(sum(v) / len(v) / 1000.0)
    # queue depth 4 holds: never more than 4 requests between admission and completion
    ev = sorted([(int(x["admit_ns"]), 1) for x in r] + [(int(x["done_ns"]), -1) for x in r])
    depth = peak = 0
    for _, d in ev:
        depth += d
        peak = max(peak, depth)
    assert peak <= 4
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the text table shows the same figures
    text = csd("replay", img, tr, "--queue-depth", "4").stdout
    assert "latency (us)" in text and "p99.9" in text
    # as fast as possible: every request arrives at once, so the device queue holds them
    j = json.loads(csd("replay", img, tr, "--as-fast-as-possible", "--queue-depth", "4", "--json").stdout)
    assert j["mean_breakdown"]["io_queue_us"] > 0


def test_usage_errors(tiny, tmp_path):
    tr = tmp_path / "t.csv"
    tr.write_text(MSR)
    for args in (["--format", "xyz"], ["--on-error", "maybe"], ["--queue-depth", "0"], ["--limit", "x"]):
        assert csd("replay", tiny, tr, *args, ok=False).returncode == 2
    p = csd("replay", tiny, tmp_path / "missing.csv", ok=False)
    assert p.returncode == 1 and "cannot open trace" in p.stderr
    tr.write_text("hello world\n")
    p = csd("replay", tiny, tr, ok=False)
    assert "t.csv:1: cannot tell the trace format" in p.stderr


def test_prefill_writes_what_the_trace_reads_first(tiny, tmp_path):
    tr = tmp_path / "t.csv"
    # reads of LBAs 0-3, a write of 2-5, a read of 4-7: LBAs 0-3 and 6-7 are read before any write
    tr.write_text("128166372003061629,hm,1,Read,0,16384,0\n128166372003061729,hm,1,Write,8192,16384,0\n"
                  "128166372003071629,hm,1,Read,16384,16384,0\n")
    out = tmp_path / "o.csv"
    j = json.loads(csd("replay", tiny, tr, "--prefill", "--csv", out, "--json").stdout)
    assert j["prefilled_lbas"] == 6
    r = rows(out)
    # every read now finds a page on flash for each LBA: one flash read per LBA
    assert [int(x["flash_ops"]) for x in r if x["op"] == "read"] == [4, 4]
    # without it the first read finds holes: no flash command at all
    csd("format", tiny, "--capacity", "1M", "--preset", "tiny")
    csd("replay", tiny, tr, "--csv", out)
    assert int(rows(out)[0]["flash_ops"]) == 0


def test_a_trace_offering_ten_times_what_the_device_serves_replays_to_its_end(tiny, tmp_path):
    # 80000 one-page reads of unwritten LBAs (no flash command: 5000 ns of command and 10000 ns of data on
    # the one host link, so the device serves one per 15 us) arriving every 1.5 us: 10x its rate. More
    # than the 65536 requests the device may hold pile up; the rest wait on the host, and every request
    # still completes: the last 80000 x 15 us after the first arrival.
    n = 80000
    tr = tmp_path / "over.csv"
    tr.write_text("".join(f"{i * 1500},R,{(i % 200) * 4096},4096\n" for i in range(n)))
    out = tmp_path / "o.csv"
    j = json.loads(csd("replay", tiny, tr, "--csv", out, "--json").stdout)
    assert (j["requests"], j["failed"]) == (n, 0)
    assert j["device_s"] == pytest.approx(n * 15000 / 1e9, abs=1e-9)
    r = rows(out)
    assert len(r) == n and all(x["status"] == "0" for x in r)
    waited = [x for x in r if int(x["host_queue_ns"]) > 0]
    assert j["host_queue"]["requests"] == len(waited) > 0
    for x in r:
        assert int(x["arrival_ns"]) <= int(x["submit_ns"]) <= int(x["admit_ns"]) <= int(x["done_ns"])
        assert int(x["latency_ns"]) == int(x["done_ns"]) - int(x["arrival_ns"])
        assert int(x["host_queue_ns"]) == int(x["submit_ns"]) - int(x["arrival_ns"])
    # a request waits on the host only once the device holds 65536: none of the first 65536 did
    assert all(int(x["id"]) >= 65536 for x in waited)
    # the device serves in arrival order (one queue, reads of no flash): completions in id order
    done = [int(x["done_ns"]) for x in r]
    assert done == sorted(done)
    text = csd("replay", tiny, tr).stdout
    assert "requests waited on the host" in text


def data_bytes(path):
    """Bytes of the file that hold data (not holes), by SEEK_DATA / SEEK_HOLE."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size, off, total = os.fstat(fd).st_size, 0, 0
        while off < size:
            try:
                d = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            h = os.lseek(fd, d, os.SEEK_HOLE)
            total, off = total + h - d, h
        return total
    finally:
        os.close(fd)


@pytest.mark.parametrize("preset", ["tiny", "drs"])
def test_prefill_map_builds_the_data_prefills_mapping_without_the_data(tmp_path, preset):
    # reads (some sub-page, some wider than a page) and writes over 4 MiB, each LBA read first prefilled
    import random
    rnd = random.Random(3)
    t, lines = 128166372003061629, []
    for _ in range(1500):
        t += int(rnd.expovariate(1 / 2000.0))
        op = "Write" if rnd.random() < 0.3 else "Read"
        lines.append(f"{t},hm,1,{op},{512 * rnd.randrange(8000)},{rnd.choice([512, 4096, 8192, 20000])},0")
    tr = tmp_path / "t.csv"
    tr.write_text("\n".join(lines) + "\n")
    runs = {}
    for mode in ("data", "map"):
        img = tmp_path / f"{mode}.img"
        csd("format", img, "--capacity", "64M", "--preset", preset)
        fresh = data_bytes(img)
        out = tmp_path / f"{mode}.csv"
        extra = ["--prefill", "--write-data", "pattern"] if mode == "data" else ["--prefill=map"]
        j = json.loads(csd("replay", img, tr, *extra, "--csv", out, "--json").stdout)
        assert j["prefill"] == mode and j["failed"] == 0
        runs[mode] = (j, rows(out), data_bytes(img) - fresh)
        assert "clean" in csd("check", img).stdout
    (jd, rd, bd), (jm, rm, bm) = runs["data"], runs["map"]
    assert jd["prefilled_lbas"] == jm["prefilled_lbas"] > 500
    assert jd["flash_commands"] == jm["flash_commands"]
    # the same mapping, so every request's times after the prefill are the same
    keys = ("line", "op", "lba", "count", "bytes", "latency_ns", "io_queue_ns", "flash_queue_ns", "flash_ns",
            "flash_ops", "status")
    assert [tuple(x[k] for k in keys) for x in rd] == [tuple(x[k] for k in keys) for x in rm]
    assert jd["latency"] == jm["latency"]
    # and the map prefill (and the zeros the trace writes) stored no page data: every page it programmed
    # was a page of zeros the image held already (a fresh block's)
    assert jd["zero_pages_unstored"] == 0
    assert jm["zero_pages_unstored"] >= jm["prefilled_lbas"]
    # on disk: tiny's blocks hold nothing else (drs's hold its map pages, so its blocks get their zero
    # fill as the data prefill's do), so its data area stays holes where the data prefill's has a page
    # per LBA
    if preset == "tiny" and data_bytes(tmp_path / "data.img") < os.path.getsize(tmp_path / "data.img"):
        assert bd - bm >= jd["prefilled_lbas"] * 4096


def test_prefill_option(tiny, tmp_path):
    tr = tmp_path / "t.csv"
    tr.write_text(MSR)
    assert csd("replay", tiny, tr, "--prefill=maybe", ok=False).returncode == 2
    assert csd("replay", tiny, tr, "--write-data", "ones", ok=False).returncode == 2
    assert json.loads(csd("replay", tiny, tr, "--prefill=data", "--json").stdout)["prefill"] == "data"
