#!/usr/bin/env python3
"""Writes seed packets for fuzz_packet (first byte: payload mode, then a smartssd.v1.Request).
Encoded by hand from the wire format so it needs no protobuf package."""
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
}
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "fuzz_packet")
os.makedirs(out, exist_ok=True)
for name, body in seeds.items():
    for mode in (0, 1):
        with open(os.path.join(out, f"{name}-{mode}"), "wb") as f:
            f.write(bytes([mode]) + body)
