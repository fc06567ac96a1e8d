#!/usr/bin/env python3
"""WorldCup98 access-log records: a generator with the archive's published shape, a decoder, and
reference answers for the weblog-q1 / weblog-q2 / filter tasklets (written independently of the C
code, so tests can compare the two).

Record format (20 bytes, big-endian, padded with zero bytes to --entry-bytes):
    timestamp u32, clientID u32, objectID u32, size u32 (0xFFFFFFFF = no size),
    method u8, status u8 (bits 7-6 HTTP version, bits 5-0 code index), type u8, server u8
    (bits 7-5 region, bits 4-0 server).

Subcommands (every answer is printed as tab-separated lines):
    wc98.py gen OUT --records N [--entry-bytes 20] [--seed 1] [--mix realistic|uniform]
        write N records to OUT. realistic: the published shares of the WorldCup98 logs (docs/WEBLOG.md);
        uniform: every region 0-7 and type byte 0-15 equally likely (exercises region-4..7, OTHER).
    wc98.py decode FILE [--entry-bytes 20] [--limit N]
        timestamp clientID objectID size method status type server, one record a line.
    wc98.py q1 FILE [--entry-bytes 20] [--offset O --length L]
        region <TAB> count, for regions with count > 0, in region order.
    wc98.py q2 FILE [--entry-bytes 20] [--top-n 3] [--offset O --length L]
        region <TAB> type <TAB> count <TAB> rank; rank 1..top_n for the top types by count (ties:
        lower type index first), 0 otherwise; rows by region, then rank (ranked first), then type.
    wc98.py filter FILE --field-offset F --field-width W --op eq|ne|lt|le|gt|ge --value V
            [--entry-bytes 20] [--big-endian 1] [--signed 0] [--mode records|lbas]
            [--page-bytes 4096] [--offset O --length L]
        records: offset <TAB> record-hex per match; lbas: page index of each page holding a match.
--offset/--length select the extent whose records start in [O, O+L) (the tasklets' rule).
"""
import argparse
import math
import random
import struct
import sys

REGIONS = ["Santa Clara", "Plano", "Herndon", "Paris",
           "region-4", "region-5", "region-6", "region-7"]
TYPES = ["HTML", "IMAGE", "AUDIO", "VIDEO", "JAVA", "FORMATTED", "DYNAMIC", "TEXT",
         "COMPRESSED", "PROGRAMS", "DIRECTORY", "ICL", "OTHER"]
# Published shares (worldcup98-facts.md).
REGION_SHARES = [(0, 16.60), (1, 44.50), (2, 25.91), (3, 12.99)]
REGION_SERVERS = {0: range(0, 6), 1: range(0, 11), 2: range(0, 10), 3: range(0, 6)}
TYPE_SHARES = [(1, 86.3), (0, 11.2), (10, 1.2), (4, 1.1), (6, 0.2)]
STATUS_SHARES = [(2, 84.4), (13, 15.2), (8, 0.4)]      # code index: 200, 304, 206
VERSION_SHARES = [(1, 89.5), (2, 10.5)]                 # HTTP/1.0, HTTP/1.1
NO_SIZE = 0xFFFFFFFF
T0 = 893_980_800                                        # 1998-05-01 00:00:00 GMT
MAX_CLIENT = 2_770_107
MAX_OBJECT = 89_996
MAX_SIZE = 64_219_310


def pick(rng, shares):
    x = rng.random() * sum(s for _, s in shares)
    for v, s in shares:
        x -= s
        if x < 0:
            return v
    return shares[-1][0]


def gen_record(rng, ts, mix):
    if mix == "uniform":
        region = rng.randrange(8)
        server = rng.randrange(32)
        typ = rng.randrange(16)
    else:
        region = pick(rng, REGION_SHARES)
        server = rng.choice(REGION_SERVERS[region])
        typ = pick(rng, TYPE_SHARES)
    client = min(MAX_CLIENT, int(MAX_CLIENT * rng.random() ** 3))
    obj = min(MAX_OBJECT, int(MAX_OBJECT * rng.random() ** 4))
    if rng.random() < 0.024:
        size = NO_SIZE
    else:   # log-normal around the published mean transfer size (3,962.68 bytes)
        size = min(MAX_SIZE, int(rng.lognormvariate(math.log(3962.68) - 1.0, 1.4)))
    status = pick(rng, VERSION_SHARES) << 6 | pick(rng, STATUS_SHARES)
    return struct.pack(">IIIIBBBB", ts, client, obj, size, 0, status, typ, region << 5 | server)


def cmd_gen(a):
    if a.entry_bytes < 20:
        sys.exit("entry-bytes must be at least 20")
    rng = random.Random(a.seed)
    pad = bytes(a.entry_bytes - 20)
    clock = 0.0
    with open(a.out, "wb") as f:
        for _ in range(a.records):
            clock += rng.expovariate(178.0)             # ~178 requests/s over the 88 days
            f.write(gen_record(rng, T0 + int(clock), a.mix) + pad)


def records(a):
    """(offset, record bytes) of the records that start in the selected extent."""
    data = open(a.file, "rb").read()
    e = a.entry_bytes
    if len(data) % e:
        sys.exit("object size %d is not a multiple of entry_bytes %d" % (len(data), e))
    lo = a.offset
    hi = len(data) if a.length is None else min(len(data), a.offset + a.length)
    first = -(-lo // e) * e
    for off in range(first, hi, e):
        yield off, data[off:off + e]


def cmd_decode(a):
    for n, (_, r) in enumerate(records(a)):
        if a.limit is not None and n >= a.limit:
            break
        print("\t".join(str(x) for x in struct.unpack(">IIIIBBBB", r[:20])))


def cmd_q1(a):
    counts = [0] * 8
    for _, r in records(a):
        counts[r[19] >> 5] += 1
    for reg, c in enumerate(counts):
        if c:
            print("%s\t%d" % (REGIONS[reg], c))


def cmd_q2(a):
    counts = [[0] * 13 for _ in range(8)]
    for _, r in records(a):
        counts[r[19] >> 5][min(r[18], 12)] += 1
    for reg in range(8):
        present = [(t, c) for t, c in enumerate(counts[reg]) if c]
        ranked = sorted(present, key=lambda tc: (-tc[1], tc[0]))[:a.top_n]
        rank = {t: i + 1 for i, (t, _) in enumerate(ranked)}
        rows = sorted(present, key=lambda tc: (0, rank[tc[0]]) if tc[0] in rank else (1, tc[0]))
        for t, c in rows:
            print("%s\t%s\t%d\t%d" % (REGIONS[reg], TYPES[t], c, rank.get(t, 0)))


def cmd_filter(a):
    ops = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
           "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}
    cmp = ops[a.op]
    last_page = None
    for off, r in records(a):
        field = r[a.field_offset:a.field_offset + a.field_width]
        v = int.from_bytes(field, "big" if a.big_endian else "little", signed=bool(a.signed))
        if not cmp(v, a.value):
            continue
        if a.mode == "records":
            print("%d\t%s" % (off, r.hex()))
        elif off // a.page_bytes != last_page:
            last_page = off // a.page_bytes
            print(last_page)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--records", type=int, required=True)
    g.add_argument("--entry-bytes", type=int, default=20)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--mix", choices=["realistic", "uniform"], default="realistic")
    for name in ("decode", "q1", "q2", "filter"):
        s = sub.add_parser(name)
        s.add_argument("file")
        s.add_argument("--entry-bytes", type=int, default=20)
        s.add_argument("--offset", type=int, default=0)
        s.add_argument("--length", type=int, default=None)
        if name == "decode":
            s.add_argument("--limit", type=int, default=None)
        if name == "q2":
            s.add_argument("--top-n", type=int, default=3)
        if name == "filter":
            s.add_argument("--field-offset", type=int, required=True)
            s.add_argument("--field-width", type=int, choices=[1, 2, 4, 8], required=True)
            s.add_argument("--op", choices=["eq", "ne", "lt", "le", "gt", "ge"], required=True)
            s.add_argument("--value", type=int, required=True)
            s.add_argument("--big-endian", type=int, default=1)
            s.add_argument("--signed", type=int, default=0)
            s.add_argument("--mode", choices=["records", "lbas"], default="records")
            s.add_argument("--page-bytes", type=int, default=4096)
    a = p.parse_args()
    {"gen": cmd_gen, "decode": cmd_decode, "q1": cmd_q1, "q2": cmd_q2, "filter": cmd_filter}[a.cmd](a)


if __name__ == "__main__":
    main()
