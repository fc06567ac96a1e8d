"""bench weblog: the Smart SSD paper's web-log analysis (V-C, Fig. 8 and Fig. 10). WorldCup98-format
records padded to 32..256 bytes on an embedded device, the two queries in the three versions
(host-normal and host-optimized MapReduce reading every byte through smartssd://, and a DeviceJob
running the weblog-q1/q2 tasklet inside the device) plus spark-device (Spark DataFrames over the
smartssd format, the group-by count pushed into the device), every answer checked against a plain decoder.
Reports wall time (this machine), device time (the model's virtual clock), bytes over the host link and
modeled energy.

    bin/smartssd bench weblog [--size 1G] [--entry-bytes 32,64,128,256] [--query q1,q2] [--samples 5]
                              [--versions host-normal,host-optimized,device,spark-device]
                              [--host-idle-w 44] [--host-active-w 35] [--device-w 0.65]
                              [--host-write-w 35] [--pause-s 5]

Every version runs SAMPLES times (default 5), the versions in turn; a wall time is the median of its
samples, and a ratio of two versions the median of the ratios sample by sample, with min and max
beside it and the samples in summary.json; at 128-byte entries the DeviceJob ratios are judged
against the targets of docs/PERFORMANCE.md (bench/targets.py) on the median.

--size is the dataset at the largest entry size; every entry size holds the same records (as the
paper's four datasets hold the same 7,000,000 entries). --versions defaults to all four here; the demo
(bin/demo-cli uses the same code, run_sweep and report, with a smaller default size) runs the paper's three.
"""
import argparse
import json
import os
import subprocess
import sys

import energy as energy_model

VERSIONS = ["host-normal", "host-optimized", "device"]              # the paper's three (the demo's default)
ALL_VERSIONS = VERSIONS + ["spark-device"]                          # + Spark DataFrames (the bench's default)
# Versions whose work runs inside the device while the host idles (bench/energy.py).
DEVICE_VERSIONS = energy_model.DEVICE_VERSIONS
# Spark's module options for Java 17 (spark-connector/pom.xml's argLine): harmless for the Hadoop versions.
SPARK_JVM_FLAGS = ["-XX:+IgnoreUnrecognizedVMOptions"] + [
    f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in
    ("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio", "java.util",
     "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref", "sun.nio.ch", "sun.nio.cs",
     "sun.security.action", "sun.util.calendar")] + ["-Djdk.reflect.useDirectMethodHandle=false",
                                                     "-Dio.netty.tryReflectionSetAccessible=true"]
# Paper V-C-3 (Fig. 10) power levels, and the phases it measured: bench/energy.py. Modeled, not measured.
DEFAULT_POWER = energy_model.DEFAULT_POWER


def java_cmd():
    """The command that runs the examples' CLI (bin/smartssd sets SMARTSSD_EXAMPLES_CP)."""
    cp = os.environ.get("SMARTSSD_EXAMPLES_CP")
    if not cp:
        sys.exit("SMARTSSD_EXAMPLES_CP is not set: run this through bin/smartssd (it builds the examples)")
    java = os.environ.get("SMARTSSD_JAVA", "java")
    return [java, "-Xmx2g", *SPARK_JVM_FLAGS, "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp", cp,
            "io.smartssd.examples.weblog.WeblogCli"]


def run_sweep(image, results, size, entries, queries, versions=VERSIONS, samples=1):
    """Runs the Java sweep (progress on this terminal) and returns its rows (one per run: SAMPLES per
    version, query and entry size)."""
    cmd = java_cmd() + ["sweep", "--image", image, "--results", results, "--size", size,
                        "--entry-bytes", ",".join(map(str, entries)), "--query", ",".join(queries),
                        "--version", ",".join(versions), "--samples", str(samples)]
    rc = subprocess.run(cmd).returncode
    rows = []
    if os.path.exists(results):
        with open(results) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    if rc:
        sys.exit(f"the weblog sweep failed (exit {rc}); partial results in {results}")
    return rows


def energy(row, power, basis, wr_s=None):
    """Modeled joules of one run by phase (bench/energy.py), its exec phase over its wall time or its
    device time."""
    t = (row["wall_ns"] if basis == "wall" else row["device_ns"]) / 1e9
    return energy_model.phases(row["version"], t, wr_s, power)


def table_rows(rows, power, wr=None):
    """wr: {input bytes: device seconds to write them} (the wr phase), or None / {} when not measured."""
    out = []
    for r in rows:
        wr_s = (wr or {}).get(r["input_bytes"])
        dev, wall = energy(r, power, "device", wr_s), energy(r, power, "wall", wr_s)
        out.append({"query": r["query"], "entry_B": r["entry_bytes"], "version": r["version"],
                    "data_MB": r["input_bytes"] / 1e6, "wall_s": r["wall_ns"] / 1e9,
                    "device_ms": r["device_ns"] / 1e6, "link_MB": r["link_bytes"] / 1e6,
                    "energy_J_wall": wall["exec"], "energy_J_device": dev["exec"],
                    "wr_s": "" if wr_s is None else wr_s, "E_wr_J": "" if wr_s is None else dev["wr"],
                    "E_pause_J": dev["pause"], "E_exec_above_idle_J": dev["exec_above_idle"],
                    "E_run_J": "" if wr_s is None else dev["total"],
                    "answer": "ok" if r["matches_decoder"] else "MISMATCH"})
    return out


def _versions(rows):
    """The versions present, in ALL_VERSIONS order."""
    present = {r["version"] for r in rows}
    return [v for v in ALL_VERSIONS if v in present]


def _series(rows, query, key):
    s = {}
    for v in _versions(rows):
        pts = sorted((r["entry_B"], r[key]) for r in rows if r["query"] == query and r["version"] == v)
        if pts:
            s[v] = ([p[0] for p in pts], [p[1] for p in pts])
    return s


def plot_fig8(plt, rows, query, path, records):
    """Paper Fig. 8: time against entry size, one line per version; wall and device time side by side."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for ax, key, label in ((axes[0], "wall_s", "wall time on this machine (s)"),
                           (axes[1], "device_ms", "device time, virtual (ms)")):
        for v, (xs, ys) in _series(rows, query, key).items():
            # host-normal and host-optimized read the same bytes: equal device times, so dash one
            ax.plot(xs, ys, marker="s" if v == "host-normal" else "o", linestyle="--" if v == "host-normal" else "-",
                    label=v)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({r["entry_B"] for r in rows}))
        ax.get_xaxis().set_major_formatter(plt.matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("log entry size (bytes)")
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    what = "accesses per region" if query == "q1" else "top file types per region"
    fig.suptitle(f"Web-log analysis {query.upper()} ({what}), {records:,} entries per dataset (paper Fig. 8)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_fig10(plt, rows, query, path, power):
    """Paper Fig. 10: energy of the exec phase per version and entry size (modeled), and of the whole
    run by phase (wr, pause, exec) as the paper measured it."""
    phased = all(r["E_wr_J"] != "" for r in rows if r["query"] == query)
    fig, axes = plt.subplots(1, 3 if phased else 2, figsize=(16 if phased else 11, 4.3))
    entries = sorted({r["entry_B"] for r in rows if r["query"] == query})
    versions = _versions(rows)
    width = 0.8 / len(versions)
    if phased:
        ax = axes[2]
        for i, v in enumerate(versions):
            got = [next((r for r in rows if r["query"] == query and r["version"] == v and r["entry_B"] == e), None)
                   for e in entries]
            xs = [j + i * width for j in range(len(entries))]
            bottom = [0.0] * len(entries)
            for key, hatch in (("E_wr_J", "//"), ("E_pause_J", ".."), ("energy_J_device", "")):
                ys = [g[key] if g else 0 for g in got]
                ax.bar(xs, ys, width, bottom=bottom, hatch=hatch, color=f"C{i}", edgecolor="black", linewidth=0.3,
                       label=v if key == "energy_J_device" else None)
                bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_xticks([j + width * (len(versions) - 1) / 2 for j in range(len(entries))])
        ax.set_xticklabels([str(e) for e in entries])
        ax.set_xlabel("log entry size (bytes)")
        ax.set_ylabel("modeled energy of wr + pause + exec (J)")
        ax.set_title("by phase, device time (hatched: wr //, pause ..)", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()
    for ax, key, label in ((axes[0], "energy_J_wall", "over wall time"),
                           (axes[1], "energy_J_device", "over device time")):
        for i, v in enumerate(versions):
            ys = [next((r[key] for r in rows if r["query"] == query and r["version"] == v and r["entry_B"] == e), 0)
                  for e in entries]
            ax.bar([j + i * width for j in range(len(entries))], ys, width, label=v)
        ax.set_xticks([j + width * (len(versions) - 1) / 2 for j in range(len(entries))])
        ax.set_xticklabels([str(e) for e in entries])
        ax.set_xlabel("log entry size (bytes)")
        ax.set_ylabel("modeled energy of the exec phase (J)")
        ax.set_title(f"power x {label}", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend()
    fig.suptitle(f"Modeled energy of {query.upper()} (paper Fig. 10): host {power['host_idle_w']:g} W idle "
                 f"+{power['host_active_w']:g} W busy, device +{power['device_w']:g} W; wr phase "
                 f"+{power['host_write_w']:g} W (assumed), pause {power['pause_s']:g} s")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def medians(rows):
    """One row per (query, entry size, version): its samples' median wall time (device times, links and
    answers are the same in every sample), and {key: [wall_ns of each sample]}."""
    import benchlib
    groups = {}
    for r in rows:
        groups.setdefault((r["query"], r["entry_bytes"], r["version"]), []).append(r)
    out, walls = [], {}
    for key, rs in groups.items():
        rs = sorted(rs, key=lambda r: r.get("sample", 0))
        m = dict(rs[0])
        m["wall_ns"] = benchlib.median([r["wall_ns"] for r in rs])["median"]
        m["matches_decoder"] = all(r["matches_decoder"] for r in rs)
        m["samples"] = len(rs)
        out.append(m)
        walls[key] = [r["wall_ns"] for r in rs]
    return out, walls


def report(b, rows, power):
    """Writes results.csv and the PNGs into b.out, the headline figures into summary.json, prints the table."""
    import benchlib
    # the wr phase: device time of writing each dataset, measured on a scratch image of the sweep's preset
    wr = energy_model.write_phase_s({r["input_bytes"] for r in rows})
    if not wr:
        print("note: the device CLI is not built: the wr phase is not measured (energy of exec and pause only)")
    rows, walls = medians(rows)
    t = table_rows(rows, power, wr)
    b.write_csv(t)
    records = rows[0].get("records", 0) if rows else 0
    plt = benchlib._pyplot()
    pngs = []
    for q in sorted({r["query"] for r in t}):
        p = os.path.join(b.out, f"fig8-{q}-time.png")
        plot_fig8(plt, t, q, p, records)
        pngs.append(p)
        p = os.path.join(b.out, f"fig10-{q}-energy.png")
        plot_fig10(plt, t, q, p, power)
        pngs.append(p)
    headlines(b, t, walls)
    b.finish(t, ["query", "entry_B", "version", "data_MB", "wall_s", "device_ms", "link_MB", "energy_J_wall",
                 "energy_J_device", "wr_s", "E_wr_J", "E_pause_J", "E_run_J", "answer"])
    return pngs


def _get(t, q, e, v, key):
    return next((r[key] for r in t if r["query"] == q and r["entry_B"] == e and r["version"] == v), None)


def headlines(b, t, walls=None):
    """walls: {(query, entry, version): [wall_ns per sample]}; a wall-time ratio is then the median of
    the ratios sample by sample."""
    entries = sorted({r["entry_B"] for r in t})

    def ratio(q, e, num, den, name, target=None):
        a, z = _get(t, q, e, num, "wall_s"), _get(t, q, e, den, "wall_s")
        if not (a and z):
            return
        sa, sz = (walls or {}).get((q, e, num)), (walls or {}).get((q, e, den))
        if sa and sz and len(sa) == len(sz) and len(sa) > 1:
            b.headline(name, None, "x", samples=[x / y for x, y in zip(sa, sz)], target=target)
        else:
            b.headline(name, a / z, "x", target=target)

    for q in sorted({r["query"] for r in t}):
        for e in entries:
            # docs/PERFORMANCE.md's targets are for 128-byte entries
            ratio(q, e, "device", "host-normal", f"{q} {e} B: device wall / host-normal wall",
                  "web-log DeviceJob / host-normal" if e == 128 else None)
            ratio(q, e, "device", "host-optimized", f"{q} {e} B: device wall / host-optimized wall",
                  "web-log DeviceJob / host-optimized" if e == 128 else None)
            ratio(q, e, "spark-device", "device", f"{q} {e} B: spark-device wall / device wall")
            ratio(q, e, "spark-device", "host-optimized", f"{q} {e} B: spark-device wall / host-optimized wall")
        small, big = entries[0], entries[-1]
        d_small, o_small = _get(t, q, small, "device", "device_ms"), _get(t, q, small, "host-optimized", "device_ms")
        d_big, o_big = _get(t, q, big, "device", "device_ms"), _get(t, q, big, "host-optimized", "device_ms")
        if d_small and o_small:
            b.headline(f"{q} {small} B: device / host-optimized, device time", d_small / o_small,
                       "x (>1: host wins)", paper=">1 at 32 B" if small == 32 else None)
        if d_big and o_big:
            b.headline(f"{q} {big} B: host-optimized / device, device time (speed-up)", o_big / d_big, "x",
                       paper="2-3" if big == 256 else None)
    for e in entries:
        dev, ho = _get(t, "q1", e, "device", "energy_J_device"), _get(t, "q1", e, "host-optimized", "energy_J_device")
        if dev and ho:
            b.headline(f"q1 {e} B: energy saved vs host-optimized (modeled, device time)", 1 - dev / ho, "fraction",
                       paper=">0.5")
        # Fig. 10 on the paper's terms: the exec phase above idle, and the whole trace (wr + pause + exec)
        dev, ho = (_get(t, "q1", e, v, "E_exec_above_idle_J") for v in ("device", "host-optimized"))
        if dev and ho:
            b.headline(f"q1 {e} B: exec-phase energy above idle, device / host-optimized (modeled, device time)",
                       dev / ho, "fraction", paper="~0.02")
        dev, ho = (_get(t, "q1", e, v, "E_run_J") for v in ("device", "host-optimized"))
        if dev and ho:
            b.headline(f"q1 {e} B: energy of wr + pause + exec, device / host-optimized (modeled, device time)",
                       dev / ho, "fraction")


def parse(args, default_size, default_versions=VERSIONS, default_samples=1):
    p = argparse.ArgumentParser(prog="bin/smartssd bench weblog", description=__doc__.split("\n")[0])
    p.add_argument("--size", default=default_size, help=f"dataset size at the largest entry size (default {default_size})")
    p.add_argument("--entry-bytes", default="32,64,128,256", help="entry sizes (default 32,64,128,256)")
    p.add_argument("--query", default="q1,q2", help="q1, q2 or both (default)")
    p.add_argument("--versions", default=",".join(default_versions),
                   help=f"versions to run, of {','.join(ALL_VERSIONS)} (default {','.join(default_versions)})")
    p.add_argument("--host-idle-w", type=float, default=DEFAULT_POWER["host_idle_w"])
    p.add_argument("--host-active-w", type=float, default=DEFAULT_POWER["host_active_w"])
    p.add_argument("--device-w", type=float, default=DEFAULT_POWER["device_w"])
    p.add_argument("--host-write-w", type=float, default=DEFAULT_POWER["host_write_w"],
                   help="power above idle while the dataset is written (wr phase; not in the paper: assumed)")
    p.add_argument("--pause-s", type=float, default=DEFAULT_POWER["pause_s"], help="pause between phases (paper: 5 s)")
    p.add_argument("--samples", type=int, default=default_samples,
                   help=f"runs of every version, in turn (default {default_samples}; a bench figure needs 5)")
    a = p.parse_args(args)
    a.entries = [int(x) for x in a.entry_bytes.split(",") if x]
    a.queries = [x for x in a.query.split(",") if x]
    a.versions = [x for x in a.versions.split(",") if x]
    bad = [v for v in a.versions if v not in ALL_VERSIONS]
    if bad or not a.versions:
        p.error(f"--versions {a.versions}: choose from {','.join(ALL_VERSIONS)}")
    a.power = {"host_idle_w": a.host_idle_w, "host_active_w": a.host_active_w, "device_w": a.device_w,
               "host_write_w": a.host_write_w, "pause_s": a.pause_s}
    return a


def main(b):
    a = parse(b.args, "1G", ALL_VERSIONS, default_samples=5)
    if a.samples < 5:
        sys.exit(f"bench weblog: --samples {a.samples}: every figure is the median of at least 5 samples")
    rows = run_sweep(os.path.join(b.out, "weblog.img"), os.path.join(b.out, "results.jsonl"), a.size, a.entries,
                     a.queries, a.versions, a.samples)
    report(b, rows, a.power)
