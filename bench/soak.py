"""bench soak: 64 clients on one csdd daemon for minutes (docs/RELIABILITY.md).

    bin/smartssd bench soak [--clients 64] [--seconds 300] [--rounds 5] [--seed 1]

Each client has its own connection and mixes creates, writes, reads, grep tasklets (over its own
objects and one shared object), listings, stats and deletes; clients hang up and reconnect between
rounds. Afterwards every client's commands are replayed serially on a fresh in-process device and
must give the same results (native/bench/bench_soak.c). Writes out/bench/soak/: results.csv (the
daemon's RSS, anonymous RSS and open descriptors once a second), latency.csv (percentiles per
command), memory.png, latency.png, summary.json.
"""
import csv
import json
import os


def arg(b, name, default):
    return type(default)(b.args[b.args.index(name) + 1]) if name in b.args else default


def main(b):
    clients, seconds, rounds, seed = (arg(b, "--clients", 64), arg(b, "--seconds", 300), arg(b, "--rounds", 5),
                                      arg(b, "--seed", 1))
    work = os.path.join(b.out, "work")
    os.makedirs(work, exist_ok=True)
    series, lat, js = (os.path.join(b.out, "results.csv"), os.path.join(b.out, "latency.csv"),
                       os.path.join(work, "soak.json"))
    out = b.run(b.tool("bench_soak"), "--csdd", b.tool("csdd"), "--dir", work, "--clients", clients, "--seconds",
                seconds, "--rounds", rounds, "--seed", seed, "--series", series, "--latency", lat, "--json", js,
                "--check")
    print(out)
    with open(js) as f:
        r = json.load(f)
    with open(series) as f:
        rows = list(csv.DictReader(f))
    t = [float(x["t_s"]) for x in rows]
    b.plot("memory.png", f"csdd with {clients} clients for {seconds} s ({rounds} rounds)", "wall time (s)",
           "MiB, or open descriptors",
           {"RSS (MiB)": (t, [int(x["rss_kib"]) / 1024 for x in rows]),
            "anonymous RSS (MiB)": (t, [int(x["rss_anon_kib"]) / 1024 for x in rows]),
            "open descriptors": (t, [int(x["fds"]) for x in rows])})
    with open(lat) as f:
        lrows = list(csv.DictReader(f))
    names = [x["command"] for x in lrows]
    b.plot("latency.png", "command latency over the daemon's socket", "command", "latency (ms, log scale)",
           {p: (names, [float(x[p + "_us"]) / 1000 for x in lrows]) for p in ("p50", "p99", "p999")},
           kind="bar", logy=True)
    allp = next(x for x in lrows if x["command"] == "all")
    b.headline("commands", r["commands"], "commands")
    b.headline("throughput", r["commands_per_s"], "commands/s")
    b.headline("replay mismatches", r["mismatches"], "commands")
    b.headline("latency p50 (all)", float(allp["p50_us"]) / 1000, "ms")
    b.headline("latency p99 (all)", float(allp["p99_us"]) / 1000, "ms")
    b.headline("latency p99.9 (all)", float(allp["p999_us"]) / 1000, "ms")
    b.headline("open descriptors before/after each round", r["fds_before"], "fds (leak: %s)" % r["fd_leak"])
    b.headline("anonymous RSS growth, round 1 to end", (r["rss_anon_end_kib"] - r["rss_anon_round1_kib"]) / 1024,
               "MiB")
    b.headline("peak RSS", r["rss_peak_kib"] / 1024, "MiB")
    b.finish(lrows, ["command", "count", "p50_us", "p90_us", "p99_us", "p999_us", "max_us"])
