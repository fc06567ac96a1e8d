"""csd replay's trace formats: for each, a small trace written in that format (with its edge cases) is
replayed on a device and the requests the device saw (the per-request CSV: line, op, LBA, count,
arrival) are compared with an independent parse written here; --stats-only's summary is checked
against the same parse. Run by ctest (cli_py) with CSD_BIN set; SMARTSSD_NEXUS5_TRACES names a
folder holding the real BIOTracer traces (Movie_log121.txt, Booting_log176.txt), else their test is
skipped."""
import csv
import json
import os

import pytest

from csdcli import csd

LBA = 4096   # tiny preset: one LBA is a 4 KiB page, 256 of them in 1 MiB


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


# ---- the CSV and ASCII formats ----------------------------------------------------------------------

def parse_csv_family(fmt, text, unit_ns=None):
    """Independent readers of msr, systor, tencent, csv and disksim: [(line, op, t_ns, off, size)], flushes."""
    out, flushes = [], 0
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if fmt == "disksim":
            t, _dev, lba, cnt, typ = line.split()
            out.append((lineno, "read" if int(typ) & 1 else "write", ns(t, unit_ns or 1), int(lba) * 512,
                        int(cnt) * 512))
            continue
        f = [x.strip() for x in line.split(",")]
        if f[0].lower() in ("timestamp", "time", "ts"):
            continue
        if fmt == "msr":   # timestamp,host,disk,type,offset,size,response
            out.append((lineno, f[3].lower(), int(f[0]) * 100, int(f[4]), int(f[5])))
        elif fmt == "systor":   # Timestamp,Response,IOType,LUN,Offset,Size
            out.append((lineno, {"r": "read", "w": "write"}[f[2].lower()], ns(f[0], unit_ns or 10 ** 9), int(f[4]),
                        int(f[5])))
        elif fmt == "tencent":   # Timestamp,Offset,Size,IOType,VolumeID
            out.append((lineno, ["read", "write"][int(f[3])], ns(f[0], unit_ns or 10 ** 9), int(f[1]) * 512,
                        int(f[2]) * 512))
        elif fmt == "csv":   # timestamp,op,offset,size
            op = {"r": "read", "w": "write", "t": "trim", "f": "flush"}[f[1].lower()[0]]
            if op == "flush":
                flushes += 1
                continue
            out.append((lineno, op, ns(f[0], unit_ns or 1), int(f[2]), int(f[3])))
    return out, flushes


def expected(reqs):
    t0 = min(r[2] for r in reqs)
    return sorted((line, op, *pages(off, size), t - t0) for line, op, t, off, size in reqs)


SAMPLES = {
    "msr": "128166372003061629,hm,1,Read,0,4096,5023\n"
           "128166372003061729,hm,1,Write,8192,8192,77\n"
           "128166372003071629,hm,1,read,5000,100,1\n",
    "systor": "Timestamp,Response,IOType,LUN,Offset,Size\n"
              "1487015816.219718,0.000326,W,4,4096,4096\n"
              "1487015816.219950,0.000110,R,4,0,8192\n"
              "1487015816.3,0.0001,R,4,1000,512\n",
    "tencent": "Timestamp,Offset,Size,IOType,VolumeID\n"
               "1538323200,16,8,1,1283\n"
               "1538323200,0,16,0,1283\n"
               "1538323201,100,1,0,1283\n",
    "csv": "timestamp,op,offset,size\n"
           "0,R,0,4096\n"
           "1500,W,8192,100\n"
           "2500,F,0,0\n"
           "3000,T,40960,8192\n"
           "3000,read,1040384,8192\n",
    "disksim": "0 0 0 8 1\n"
               "1000 0 16 16 0\n"
               "2500 0 100 1 1\n"
               "2500 1 2040 8 3\n",
}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_replays_what_an_independent_parse_reads(tiny, tmp_path, fmt):
    text = SAMPLES[fmt]
    tr = tmp_path / f"t.{fmt}"
    tr.write_text(text)
    reqs, flushes = parse_csv_family(fmt, text)
    j, got = replayed(tiny, tr, tmp_path)   # detected from the first line
    assert j["trace"]["format"] == fmt
    assert got == expected(reqs)
    assert (j["requests"], j["reads"], j["writes"], j["trims"], j["trace"]["flushes"]) == (
        len(reqs), sum(r[1] == "read" for r in reqs), sum(r[1] == "write" for r in reqs),
        sum(r[1] == "trim" for r in reqs), flushes)
    # forced, and the summary alone
    assert replayed(tiny, tr, tmp_path, "--format", fmt)[1] == got
    s = json.loads(csd("replay", "--stats-only", tr, "--json").stdout)
    assert s["read_bytes"] == sum(r[4] for r in reqs if r[1] == "read")
    assert s["write_bytes"] == sum(r[4] for r in reqs if r[1] == "write")


def test_time_unit(tiny, tmp_path):
    # DiskSim's own traces count milliseconds (with a fraction); MQSim's nanoseconds (the default)
    text = "0.000000 0 0 8 1\n1.5 0 16 16 0\n2.0000005 0 100 1 1\n"
    tr = tmp_path / "t.disksim"
    tr.write_text(text)
    want = expected(parse_csv_family("disksim", text, 10 ** 6)[0])
    assert [w[4] for w in want] == [0, 1500000, 2000001]   # 0.5 ns rounds to the nearest (up)
    assert replayed(tiny, tr, tmp_path, "--time-unit", "ms")[1] == want
    # the plain CSV in microseconds
    tr = tmp_path / "t.csv"
    tr.write_text("0,R,0,4096\n2.5,W,4096,4096\n")
    assert [g[4] for g in replayed(tiny, tr, tmp_path, "--time-unit", "us")[1]] == [0, 2500]
    assert csd("replay", tiny, tr, "--time-unit", "hours", ok=False).returncode == 2


# ---- blkparse ---------------------------------------------------------------------------------------

def parse_blkparse(text):
    """Independent blkparse reader: Q events, else D events; (line, op, t_ns, off, size), flushes, remaps."""
    ev = {"Q": [], "D": []}
    flushes = {"Q": 0, "D": 0}
    remaps = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        f = line.split()
        if not f:
            continue
        if f[0].startswith("CPU") or f[0] == "Total":
            break
        action = f[5]
        if action == "A":
            remaps += 1
        if action not in ("Q", "D"):
            continue
        rwbs = f[6]
        has_range = len(f) > 9 and f[8] == "+"
        size = int(f[9]) * 512 if has_range else 0
        if size == 0:
            flushes[action] += "F" in rwbs
            continue
        op = "trim" if "D" in rwbs else "write" if "W" in rwbs else "read" if "R" in rwbs else None
        if op:
            ev[action].append((lineno, op, ns(f[3], 10 ** 9), int(f[7]) * 512, size))
    use = "Q" if ev["Q"] or flushes["Q"] else "D"
    return ev[use], flushes[use], remaps, use


# What blkparse prints for a real kernel: a remap first (the partition's sector -> the disk's), every
# action letter, RWBS with B (barrier, older kernels), F (pre-flush / FUA), A (read-ahead), M (meta),
# S (sync), DE (secure erase), a flush with no data, a message, then the per-CPU summary.
BLK = """\
  8,0    0        1     0.000000000  1234  A   W 1024 + 8 <- (8,1) 0
  8,0    0        2     0.000000500  1234  Q   W 1024 + 8 [kworker/0:1]
  8,0    0        3     0.000001000  1234  G   W 1024 + 8 [kworker/0:1]
  8,0    0        4     0.000001200  1234  P   N [kworker/0:1]
  8,0    0        5     0.000001500  1234  I   W 1024 + 8 [kworker/0:1]
  8,0    0        6     0.000002000  1234  U   N [kworker/0:1] 1
  8,0    0        7     0.000003000  1234  D   W 1024 + 8 [kworker/0:1]
  8,0    0        8     0.000100000     0  C   W 1024 + 8 [0]
  8,0    1        9     0.000200000   555  Q WBS 16 + 8 [jbd2/sda1-8]
  8,0    1       10     0.000300000   555  Q FWFS 24 + 8 [jbd2/sda1-8]
  8,0    1       11     0.000400000   555  Q FWS [jbd2/sda1-8]
  8,0    1       12     0.000500000   555  Q  RA 100 + 16 [cat]
  8,0    1       13     0.000600000   555  Q  RM 200 + 1 [ls]
  8,0    1       14     0.000700000   555  Q  DS 300 + 64 [fstrim]
  8,0    1       15     0.000800000   555  Q  DE 400 + 8 [blkdiscard]
  8,0    1       16     0.000900000   555  X   W 500 / 504 [x]
  8,0    1       17     0.001000000   555  M   W 508 + 8 [x]
  8,0    1       18     0.001050000   555  F   R 90 + 8 [x]
  8,0    1       19     0.001060000   555  B   R 90 + 8 [x]
  8,0    1       20     0.001070000   555  S   R 90 + 8 [x]
  8,0    1       21     0.001080000   555  R   R 90 + 8 [x]
  8,0    1       22     0.001090000   555  T   N [x] 1
  8,0    0        0     0.001100000     0  m   N cfq schedule dispatch
  8,0    1       23     0.001200000   555  Q   N [x]
  8,0    1       24     0.001300000   555  D  FN [kworker/1:1H]
CPU0 (8,0):
 Reads Queued:           1,        8KiB  Writes Queued:           4,       16KiB
Total (8,0):
"""

# What `blktrace -a issue -a complete` records: D and C events only (and a flush issued as D).
BLK_D_ONLY = """\
  259,0    2        1     0.000000000  3021  D  WS 1024 + 16 [fio]
  259,0    2        2     0.000050000     0  C  WS 1024 + 16 [0]
  259,0    2        3     0.000060000  3021  D  FN [fio]
  259,0    2        4     0.000070000  3021  D   R 64 + 8 [fio]
  259,0    2        5     0.000071000  3021  D   R 72 + 8 [fio]
  259,0    2        6     0.000120000     0  C   R 64 + 8 [0]
"""


@pytest.mark.parametrize("name,text,events", [("q", BLK, "Q"), ("d-only", BLK_D_ONLY, "D")])
def test_blkparse_every_flag_and_action(tiny, tmp_path, name, text, events):
    tr = tmp_path / f"{name}.txt"
    tr.write_text(text)
    reqs, flushes, remaps, use = parse_blkparse(text)
    assert use == events and len(reqs) > 0
    j, got = replayed(tiny, tr, tmp_path)
    assert got == expected(reqs)
    t = j["trace"]
    assert (t["format"], t["events"], t["flushes"], t["remaps"]) == ("blkparse", events, flushes, remaps)
    assert (j["requests"], j["reads"], j["writes"], j["trims"]) == (
        len(reqs), sum(r[1] == "read" for r in reqs), sum(r[1] == "write" for r in reqs),
        sum(r[1] == "trim" for r in reqs))
    text_out = csd("replay", "--stats-only", tr).stdout
    assert (f"from {events} (" in text_out) and f"{flushes} flushes" in text_out


def test_blkparse_counts_by_hand(tiny, tmp_path):
    tr = tmp_path / "q.txt"
    tr.write_text(BLK)
    j, got = replayed(tiny, tr, tmp_path)
    # Q events with data: W 1024+8, WBS 16+8, FWFS 24+8 (a write with pre-flush and FUA), RA 100+16,
    # RM 200+1, DS 300+64 (discard), DE 400+8 (secure erase); FWS without data is the one flush
    assert [(g[0], g[1]) for g in got] == [(2, "write"), (9, "write"), (10, "write"), (12, "read"), (13, "read"),
                                           (14, "trim"), (15, "trim")]
    assert (j["trace"]["flushes"], j["trace"]["remaps"]) == (1, 1)
    tr.write_text(BLK_D_ONLY)
    j, got = replayed(tiny, tr, tmp_path)
    assert [(g[0], g[1], g[2], g[3]) for g in got] == [(1, "write", 128, 2), (4, "read", 8, 1), (5, "read", 9, 1)]
    assert (j["requests"], j["trace"]["events"], j["trace"]["flushes"]) == (3, "D", 1)


def test_a_sub_page_read_moves_only_its_bytes_over_the_link(tiny, tmp_path):
    # tiny: a page over the host link 10000 ns (409.6 MB/s), command overhead 5000, tR 10000, a page over
    # the channel 10000, firmware 1000. LBA 0 is written by the prefill; then the trace reads 1 KiB of it:
    # link 5000, tR ..15000, channel ..25000, firmware ..26000, ceil(1024e9 / 409.6e6) = 2500 out: 28500
    # (the whole page would be 36000). Then 4 KiB across LBAs 0 and 1 (not aligned) one second later, and
    # the same 4 KiB aligned (one page).
    tr = tmp_path / "sub.csv"
    tr.write_text("0,R,0,1024\n1000000000,R,2048,4096\n2000000000,R,0,4096\n3000000000,R,0,8192\n")
    out = tmp_path / "o.csv"
    csd("replay", tiny, tr, "--prefill", "--csv", out, "--json")
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert [(int(x["count"]), int(x["bytes"])) for x in rows] == [(1, 1024), (2, 4096), (1, 4096), (2, 8192)]
    lat = [int(x["latency_ns"]) for x in rows]
    assert lat[0] == 28500
    assert lat[2] == 36000
    # two pages on different chips land at 26000 and 27000 (one firmware); the link carries 4096 bytes
    # once (26000..36000) where both pages take it to 46000
    assert (lat[1], lat[3]) == (36000, 46000)
