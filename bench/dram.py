"""bench dram: the Smart SSD paper's DRAM micro-benchmark (V-B-2, Fig. 6). Device time of the
dram-scan tasklet against the number of DRAM accesses (4-byte read + compare) per 8 KB page, and the
host doing the same scan after reading the data over the host link. Shows where the device stops
winning (paper: near 128 accesses per page on its device). The break-even is a calibration, not a
reproduction: dram_access_ns is chosen with cores and page_cycles so that it falls near 128
(docs/DEVICE-CONFIG.md); the shape around it (flat while bandwidth-bound, linear after) is the model's."""
import csv
import io
import os
import random


def main(b):
    mib = int(b.args[0]) if b.args else 64
    csd = b.tool("csd")
    img = os.path.join(b.out, "dram.img")
    data = os.path.join(b.out, "random.bin")
    if os.path.exists(img):
        os.remove(img)
    with open(data, "wb") as f:
        f.write(random.Random(6).randbytes(mib << 20))
    b.run(csd, "format", img, "--capacity", f"{2 * mib + 64}M")
    b.run(csd, "put", img, "random", data)
    import json
    get = json.loads(b.run(csd, "get", img, "random", os.path.join(b.out, "copy.bin"), "--json"))
    os.remove(os.path.join(b.out, "copy.bin"))
    link_ns = get["device_ns"]            # moving every page to the host over SATA (device model)
    accesses = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
    host = {int(r["accesses"]): int(r["wall_ns"]) for r in
            csv.DictReader(io.StringIO(b.run(b.tool("bench_host_scan"), data, 8192, *accesses)))}
    rows = []
    for a in accesses:
        r = json.loads(b.run(csd, "run", img, "dram-scan", "--input", "random", "--param", f"accesses={a}", "--json"))
        dev = r["device_ns"]
        hst = link_ns + host[a]
        rows.append({"accesses_per_page": a, "device_ms": dev / 1e6, "host_ms": hst / 1e6,
                     "host_link_ms": link_ns / 1e6, "host_cpu_ms": host[a] / 1e6,
                     "device_over_host": dev / hst, "bytes_to_host_device": r["bytes_to_host"],
                     "bytes_to_host_host": mib << 20})
    os.remove(data)
    b.write_csv(rows)
    xs = [r["accesses_per_page"] for r in rows]
    b.plot("fig6_time.png", f"DRAM micro-benchmark (paper Fig. 6), {mib} MiB, smartssd-paper preset",
           "DRAM accesses per 8 KB page (4-byte read + compare)", "time (ms)",
           {"device (virtual time)": (xs, [r["device_ms"] for r in rows]),
            "host: SATA transfer (model) + CPU scan (this machine)": (xs, [r["host_ms"] for r in rows])},
           logx=True, logy=True)
    b.plot("fig6_normalized.png", "Device time normalized to host time (paper Fig. 6)",
           "DRAM accesses per 8 KB page", "device time / host time (1 = break-even)",
           {"device / host": (xs, [r["device_over_host"] for r in rows])}, logx=True)
    # Break-even by linear interpolation between the two samples around device/host = 1.
    even = 0.0
    for lo, hi in zip(rows, rows[1:]):
        if lo["device_over_host"] <= 1 < hi["device_over_host"]:
            f = (1 - lo["device_over_host"]) / (hi["device_over_host"] - lo["device_over_host"])
            even = lo["accesses_per_page"] + f * (hi["accesses_per_page"] - lo["accesses_per_page"])
    b.headline("break-even DRAM accesses per page (device = host) (calibrated: dram_access_ns is set for a "
               "break-even near the paper's ~128)", round(even, 1), "accesses", paper=128)
    b.headline("device/host time at 32 accesses/page", rows[5]["device_over_host"], "x")
    b.finish(rows, ["accesses_per_page", "device_ms", "host_ms", "host_cpu_ms", "device_over_host"])
