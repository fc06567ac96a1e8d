#!/usr/bin/env python3
"""bin/smartssd fuzz [SECONDS] [--runs N] [--targets a,b] [--parallel N] [--build DIR] [--no-jazzer]

Runs every libFuzzer target (native/fuzz/fuzz_*.c, built with clang, ASan and UBSan) and the Jazzer
target for the Java response parser, each with its corpus kept in the repository (native/fuzz/corpus/
TARGET, read-only) plus new inputs under out/fuzz/corpus/TARGET, for SECONDS each (default 60) or until
--runs executions. Crash inputs go to out/fuzz/TARGET/. Writes out/fuzz/summary.json and prints, per
target: executions, coverage (libFuzzer's edges "cov" and features "ft"), corpus size, crashes."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NATIVE = os.path.join(ROOT, "native")
OUT = os.path.join(ROOT, "out", "fuzz")
JAVA_TARGET = "ResponseParserFuzzTest"


def build(build_dir):
    env = dict(os.environ)
    subprocess.run(["cmake", "-S", NATIVE, "-B", build_dir, "-DCSD_FUZZ=ON", "-DCMAKE_C_COMPILER=clang",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL, env=env)
    targets = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(NATIVE, "fuzz", "fuzz_*.c")))
    subprocess.run(["cmake", "--build", build_dir, "-j2", "--target", *targets], check=True,
                   stdout=subprocess.DEVNULL)
    return targets


def start_native(build_dir, t, seconds, runs):
    work = os.path.join(OUT, "corpus", t)
    art = os.path.join(OUT, t)
    os.makedirs(work, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    cmd = [os.path.join(build_dir, t), f"-max_total_time={seconds}", "-rss_limit_mb=2048", "-max_len=65536",
           "-print_final_stats=1", f"-artifact_prefix={art}/", work, os.path.join(NATIVE, "fuzz", "corpus", t)]
    if runs:
        cmd.insert(1, f"-runs={runs}")
    log = open(os.path.join(art, "fuzz.log"), "w")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), cmd


def java_classpath():
    cp_file = os.path.join(OUT, "java.classpath")
    mvn = ["mvn", "-B", "-ntp", "-q", "-pl", "device-runtime", "-am", "test-compile", "dependency:build-classpath",
           "-Dmdep.includeScope=test", f"-Dmdep.outputFile={cp_file}", "-Dcsd.asan.skip", "-Dcsd.fuzz.skip",
           "-Dcsd.test.skip=true"]
    subprocess.run(mvn, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    with open(cp_file) as f:
        deps = f.read().strip()
    dr = os.path.join(ROOT, "device-runtime", "target")
    return f"{dr}/test-classes:{dr}/classes:{deps}"


def start_java(seconds, runs):
    work = os.path.join(OUT, "corpus", JAVA_TARGET)
    art = os.path.join(OUT, JAVA_TARGET)
    os.makedirs(work, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    seeds = os.path.join(ROOT, "device-runtime", "src", "test", "resources", "io", "smartssd", "device",
                         "ResponseParserFuzzTestInputs", "responses")
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java")
    cmd = [java, "-cp", java_classpath(), "com.code_intelligence.jazzer.Jazzer",
           "--target_class=io.smartssd.device.ResponseParserFuzzTest", "--instrumentation_includes=io.smartssd.**",
           f"-max_total_time={seconds}", "-max_len=70000", "-rss_limit_mb=4096", "-print_final_stats=1",
           f"-artifact_prefix={art}/", work, seeds]
    if runs:
        cmd.insert(-2, f"-runs={runs}")
    log = open(os.path.join(art, "fuzz.log"), "w")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), cmd


def summarize(t, proc, cmd, seconds_wall):
    log = open(os.path.join(OUT, t, "fuzz.log"), errors="replace").read()
    execs = re.findall(r"stat::number_of_executed_units: (\d+)", log)
    last = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", log)
    crashes = [os.path.basename(p) for p in glob.glob(os.path.join(OUT, t, "crash-*")) +
               glob.glob(os.path.join(OUT, t, "leak-*")) + glob.glob(os.path.join(OUT, t, "timeout-*")) +
               glob.glob(os.path.join(OUT, t, "oom-*"))]
    return {"target": t, "executions": int(execs[-1]) if execs else (int(last[-1][0]) if last else 0),
            "cov": int(last[-1][1]) if last else 0, "ft": int(last[-1][2]) if last else 0,
            "corpus": int(last[-1][3]) if last else 0, "seconds": round(seconds_wall), "exit": proc.returncode,
            "crashes": crashes, "command": " ".join(cmd[:1] + [c for c in cmd[1:] if c.startswith("-")])}


def main():
    ap = argparse.ArgumentParser(prog="bin/smartssd fuzz", description=__doc__.split("\n\n")[1])
    ap.add_argument("seconds", nargs="?", type=int, default=60, help="per target (default 60)")
    ap.add_argument("--runs", type=int, default=0, help="stop each target after this many executions")
    ap.add_argument("--targets", default="", help="comma-separated subset (fuzz_packet,...,ResponseParserFuzzTest)")
    ap.add_argument("--parallel", type=int, default=1, help="targets at once (default 1; the machine has 2 cores)")
    ap.add_argument("--build", default=os.path.join(NATIVE, "target", "build-fuzz-long"))
    ap.add_argument("--no-jazzer", action="store_true", help="skip the Java target")
    a = ap.parse_args()
    native = build(a.build)
    todo = native + ([] if a.no_jazzer else [JAVA_TARGET])
    if a.targets:
        want = a.targets.split(",")
        unknown = [t for t in want if t not in todo]
        if unknown:
            sys.exit(f"unknown targets: {', '.join(unknown)} (known: {', '.join(todo)})")
        todo = [t for t in todo if t in want]
    os.makedirs(OUT, exist_ok=True)
    results, running = [], []
    while todo or running:
        while todo and len(running) < a.parallel:
            t = todo.pop(0)
            p, cmd = start_java(a.seconds, a.runs) if t == JAVA_TARGET else start_native(a.build, t, a.seconds, a.runs)
            running.append((t, p, cmd, time.time()))
            print(f"fuzz: {t} started", flush=True)
        time.sleep(1)
        for entry in list(running):
            t, p, cmd, t0 = entry
            if p.poll() is not None:
                running.remove(entry)
                r = summarize(t, p, cmd, time.time() - t0)
                results.append(r)
                print(f"fuzz: {t}: {r['executions']:,} executions, cov {r['cov']}, ft {r['ft']}, "
                      f"corpus {r['corpus']}, crashes {len(r['crashes'])}", flush=True)
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"\n{'target':24} {'executions':>12} {'cov':>6} {'ft':>7} {'corpus':>7} {'s':>6} crashes")
    for r in results:
        print(f"{r['target']:24} {r['executions']:>12,} {r['cov']:>6} {r['ft']:>7} {r['corpus']:>7} {r['seconds']:>6} "
              f"{len(r['crashes'])} {' '.join(r['crashes'])}")
    print(f"\nwritten: {OUT}/summary.json, logs and crash inputs in {OUT}/TARGET/")
    return 1 if any(r["crashes"] or r["exit"] not in (0,) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
