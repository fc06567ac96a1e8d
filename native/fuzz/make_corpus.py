#!/usr/bin/env python3
"""Writes the seed corpora kept in the repository: fuzz_packet (first byte: payload mode, then a
smartssd.v1.Request), fuzz_frame (the same requests as the daemon's length-prefixed frames, alone and
as whole sessions, plus broken framing), fuzz_image (edits of every superblock, metadata-slot and
OOB field of the real images the target builds), fuzz_trace (a few lines of every block-trace format
csd replay reads, with their edge cases) and fuzz_nbd (NBD requests, to a device and with a hostile
daemon's replies). Encoded by hand from the wire format so it needs no protobuf package. fuzz_plan's
seeds come from tests/test_plan.c (CSD_WRITE_FUZZ_SEEDS=DIR).

    python3 native/fuzz/make_corpus.py          # every corpus under native/fuzz/corpus/"""
import os, sys

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload

def msg(*fields):
    return b"".join(fields)

def request(tag, cmd_field, body):
    return msg(field(1, 0, tag), field(cmd_field, 2, body))

seeds = {
    "identify": request(1, 18, b""),
    "stats": request(2, 19, b""),
    "list": request(3, 15, msg(field(1, 2, b"a"))),
    "stat": request(4, 16, msg(field(2, 2, b"a"))),
    "read": request(5, 12, msg(field(1, 0, 1), field(3, 0, 8))),
    "write": request(6, 13, msg(field(1, 0, 2), field(2, 0, 0), field(3, 2, b"xyz"))),
    "create_data": request(7, 10, msg(field(1, 0, 1), field(2, 2, b"new"))),
    "create_grep": request(8, 10, msg(field(1, 0, 2), field(2, 2, b"grep"),
                                      field(3, 2, msg(field(1, 2, b"pattern"), field(2, 2, b"eta"))))),
    "create_output": request(9, 10, msg(field(1, 0, 3), field(6, 0, 10))),
    "execute": request(10, 11, msg(field(1, 0, 1 << 40), field(2, 0, (1 << 40) + 1),
                                   field(3, 2, msg(field(1, 0, 1), field(4, 0, 1))))),
    "read_output": request(11, 12, msg(field(1, 0, (1 << 40) + 1))),
    "trim": request(12, 17, msg(field(1, 0, 2), field(2, 0, 0), field(3, 0, 4096))),
    "rename": request(13, 20, msg(field(1, 0, 2), field(2, 2, b"c"))),
    "delete": request(14, 14, msg(field(1, 0, 2))),
    "block_info": request(15, 45, b""),
    "block_submit": request(16, 43, msg(
        field(1, 2, msg(field(1, 0, 1), field(2, 0, 2), field(3, 0, 0), field(4, 0, 2), field(7, 0, 7))),
        field(1, 2, msg(field(1, 0, 2), field(2, 0, 1), field(3, 0, 0), field(4, 0, 2), field(8, 0, 1))),
        field(1, 2, msg(field(1, 0, 3), field(2, 0, 3), field(3, 0, 1), field(4, 0, 1), field(5, 0, 1 << 20))))),
    "block_poll": request(17, 44, msg(field(1, 0, 3), field(3, 0, 1 << 21))),
}
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "fuzz_packet")
os.makedirs(out, exist_ok=True)
for name, body in seeds.items():
    for mode in (0, 1):
        with open(os.path.join(out, f"{name}-{mode}"), "wb") as f:
            f.write(bytes([mode]) + body)


# ---------------------------------------------------------------- fuzz_frame: the daemon's byte stream
def frame(body):
    return len(body).to_bytes(4, "little") + body


def frame_seeds():
    out = {}
    for name, body in seeds.items():
        out[f"one-{name}"] = frame(body)
    # a whole tasklet session on one connection: create tasklet and output, execute, read, delete
    out["session"] = b"".join(frame(seeds[k]) for k in ("create_grep", "create_output", "execute", "read_output",
                                                          "read_output", "delete"))
    out["pipelined"] = b"".join(frame(seeds[k]) for k in ("identify", "stats", "list", "stat", "read", "write"))
    out["empty-frame"] = frame(b"")
    out["oversized"] = (64 << 20 | 1).to_bytes(4, "little") + b"\x08\x01"
    out["at-limit-then-eof"] = (64 << 20).to_bytes(4, "little") + b"\x08\x01\x92\x01"
    out["cut-header"] = b"\x10\x00"
    out["cut-body"] = (100).to_bytes(4, "little") + seeds["identify"]
    out["junk-body"] = frame(b"\xff\xff\xff\xff")
    return out


# ---------------------------------------------------------------- fuzz_image: edits of a real image
def edit(area, index, off, data):
    return bytes([area]) + index.to_bytes(2, "little") + off.to_bytes(2, "little") + bytes([len(data)]) + data


SB, SLOT_A, SLOT_B, OOB, DATA, TRUNC = range(6)
RESEAL_SB, RESEAL_META, RESEAL_OOB, RESEAL_DATA = 1, 2, 4, 8


def image_seeds():
    out = {}
    for base in range(3):
        out[f"b{base}-as-is"] = bytes([base, 0])
        # every superblock header field, CRC re-sealed so the field itself is judged
        for name, off, val in (("version", 8, 2), ("header", 12, 64), ("capacity", 16, 1 << 40), ("page", 24, 512),
                               ("ppb", 28, 3), ("bpp", 32, 1), ("units", 36, 7), ("physical", 40, 1 << 33),
                               ("slot-bytes", 48, 1), ("slot-a", 56, 1 << 20), ("slot-b", 64, 0), ("oob", 72, 3),
                               ("data", 80, 1 << 50), ("file", 88, 1 << 16), ("text-len", 96, 16000)):
            out[f"b{base}-sb-{name}"] = bytes([base, RESEAL_SB]) + edit(SB, 0, off, val.to_bytes(8, "little"))
        out[f"b{base}-sb-magic"] = bytes([base, RESEAL_SB]) + edit(SB, 0, 0, b"CSDIMAGX")
        out[f"b{base}-sb-params"] = bytes([base, RESEAL_SB]) + edit(SB, 0, 128, b"page_bytes = 7\nchannels = 0\n")
        out[f"b{base}-sb-crc"] = bytes([base, 0]) + edit(SB, 0, 100, b"\x00\x00\x00\x00")
        # the metadata slots: header and payload fields, each slot
        for slot, area in (("a", SLOT_A), ("b", SLOT_B)):
            for name, off, val in (("seq", 8, 1 << 62), ("len", 16, 1 << 31), ("next-id", 32, 1),
                                   ("next-seq", 40, 0), ("voids", 48, 300), ("objects", 52, 100000),
                                   ("obj-id", 56, 0), ("name-len", 96, 2000)):
                out[f"b{base}-{slot}-{name}"] = bytes([base, RESEAL_META]) + edit(area, 0, off,
                                                                                  val.to_bytes(8, "little"))
            out[f"b{base}-{slot}-torn"] = bytes([base, 0]) + edit(area, 0, 40, b"\x01")
        # OOB records: every field of a few records, CRC re-sealed
        for idx in (0, 1, 96, 192):
            for name, off, val, n in (("magic", 0, 0x31424F58, 4), ("kind", 4, 3, 1), ("ms", 6, 1000, 2),
                                      ("copies", 8, 1 << 31, 4), ("valid", 12, 0, 4), ("obj", 16, 1 << 40, 8),
                                      ("page", 24, 1 << 30, 8), ("seq", 32, 0, 8), ("first", 40, 1 << 50, 8),
                                      ("pages", 48, 0xFFFFFFFF, 4), ("dcrc", 52, 1, 4), ("secs", 56, 7, 4)):
                out[f"b{base}-oob{idx}-{name}"] = bytes([base, RESEAL_OOB]) + edit(OOB, idx, off,
                                                                                   val.to_bytes(n, "little"))
        out[f"b{base}-data-resealed"] = bytes([base, RESEAL_DATA]) + edit(DATA, 0, 10, b"changed")
        out[f"b{base}-data-rot"] = bytes([base, 0]) + edit(DATA, 96, 0, b"\xff" * 16)
        for n in (0, 1, 5, 20, 200):
            out[f"b{base}-truncate-{n}"] = bytes([base, 0]) + edit(TRUNC, n, 0, b"")
    return out


def write_all(target, items, where=None):
    d = where or os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, body in items.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(body)


if len(sys.argv) <= 1:
    write_all("fuzz_frame", frame_seeds())
    write_all("fuzz_image", image_seeds())


# ---------------------------------------------------------------- block traces (csd replay's formats)
def trace_seeds():
    """Byte 0: format (0 auto, 1 msr, 2 systor, 3 tencent, 4 csv, 5 disksim, 6 blkparse, 7 biotracer) and
    time unit (bits 4-5); byte 1: bit 0 = map on a namespace, bit 7 = a limit; then the file."""
    bt = lambda *f: "\t\t".join(map(str, f))
    files = {
        "msr": "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
               "128166372003061629,hm,1,Read,0,4096,5023\n128166372003061729,hm,1,Write,8192,8192,77\n",
        "systor": "Timestamp,Response,IOType,LUN,Offset,Size\n1487015816.219718,0.000326,W,4,4096,4096\n"
                  "1487015816.3,0.0001,R,4,1000,512\n",
        "tencent": "Timestamp,Offset,Size,IOType,VolumeID\n1538323200,16,8,1,1283\n1538323201,100,1,0,1283\n",
        "csv": "timestamp,op,offset,size\n0,R,0,4096\n1500,W,8192,100\n2500,F,0,0\n3000,T,40960,8192\n",
        "disksim": "0.000000 0 0 8 1\n1.5 0 16 16 0\n2500 1 2040 8 3\n",
        "blkparse": "  8,0    0        1     0.000000000  1234  A   W 1024 + 8 <- (8,1) 0\n"
                    "  8,0    0        2     0.000000500  1234  Q   W 1024 + 8 [kworker/0:1]\n"
                    "  8,0    0        3     0.000001000  1234  G   W 1024 + 8 [kworker/0:1]\n"
                    "  8,0    0        7     0.000003000  1234  D   W 1024 + 8 [kworker/0:1]\n"
                    "  8,0    1        9     0.000200000   555  Q WBS 16 + 8 [jbd2/sda1-8]\n"
                    "  8,0    1       10     0.000300000   555  Q FWFS 24 + 8 [jbd2/sda1-8]\n"
                    "  8,0    1       11     0.000400000   555  Q FWS [jbd2/sda1-8]\n"
                    "  8,0    1       15     0.000800000   555  Q  DE 400 + 8 [blkdiscard]\n"
                    "  8,0    0        0     0.001100000     0  m   N cfq schedule dispatch\n"
                    "CPU0 (8,0):\n Reads Queued:           1,        8KiB\n",
        "blkparse-d": "  259,0    2        1     0.000000000  3021  D  WS 1024 + 16 [fio]\n"
                      "  259,0    2        3     0.000060000  3021  D  FN [fio]\n"
                      "  259,0    2        4     0.000070000  3021  D   R 64 + 8 [fio]\n",
        "biotracer": "\n".join([bt(0, 8, 4096, 4, "1.000000000", "1.000010000", "1.000020000", "1.000300000"),
                                bt(24, 9, 4096, 0, "1.000350000", "1.001010000", "1.001020000", "1.001200000"),
                                bt(100, 2, 1024, 5, "1400000000.000000000", "1400000000.000001000",
                                   "1400000000.000002000", "1400000000.000100000"),
                                bt(40, 8, 4096, 0, "1.001100000", "1400000000.000200000", "1400000000.000210000",
                                   "1400000000.000400000")]) + "\n",
    }
    order = ["auto", "msr", "systor", "tencent", "csv", "disksim", "blkparse", "biotracer"]
    out = {}
    for name, text in files.items():
        forced = order.index(name.split("-")[0])
        out[f"{name}-auto"] = bytes([0, 1]) + text.encode()
        out[f"{name}-forced"] = bytes([forced | 0x10, 0x80]) + text.encode()
    return out


if len(sys.argv) <= 1:
    write_all("fuzz_trace", trace_seeds())


# ---------------------------------------------------------------- the Java response parser (Jazzer)
def java_seeds():
    """Byte 0: bit 0 = raw (no length prefix, then hang up), bits 1.. = which call; then a Response."""
    progress = msg(field(1, 0, 3), field(2, 0, 9), field(4, 0, 1), field(11, 0, 2))
    read_reply = msg(field(1, 2, bytes(range(256)) * 20), field(3, 2, progress), field(4, 0, 1))
    replies = {
        "read-5k": msg(field(1, 0, 9), field(12, 2, read_reply), field(5, 0, 12345)),
        "read-small": msg(field(12, 2, msg(field(1, 2, b"abc"), field(4, 0, 1)))),
        "error": msg(field(2, 0, 2), field(3, 2, b"stat: no object named 'some/name'")),
        "identify": msg(field(18, 2, msg(field(1, 2, b"smartssd"), field(3, 2, msg(field(1, 0, 2), field(7, 0, 4096))),
                                         field(4, 0, 1 << 20), field(10, 2, b"grep")))),
        "list": msg(field(15, 2, msg(field(1, 2, msg(field(1, 0, 1), field(3, 2, b"a/b"), field(4, 0, 10))),
                                     field(2, 0, 1)))),
        "stat": msg(field(16, 2, msg(field(1, 2, msg(field(1, 0, 5), field(3, 2, b"some/name"), field(4, 0, 3)))))),
        "empty": b"",
        "bad-utf8": msg(field(3, 2, b"\xff\xfe")),
    }
    out = {}
    for name, body in replies.items():
        for call in range(6):
            out[f"{name}-c{call}"] = bytes([call << 1]) + body
        out[f"{name}-raw"] = bytes([1]) + len(body).to_bytes(4, "little") + body[: len(body) // 2]
    out["huge-length-raw"] = bytes([1]) + (1 << 31).to_bytes(4, "little")
    return out


if len(sys.argv) <= 1:
    write_all("responses", java_seeds(), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
              "device-runtime", "src", "test", "resources", "io", "smartssd", "device",
              "ResponseParserFuzzTestInputs", "responses"))


# ---------------------------------------------------------------- the NBD export's request handling
def nbd_req(op, flags, off, count, tag=0):
    """One fuzz_nbd request: op (1 read, 2 write, 3 trim, 4 zero, 5 flush), flags (1 may trim, 2 fast
    zero), offset and length in 512-byte units (length's third byte with bit 7: up to 4 GiB)."""
    return bytes([op, flags]) + (off // 512).to_bytes(2, "little") + (count // 512).to_bytes(2, "little") + \
        bytes([0, tag])


def nbd_seeds():
    mib = 1 << 20
    honest = {
        "write-read": [nbd_req(2, 0, 0, 4096, 1), nbd_req(1, 0, 0, 4096)],
        "multi-page": [nbd_req(2, 0, 8192, 65536, 7), nbd_req(1, 0, 4096, 131072), nbd_req(3, 0, 16384, 8192),
                       nbd_req(1, 0, 8192, 65536)],
        "zeroes": [nbd_req(2, 0, 0, 16384, 3), nbd_req(4, 1, 0, 4096), nbd_req(4, 0, 4096, 4096),
                   nbd_req(4, 2, 8192, 4096), nbd_req(4, 3, 8192, 4096), nbd_req(1, 0, 0, 16384)],
        "flush": [nbd_req(2, 0, 0, 4096, 9), nbd_req(5, 0, 0, 0), nbd_req(5, 0, 512, 512, 1)],
        "unaligned": [nbd_req(1, 0, 512, 4096), nbd_req(2, 0, 0, 1024, 2), nbd_req(3, 0, 4096, 512),
                      nbd_req(1, 0, 0, 0)],
        "past-end": [nbd_req(1, 0, mib - 4096, 8192), nbd_req(2, 0, mib, 4096, 4), nbd_req(3, 0, mib - 4096, 4096),
                     nbd_req(1, 0, mib - 4096, 4096)],
        "whole": [nbd_req(2, 0, 0, mib, 5), nbd_req(1, 0, 0, mib), nbd_req(3, 0, 0, mib), nbd_req(1, 0, 0, mib)],
        "oversized": [bytes([1, 0, 0, 0, 0, 0, 0x90, 0])],
        "bad-op": [nbd_req(0, 0, 0, 4096), bytes([5, 0, 0, 0, 0, 0, 0, 0])],
    }
    out = {name: bytes([0]) + b"".join(reqs) for name, reqs in honest.items()}
    # hostile: count, requests, then the daemon's replies (2-byte little-endian length, then bytes)
    info = msg(field(2, 0, 0), field(45, 2, msg(field(1, 0, 4096), field(2, 0, 256))))
    ident = msg(field(18, 2, msg(field(11, 2, msg(field(1, 2, b"paced"), field(2, 2, b"1"))))))
    submit_ok = msg(field(43, 2, msg(field(1, 0, 1))))
    cpl = msg(field(1, 0, 1), field(2, 0, 1), field(10, 2, bytes(4096)), field(12, 0, 1))
    poll_ok = msg(field(44, 2, msg(field(1, 2, cpl))))
    poll_short = msg(field(44, 2, msg(field(1, 2, msg(field(1, 0, 1), field(2, 0, 1), field(10, 2, b"xx"),
                                                       field(12, 0, 1))))))
    poll_alien = msg(field(44, 2, msg(field(1, 2, msg(field(1, 0, 99), field(12, 0, 1))))))
    busy = msg(field(2, 0, 11), field(3, 2, b"block_submit: poll completions first"))
    rep = lambda *bodies: b"".join(len(b).to_bytes(2, "little") + b for b in bodies)
    read = nbd_req(1, 0, 0, 4096)
    for name, replies in {"ok": rep(info, ident, submit_ok, poll_ok), "short-data": rep(info, ident, submit_ok, poll_short),
                          "alien-id": rep(info, ident, submit_ok, poll_alien), "busy": rep(info, ident, busy, poll_ok),
                          "garbage": rep(info, ident, b"\xff\xff\xff", b"\x08"), "cut": rep(info, ident)[:3]}.items():
        out[f"hostile-{name}"] = bytes([1, 1]) + read + replies
    return out


if len(sys.argv) <= 1:
    write_all("fuzz_nbd", nbd_seeds())
