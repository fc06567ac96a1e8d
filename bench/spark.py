"""bench spark: the same selective queries through Spark's `smartssd` format (filters, aggregates and
top-N pushed into the device as a `plan` tasklet), through Spark's own CSV reader on a local copy,
through Parquet on a local copy, and through the `smartssd` format over the same Parquet data written
by Spark to the device (path smartssd_parquet), in one run, on one web-log CSV dataset.

    bin/smartssd bench spark [--size SIZE] [--samples 5]   # SIZE of the CSV dataset, default 1G (e.g. 64M, 200M)
    bin/smartssd bench spark [SIZE]          # the same, positional
    bin/smartssd bench spark --size 256M --ab 7   # then 7 paired runs per query: one partition per extent vs the defaults
    bin/smartssd bench spark --size 256M --ab 7 --conf spark.smartssd.requests_in_flight=4   # a session conf entry

Queries: a filter + group-by count, a top-N, a plain filter returning few rows. After one run of every
query on every path (the JVM warm for all of them alike) and a warm-up of each, SAMPLES (default 5,
at least 5) timed runs of each query go round the four paths in turn; each timed run loads its
DataFrame from the path and then runs the query, so listing files and reading Parquet footers are
inside the time for Spark's reader and the smartssd table alike. Reports per (query, path) the median
wall time with min and max, bytes to host (smartssd: result bytes over the host link; CSV/Parquet:
bytes Spark read from the local file), flash bytes the device read; the ratios smartssd/CSV,
smartssd/Parquet and smartssd_parquet/Parquet as medians of the ratios sample by sample (targets of
docs/PERFORMANCE.md, bench/targets.py, judged on the median); and checks that the four answers agree. The dataset, device image and Parquet copy are kept in
out/bench/spark/data/ for reruns of the same size.
"""
import argparse
import csv
import os
import subprocess
import sys

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JVM_FLAGS = ("-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector "
             + " ".join(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
                 "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
                 "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
                 "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar"))
             + " --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED"
             + " -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true").split()


def size_bytes(s):
    s = s.strip().upper().rstrip("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if s[-1:] in "KMG" else s) * mult)


def classpath():
    """The examples module's classpath (the bench driver, the connector, Spark): bin/smartssd builds the
    module with the reactor (no offline mode, nothing installed) and passes it on."""
    cp = os.environ.get("SMARTSSD_EXAMPLES_CP")
    if not cp:
        sys.exit("bench spark: run it as `bin/smartssd bench spark` (it builds the examples module first)")
    return cp


def parse(args):
    p = argparse.ArgumentParser(prog="bin/smartssd bench spark", description=__doc__.split("\n")[0])
    p.add_argument("--size", help="size of the CSV dataset (K/M/G suffixes), default 1G")
    p.add_argument("size_pos", nargs="?", metavar="SIZE", help="the same, positional")
    p.add_argument("--ab", type=int, default=0, metavar="PAIRS",
                   help="then PAIRS paired runs per query and smartssd table: one partition per extent"
                        " (pushdown.aggregate.complete and pushdown.topn.one_partition off) against the defaults")
    p.add_argument("--samples", type=int, default=5, help="timed runs per query and path (default 5, at least 5)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark conf entry for the bench's session (a JVM system property), e.g."
                        " spark.smartssd.requests_in_flight=4")
    a = p.parse_args(args)
    if a.size and a.size_pos:
        p.error("give the size once (--size SIZE or SIZE)")
    size = a.size or a.size_pos or "1G"
    try:
        if size_bytes(size) <= 0:
            raise ValueError
    except ValueError:
        p.error(f"size '{size}' is not a size like 64M or 1G")
    for c in a.conf:
        if "=" not in c or not c.startswith("spark."):
            p.error(f"--conf '{c}' is not spark.KEY=VALUE")
    if a.samples < 5:
        p.error(f"--samples {a.samples}: every figure is the median of at least 5 samples")
    return size, a.ab, a.conf, a.samples


def main(b):
    size, ab, conf, samples = parse(b.args)
    nbytes = size_bytes(size)
    os.chdir(ROOT)
    cp = classpath()
    raw = os.path.join(b.out, "raw.csv")
    data = os.path.join(b.out, "data")
    cmd = [os.environ.get("SMARTSSD_JAVA", "java"), "-Xmx3g", *JVM_FLAGS,
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dlog4j2.level=warn", *(f"-D{c}" for c in conf), "-cp", cp, "io.smartssd.examples.bench.SparkBench", data, str(nbytes), raw, str(samples), str(ab)]
    if subprocess.run(cmd).returncode:
        sys.exit("the Spark bench failed")
    with open(raw) as f:
        runs = list(csv.DictReader(f))
    walls = {}
    for r in runs:
        walls.setdefault((r["query"], r["path"]), []).append(float(r["wall_s"]))
    # one row per (query, path): the median wall time; the rest is the same in every sample
    rows = []
    for key, ws in walls.items():
        first = next(r for r in runs if (r["query"], r["path"]) == key)
        m = benchlib.median(ws)
        rows.append(dict(first, wall_s=m["median"], wall_min_s=m["min"], wall_max_s=m["max"], samples=len(ws),
                         answer="ok" if all(r["answer"] == "ok" for r in runs if (r["query"], r["path"]) == key)
                         else "MISMATCH"))
    by = {(r["query"], r["path"]): r for r in rows}
    table = []
    for r in rows:
        dev = by[(r["query"], "smartssd")]
        wall = float(r["wall_s"])
        table.append({"query": r["query"], "path": r["path"], "wall_s": wall, "wall_min_s": r["wall_min_s"],
                      "wall_max_s": r["wall_max_s"], "samples": r["samples"],
                      "smartssd_over_this": float(dev["wall_s"]) / wall if wall else 0.0,
                      "MB_to_host": int(r["bytes_to_host"]) / 1e6,
                      "pct_of_raw_to_host": 100.0 * int(r["bytes_to_host"]) / int(r["raw_bytes"]),
                      "rows": int(r["rows"]), "device_ms": float(r["device_ms"]),
                      "flash_MB": int(r["flash_bytes"]) / 1e6, "answer": r["answer"]})
    b.write_csv(table)
    b.write_csv(runs, list(runs[0].keys()), name="samples.csv")
    queries = list(dict.fromkeys(r["query"] for r in rows))
    paths = ["smartssd", "csv", "parquet", "smartssd_parquet"]
    b.plot("wall.png", f"Spark, {size} web-log CSV, local[2]: wall time per query (median of {samples}, load + query)",
           "query", "wall time (s)",
           {p: (queries, [float(by[(q, p)]["wall_s"]) for q in queries]) for p in paths}, kind="bar", logy=True)
    b.plot("bytes_to_host.png", f"Bytes reaching the host per query, {size} dataset", "query",
           "bytes to host (MB)",
           {p: (queries, [int(by[(q, p)]["bytes_to_host"]) / 1e6 for q in queries]) for p in paths},
           kind="bar", logy=True)
    for q in queries:
        def paired(x, y):
            return [a / z for a, z in zip(walls[(q, x)], walls[(q, y)])]
        b.headline(f"{q}: smartssd wall / CSV wall", None, "x", samples=paired("smartssd", "csv"),
                   target="smartssd over CSV / Spark's CSV reader")
        b.headline(f"{q}: smartssd wall / Parquet wall", None, "x", samples=paired("smartssd", "parquet"))
        b.headline(f"{q}: smartssd over Parquet objects wall / Parquet wall", None, "x",
                   samples=paired("smartssd_parquet", "parquet"),
                   target="smartssd over Parquet objects / Spark's Parquet reader")
        b.headline(f"{q}: smartssd bytes to host / raw", 100.0 * int(by[(q, 'smartssd')]["bytes_to_host"])
                   / int(by[(q, 'smartssd')]["raw_bytes"]), "%")
    b.headline("1-min load average at the end", f"{os.getloadavg()[0]:.1f}", "")
    b.finish(table, ["query", "path", "wall_s", "wall_min_s", "wall_max_s", "smartssd_over_this", "MB_to_host",
                     "pct_of_raw_to_host", "rows", "device_ms", "flash_MB", "answer"])
    if ab:
        ab_report(b)
    if any(r["answer"] != "ok" for r in runs):
        sys.exit("ANSWERS DIFFER between the paths")


def ab_report(b):
    """The paired runs (SparkBench wrote ab.csv beside raw.csv): per query and table, the median of each
    pair's default / per-extent wall time, and the medians of both."""
    with open(os.path.join(b.out, "ab.csv")) as f:
        pairs = list(csv.DictReader(f))
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"\npaired runs (default: the options as set; per-extent: pushdown.aggregate.complete and pushdown.topn.one_partition off):")
    print(f"{'query':>22} {'table':>17} {'pairs':>5} {'per-extent s':>12} {'default s':>10} {'ratio (median of pairs)':>24}")
    for key in dict.fromkeys((r["query"], r["table"]) for r in pairs):
        rs = [r for r in pairs if (r["query"], r["table"]) == key]
        a = [float(r["per_extent_s"]) for r in rs]
        d = [float(r["default_s"]) for r in rs]
        ratio = med([y / x for x, y in zip(a, d)])
        print(f"{key[0]:>22} {key[1]:>17} {len(rs):>5} {med(a):>12.3f} {med(d):>10.3f} {ratio:>24.3f}")
