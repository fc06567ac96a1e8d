"""bench jni: the host-side cost of one device command from Java, the overhead the Smart SSD
paper measures for its JNI path (Fig. 7: 150-380 us per command on top of a ~215 us SATA command).

Runs the JMH benchmarks of device-runtime (io.smartssd.device.bench.DeviceBenchmark): a stat round trip,
an identify round trip and a 1 MiB read, each embedded (JNI, device in the JVM) and remote (csdd over its
Unix socket). `bin/smartssd bench jni quick` runs a short version (1 fork, 2 x 0.5 s)."""
import json
import os
import shlex
import shutil

from benchlib import ROOT

OPS = ["stat", "identify", "read1MiB"]
MODES = ["embedded", "remote"]
PAPER_JNI_US = (150.0, 380.0)
PAPER_SATA_US = 215.0


def main(b):
    quick = bool(b.args) and b.args[0] == "quick"
    runs = "-f 1 -wi 1 -i 2 -w 500ms -r 500ms" if quick else "-f 2 -wi 3 -i 5 -w 1s -r 1s"
    raw = os.path.join(b.out, "jmh.json")
    jmh_args = f"DeviceBenchmark {runs} -rf json -rff {raw}"
    lib = os.path.join(b.build, "libsmartssd_jni.so")
    if not os.path.exists(lib) or not os.path.exists(b.tool("csdd")):
        raise SystemExit(f"{lib} or csdd missing: build first (bin/smartssd build)")
    # Compile, then run JMH from a private copy of the classes: a build of the same tree running at the
    # same time (shared machines) must not swap classes under the benchmark's forked JVMs.
    rt = os.path.join(ROOT, "device-runtime")
    cpfile = os.path.join(b.out, "classpath.txt")
    b.run("mvn", "-B", "-q", "-ntp", "-f", os.path.join(ROOT, "pom.xml"), "-pl", "device-runtime", "-am", "test-compile",
          "dependency:build-classpath", "-Dmdep.includeScope=test", f"-Dmdep.outputFile={cpfile}", capture=False)
    snap = os.path.join(b.out, "classes")
    shutil.rmtree(snap, ignore_errors=True)
    shutil.copytree(os.path.join(rt, "target", "classes"), os.path.join(snap, "main"))
    shutil.copytree(os.path.join(rt, "target", "test-classes"), os.path.join(snap, "test"))
    with open(cpfile) as f:
        deps = f.read().strip()
    cp = os.pathsep.join([os.path.join(snap, "test"), os.path.join(snap, "main"), deps])
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    cmd = [java, "-cp", cp, f"-Dsmartssd.csdd={b.tool('csdd')}", "org.openjdk.jmh.Main"] + jmh_args.split()
    print("running: java -cp <device-runtime test classpath> " + " ".join(shlex.quote(c) for c in cmd[3:]),
          flush=True)
    load_before = os.getloadavg()[0]
    b.run(*cmd, capture=False)
    load_after = os.getloadavg()[0]
    with open(raw) as f:
        results = json.load(f)

    rows = []
    for r in results:
        op = r["benchmark"].rsplit(".", 1)[1]
        m = r["primaryMetric"]
        us = float(m["score"])
        err = m.get("scoreError")
        row = {"operation": op, "mode": r["params"]["mode"], "us_per_op": us,
               "error_us": float(err) if isinstance(err, (int, float)) else "",
               "forks": r["forks"], "iterations": r["measurementIterations"]}
        if op == "read1MiB":
            row["MB_per_s"] = (1 << 20) / us  # bytes per microsecond = MB/s
        rows.append(row)
    rows.sort(key=lambda r: (OPS.index(r["operation"]) if r["operation"] in OPS else 99, r["mode"]))
    b.write_csv(rows, ["operation", "mode", "us_per_op", "error_us", "MB_per_s", "forks", "iterations"])

    by = {(r["operation"], r["mode"]): r["us_per_op"] for r in rows}
    ops = [o for o in OPS if any((o, m) in by for m in MODES)]
    b.plot("overhead.png", "Host cost of one device command from Java (JMH, avg per call)",
           "operation", "time per call (µs, log scale)",
           {m: (ops, [by.get((o, m), 0) for o in ops]) for m in MODES}, kind="bar", logy=True)

    for m in MODES:
        if ("stat", m) in by:
            b.headline(f"{m} command round trip (stat)", by[("stat", m)], "us",
                       paper=PAPER_JNI_US[0] if m == "embedded" else PAPER_SATA_US, target=f"{m} command round trip")
        if ("read1MiB", m) in by:
            b.headline(f"{m} 1 MiB read", by[("read1MiB", m)], "us")
    # The machine is shared (2 cores): other load inflates and spreads the numbers; say how busy it was.
    b.headline("1-min load average before / after the run", f"{load_before:.1f} / {load_after:.1f}", "")
    b.finish(rows, ["operation", "mode", "us_per_op", "error_us", "MB_per_s"])
    print(f"paper (Fig. 7): JNI adds {PAPER_JNI_US[0]:g}-{PAPER_JNI_US[1]:g} us per command; "
          f"a SATA command takes ~{PAPER_SATA_US:g} us")
