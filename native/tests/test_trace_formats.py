"""csd replay's trace formats: for each, a small trace written in that format (with its edge cases) is
replayed on a device and the requests the device saw (the per-request CSV: line, op, LBA, count,
arrival) are compared with an independent parse written here; --stats-only's summary is checked
against the same parse. Run by ctest (cli_py) with CSD_BIN set; SMARTSSD_NEXUS5_TRACES names a
folder holding the real BIOTracer traces (Movie_log121.txt, Booting_log176.txt), else their test is
skipped."""
import csv
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
LBA = 4096   # tiny preset: one LBA is a 4 KiB page, 256 of them in 1 MiB


def csd(*args, ok=True):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"csd {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
    return p


@pytest.fixture()
def tiny(tmp_path):
    img = tmp_path / "tiny.img"
    csd("format", img, "--capacity", "1M", "--preset", "tiny")
    return img


def replayed(img, trace, tmp_path, *extra):
    """(summary JSON, [(line, op, lba, count, arrival relative to the first)]) as the device saw them."""
    out = tmp_path / "out.csv"
    j = json.loads(csd("replay", img, trace, "--csv", out, "--json", *extra).stdout)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    a0 = min(int(x["arrival_ns"]) for x in rows) if rows else 0
    return j, [(int(x["line"]), x["op"], int(x["lba"]), int(x["count"]), int(x["arrival_ns"]) - a0) for x in rows]


def pages(off, size):
    first, last = off // LBA, (off + size - 1) // LBA
    return first, last - first + 1


def ns(text, unit_ns):
    """A decimal time in units -> ns, exactly (no floats)."""
    whole, _, frac = text.partition(".")
    v = int(whole or "0") * unit_ns
    if frac:
        v += (int(frac) * unit_ns + 10 ** len(frac) // 2) // 10 ** len(frac)
    return v


# ---- BIOTracer ------------------------------------------------------------------------------------

def parse_biotracer(text):
    """Independent BIOTracer reader: a clock is a run of times (of all four fields) with no step over a
    day between them (sorted); each later clock starts where the one before ended."""
    reqs = []
    every = []
    for lineno, line in enumerate(text.splitlines(), 1):
        f = line.split("\t\t")
        if len(f) != 8:
            continue
        t = [ns(x, 10 ** 9) for x in f[4:]]
        every += t
        reqs.append(dict(line=lineno, op="write" if int(f[3]) & 1 else "read", off=int(f[0]) * 512,
                         size=int(f[2]), t=t[0]))
    every.sort()
    clocks = [[every[0], every[0]]]
    for a, b in zip(every, every[1:]):
        if b - a > 86400 * 10 ** 9:
            clocks.append([b, b])
        else:
            clocks[-1][1] = b
    start, at = [], clocks[0][0]
    for lo, hi in clocks:
        start.append(at)
        at += hi - lo
    for r in reqs:
        k = max(i for i, (lo, _) in enumerate(clocks) if lo <= r["t"])
        r["t"] = r["t"] - clocks[k][0] + start[k]
    reqs.sort(key=lambda r: (r["t"], r["line"]))
    t0 = reqs[0]["t"]
    return [(r["line"], r["op"], *pages(r["off"], r["size"]), r["t"] - t0) for r in reqs], len(clocks) - 1


def bt(sector, sectors, nbytes, typ, *times):
    return "\t\t".join([str(sector), str(sectors), str(nbytes), str(typ), *times])


# Boot-time clock, then wall-clock time (as the Nexus 5 Booting trace does), lines in processing order:
# line 3 was generated before line 2; line 5 was generated on the old clock and processed on the new.
BIOTRACER = "\n".join([
    bt(0, 8, 4096, 4, "1.000000000", "1.000010000", "1.000020000", "1.000300000"),
    bt(8, 16, 8192, 1, "1.000400000", "1.000410000", "1.000420000", "1.001000000"),   # a write
    bt(24, 9, 4096, 0, "1.000350000", "1.001010000", "1.001020000", "1.001200000"),   # 9 sectors, 4096 bytes
    bt(100, 2, 1024, 5, "1400000000.000000000", "1400000000.000001000", "1400000000.000002000",
       "1400000000.000100000"),                                                     # 1 KiB write, new clock
    bt(40, 8, 4096, 0, "1.001100000", "1400000000.000200000", "1400000000.000210000", "1400000000.000400000"),
    bt(2040, 8, 4096, 4, "1400000002.500000000", "1400000002.500010000", "1400000002.500020000",
       "1400000002.500300000"),
]) + "\n"


def test_biotracer_clock_switch_and_order(tiny, tmp_path):
    tr = tmp_path / "boot.txt"
    tr.write_text(BIOTRACER)
    want, switches = parse_biotracer(BIOTRACER)
    assert switches == 1
    # by hand: the old clock runs 1.000000000 .. 1.001200000 (its last time: line 3's finish), so the new
    # clock's 1400000000.0 is 1.2 ms after the first arrival
    assert [w[4] for w in want] == [0, 350000, 400000, 1100000, 1200000, 2501200000]
    assert [w[0] for w in want] == [1, 3, 2, 5, 4, 6]
    j, got = replayed(tiny, tr, tmp_path)
    assert got == want
    assert j["trace"]["format"] == "biotracer"
    assert [(s["line"], s["from_s"], s["to_s"]) for s in j["trace"]["clock_switches"]] == [(4, 1.0012, 1.4e9)]
    assert j["trace"]["reordered"] == 2   # lines 3 and 5 arrived before a line above them
    assert (j["requests"], j["reads"], j["writes"]) == (6, 4, 2)
    # the byte size is authoritative: line 3's 9 sectors are one 4 KiB page, line 4's 1 KiB a page
    assert [w[3] for w in want] == [1, 1, 2, 1, 1, 1]
    text = csd("replay", "--stats-only", tr).stdout
    assert "biotracer" in text and "clock switch at line 4: 1.001200000 s then 1400000000.000000000 s" in text
    # the sizes are bytes: reads 4 x 4096, writes 8192 + 1024
    s = json.loads(csd("replay", "--stats-only", tr, "--json").stdout)
    assert (s["read_bytes"], s["write_bytes"], s["requests"]) == (16384, 9216, 6)
    assert s["span_s"] == pytest.approx(2.5012)


def test_biotracer_bad_lines(tiny, tmp_path):
    tr = tmp_path / "bad.txt"
    good = bt(0, 8, 4096, 0, "1.0", "1.1", "1.2", "1.3")
    for bad, why in ((bt(0, 8, 4096, 0, "1.0", "1.1", "1.2"), "expected 8 fields"),
                     (bt(0, 8, "4k", 0, "1.0", "1.1", "1.2", "1.3"), "bytes '4k' is not an integer"),
                     (bt(0, 8, 4096, 0, "1.0", "x.1", "1.2", "1.3"), "processed 'x.1' is not a time in seconds"),
                     (bt(0, 8, 0, 0, "1.0", "1.1", "1.2", "1.3"), "size is 0")):
        tr.write_text(f"{good}\n{bad}\n{good}\n")
        p = csd("replay", tiny, tr, "--format", "biotracer", ok=False)
        assert p.returncode == 1 and f"bad.txt:2: {why}" in p.stderr, p.stderr
        j = json.loads(csd("replay", tiny, tr, "--on-error", "skip", "--json").stdout)
        assert (j["requests"], j["skipped_lines"]) == (2, 1)


NEXUS5 = os.environ.get("SMARTSSD_NEXUS5_TRACES")


@pytest.mark.skipif(not NEXUS5, reason="SMARTSSD_NEXUS5_TRACES is not set")
def test_nexus5_movie_is_table_1s_row():
    path = os.path.join(NEXUS5, "Movie_log121.txt")
    text = csd("replay", "--stats-only", path).stdout
    # the DRS paper's Table 1: Movie 27.5 kB, 17 kB, 5.40 %, 4.79
    assert "avg read 27.5 kB, avg write 17 kB, write req. 5.40 %, req. arrival rate 4.79" in text
    with open(path) as f:
        want, switches = parse_biotracer(f.read())
    s = json.loads(csd("replay", "--stats-only", path, "--json").stdout)
    assert (s["requests"], s["writes"], switches) == (len(want), sum(w[1] == "write" for w in want), 0)
    boot = os.path.join(NEXUS5, "Booting_log176.txt")
    s = json.loads(csd("replay", "--stats-only", boot, "--json").stdout)
    with open(boot) as f:
        want, switches = parse_biotracer(f.read())
    assert len(s["clock_switches"]) == switches == 2
    assert s["span_s"] == pytest.approx(want[-1][4] / 1e9)
    assert s["table1"]["write_pct"] == 33.07


def test_a_request_wider_than_the_device_takes_goes_in_pieces(tmp_path):
    img = tmp_path / "d.img"
    csd("format", img, "--capacity", "32M", "--preset", "tiny")   # 8192 LBAs
    tr = tmp_path / "wide.csv"
    # a write of 5000 LBAs (the device takes at most 4096 a request), then a read of them
    tr.write_text(f"0,W,0,{5000 * LBA}\n1000000000,R,0,{5000 * LBA}\n")
    j, got = replayed(img, tr, tmp_path)
    assert got == [(1, "write", 0, 5000, 0), (2, "read", 0, 5000, 10 ** 9)]
    assert (j["requests"], j["split_requests"]) == (2, 2)
    with open(tmp_path / "out.csv") as f:
        rows = list(csv.DictReader(f))
    # one program and one read per LBA, summed over the pieces; the request ends with its last piece
    assert [int(x["flash_ops"]) for x in rows] >= [5000, 5000]
    assert int(rows[1]["flash_ops"]) == 5000
    assert all(int(x["done_ns"]) > int(x["admit_ns"]) >= int(x["arrival_ns"]) for x in rows)
