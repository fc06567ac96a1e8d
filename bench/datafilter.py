"""bench datafilter: the Smart SSD paper's data-filter experiment (V-C-4). One 4-byte integer in a
32-byte structure, 60% of structures match. Three ways: the filter tasklet returning only the LBAs of
pages holding a match (it stops looking at a page at its first match), the filter tasklet returning
every matching structure (all comparisons on the device), and the host reading everything over the
link and comparing there. Paper: LBAs 40% faster than all comparisons on the device, 18% slower than
the host."""
import json
import os
import random
import struct
import time


def main(b):
    mib = int(b.args[0]) if b.args else 128
    n = (mib << 20) // 32
    csd = b.tool("csd")
    img = os.path.join(b.out, "filter.img")
    data = os.path.join(b.out, "structs.bin")
    if os.path.exists(img):
        os.remove(img)
    rng = random.Random(60)
    # value < 600 with values uniform in [0, 1000): 60% selectivity
    with open(data, "wb") as f:
        chunk = bytearray()
        for i in range(n):
            chunk += struct.pack(">I", rng.randrange(1000)) + bytes(28)
            if len(chunk) >= 1 << 22:
                f.write(chunk)
                chunk = bytearray()
        f.write(chunk)
    b.run(csd, "format", img, "--capacity", f"{2 * mib + 64}M")
    b.run(csd, "put", img, "structs", data)
    common = ["--input", "structs", "--param", "entry_bytes=32", "--param", "field_offset=0", "--param",
              "field_width=4", "--param", "op=lt", "--param", "value=600"]
    out = {}
    for mode in ("lbas", "records"):
        t0 = time.time()
        r = json.loads(b.run(csd, "run", img, "filter", *common, "--param", f"mode={mode}", "--json"))
        out[mode] = {"device_ns": r["device_ns"], "commands_ns": r["commands_device_ns"],
                     "bytes_to_host": r["bytes_to_host"], "rows": r["row_count"], "wall_s": time.time() - t0}
    # Host: every byte crosses the link (device model of `get`), then a CPU scan on this machine.
    t0 = time.time()
    g = json.loads(b.run(csd, "get", img, "structs", os.path.join(b.out, "copy.bin"), "--json"))
    with open(os.path.join(b.out, "copy.bin"), "rb") as f:
        buf = f.read()
    matches = sum(1 for (v,) in struct.iter_unpack(">I28x", buf) if v < 600)   # the answer, checked below
    os.remove(os.path.join(b.out, "copy.bin"))
    assert matches == out["records"]["rows"], (matches, out["records"]["rows"])
    # The host's compare loop, timed in C on this machine: 256 reads per 8 KB page at a 32-byte stride
    # touch exactly the integer of every structure (bench_host_scan).
    import csv as _csv
    import io as _io
    scan = next(_csv.DictReader(_io.StringIO(b.run(b.tool("bench_host_scan"), data, 8192, 256))))
    host_cpu_ns = int(scan["wall_ns"])
    os.remove(data)
    out["host"] = {"device_ns": g["device_ns"] + host_cpu_ns, "commands_ns": g["device_ns"],
                   "bytes_to_host": mib << 20, "rows": matches, "wall_s": time.time() - t0}
    rows = [{"version": k, "time_ms": v["device_ns"] / 1e6, "bytes_to_host": v["bytes_to_host"], "rows": v["rows"],
             "wall_s": v["wall_s"]} for k, v in out.items()]
    b.write_csv(rows)
    b.plot("datafilter.png", f"Data filter (paper V-C-4), {mib} MiB of 32-byte structures, 60% selectivity",
           "version", "time (ms, device model)", {"time": ([r["version"] for r in rows], [r["time_ms"] for r in rows])},
           kind="bar")
    lb, rec, host = out["lbas"]["device_ns"], out["records"]["device_ns"], out["host"]["device_ns"]
    b.headline("LBA filter speed-up over all comparisons on the device", rec / lb, "x", paper=1.4)
    b.headline("LBA filter time / host time", lb / host, "x", paper=1.18)
    b.finish(rows, ["version", "time_ms", "bytes_to_host", "rows", "wall_s"])
