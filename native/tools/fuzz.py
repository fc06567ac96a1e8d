#!/usr/bin/env python3
"""bin/smartssd fuzz [SECONDS] [--runs N] [--targets a,b] [--parallel N] [--build DIR] [--no-jazzer] [--no-merge]
   bin/smartssd fuzz ledger [--markdown|--docs]   the campaigns so far: cumulative executions per target
   bin/smartssd fuzz minimize [--targets a,b]   shrink the corpora's found inputs to what covers the same

Runs every libFuzzer target (native/fuzz/fuzz_*.c, built with clang, ASan and UBSan) and the Jazzer
target for the Java response parser, each with its corpus kept in the repository (native/fuzz/corpus/
TARGET; the Jazzer target's seeds under device-runtime/src/test/resources) plus new inputs under
out/fuzz/corpus/TARGET, for SECONDS each (default 60) or until --runs executions. Crash inputs go to
out/fuzz/TARGET/. Afterwards each target's new inputs that add coverage are merged into its corpus in
the repository (libFuzzer's -merge=1: only inputs with features the corpus lacks; --no-merge skips
it), and every campaign appends one line to the ledger, native/fuzz/LEDGER.csv: date, target,
seconds, executions, coverage at the start and the end (edges "cov" and features "ft"), inputs
merged into the corpus, findings, the load average. Writes out/fuzz/summary.json and prints, per
target: executions, coverage, corpus size, crashes."""
import argparse
import csv
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NATIVE = os.path.join(ROOT, "native")
OUT = os.path.join(ROOT, "out", "fuzz")
LEDGER = os.path.join(NATIVE, "fuzz", "LEDGER.csv")
LEDGER_FIELDS = ["date", "target", "seconds", "executions", "cov_start", "cov_end", "ft_start", "ft_end",
                 "corpus_added", "findings", "load", "note"]
JAVA_TARGET = "ResponseParserFuzzTest"
JAVA_SEEDS = os.path.join(ROOT, "device-runtime", "src", "test", "resources", "io", "smartssd", "device",
                          "ResponseParserFuzzTestInputs", "responses")
GOAL = 10_000_000   # executions per target the ledger counts toward


def native_targets():
    return sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(NATIVE, "fuzz", "fuzz_*.c")))


def all_targets():
    return native_targets() + [JAVA_TARGET]


def repo_corpus(t):
    return JAVA_SEEDS if t == JAVA_TARGET else os.path.join(NATIVE, "fuzz", "corpus", t)


def build(build_dir, only=None):
    """Configures the fuzz build and builds the libFuzzer targets (only those named in only, if given:
    a campaign of one target links only that one)."""
    subprocess.run(["cmake", "-S", NATIVE, "-B", build_dir, "-DCSD_FUZZ=ON", "-DCMAKE_C_COMPILER=clang",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
    targets = [t for t in native_targets() if not only or t in only]
    if not targets:
        return native_targets()
    subprocess.run(["cmake", "--build", build_dir, "-j2", "--target", *targets], check=True,
                   stdout=subprocess.DEVNULL)
    return native_targets()


def native_cmd(build_dir, t):
    return [os.path.join(build_dir, t), "-rss_limit_mb=2048", "-max_len=65536"]


_java_cp = None


def java_cmd():
    global _java_cp
    if _java_cp is None:
        cp_file = os.path.join(OUT, "java.classpath")
        os.makedirs(OUT, exist_ok=True)
        mvn = ["mvn", "-B", "-ntp", "-q", "-pl", "device-runtime", "-am", "test-compile",
               "dependency:build-classpath", "-Dmdep.includeScope=test", f"-Dmdep.outputFile={cp_file}",
               "-Dcsd.asan.skip", "-Dcsd.fuzz.skip", "-Dcsd.test.skip=true"]
        subprocess.run(mvn, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        with open(cp_file) as f:
            deps = f.read().strip()
        dr = os.path.join(ROOT, "device-runtime", "target")
        _java_cp = f"{dr}/test-classes:{dr}/classes:{deps}"
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java")
    return [java, "-cp", _java_cp, "com.code_intelligence.jazzer.Jazzer",
            "--target_class=io.smartssd.device.ResponseParserFuzzTest", "--instrumentation_includes=io.smartssd.**",
            "-max_len=70000", "-rss_limit_mb=4096"]


def start(build_dir, t, seconds, runs):
    work = os.path.join(OUT, "corpus", t)
    art = os.path.join(OUT, t)
    os.makedirs(work, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    base = java_cmd() if t == JAVA_TARGET else native_cmd(build_dir, t)
    cmd = base + [f"-max_total_time={seconds}", "-print_final_stats=1", f"-artifact_prefix={art}/"]
    if runs:
        cmd.append(f"-runs={runs}")
    cmd += [work, repo_corpus(t)]
    log = open(os.path.join(art, "fuzz.log"), "w")
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), cmd


def summarize(t, proc, cmd, seconds_wall):
    log = open(os.path.join(OUT, t, "fuzz.log"), errors="replace").read()
    execs = re.findall(r"stat::number_of_executed_units: (\d+)", log)
    inited = re.findall(r"#\d+\s+INITED\s+(?:exec/s: \d+ )?cov: (\d+) ft: (\d+)", log)
    last = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/", log)
    crashes = [os.path.basename(p) for p in glob.glob(os.path.join(OUT, t, "crash-*")) +
               glob.glob(os.path.join(OUT, t, "leak-*")) + glob.glob(os.path.join(OUT, t, "timeout-*")) +
               glob.glob(os.path.join(OUT, t, "oom-*"))]
    return {"target": t, "executions": int(execs[-1]) if execs else (int(last[-1][0]) if last else 0),
            "cov_start": int(inited[0][0]) if inited else "", "ft_start": int(inited[0][1]) if inited else "",
            "cov": int(last[-1][1]) if last else 0, "ft": int(last[-1][2]) if last else 0,
            "corpus": int(last[-1][3]) if last else 0, "seconds": round(seconds_wall), "exit": proc.returncode,
            "crashes": crashes, "command": " ".join(cmd[:1] + [c for c in cmd[1:] if c.startswith("-")])}


def merge(build_dir, t, sources):
    """libFuzzer's merge of sources into the repository's corpus: only inputs that add features it
    lacks are copied in (named by their SHA-1). Returns how many files were added."""
    dest = repo_corpus(t)
    before = set(os.listdir(dest))
    base = java_cmd() if t == JAVA_TARGET else native_cmd(build_dir, t)
    srcs = [s for s in sources if os.path.isdir(s) and os.listdir(s)]
    if not srcs:
        return 0
    log = os.path.join(OUT, t, "merge.log")
    with open(log, "w") as f:
        r = subprocess.run(base + ["-merge=1", dest] + srcs, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        print(f"fuzz: {t}: merging into {dest} failed (exit {r.returncode}; {log})", flush=True)
    return len(set(os.listdir(dest)) - before)


def append_ledger(row):
    new = not os.path.exists(LEDGER)
    with open(LEDGER, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=LEDGER_FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in LEDGER_FIELDS})


def read_ledger(path=LEDGER):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def totals(rows):
    """{target: (campaigns, executions, last date)} over the ledger, every known target included."""
    out = {t: [0, 0, ""] for t in all_targets()}
    for r in rows:
        e = out.setdefault(r["target"], [0, 0, ""])
        e[0] += 1
        e[1] += int(r["executions"] or 0)
        e[2] = max(e[2], r["date"][:10])
    return {t: tuple(v) for t, v in out.items()}


def ledger_markdown(rows):
    lines = ["| target | campaigns | executions | of 10 million | last campaign |",
             "|---|---:|---:|---:|---|"]
    for t, (n, ex, last) in sorted(totals(rows).items()):
        lines.append(f"| `{t}` | {n} | {ex:,} | {100.0 * ex / GOAL:.1f} % | {last or 'none'} |")
    return "\n".join(lines)


DOCS = os.path.join(ROOT, "docs", "RELIABILITY.md")
MARK_BEGIN, MARK_END = "<!-- fuzz-ledger -->", "<!-- /fuzz-ledger -->"


def docs_table(path=DOCS):
    """The table between the markers in docs/RELIABILITY.md."""
    text = open(path, encoding="utf-8").read()
    return text.split(MARK_BEGIN, 1)[1].split(MARK_END, 1)[0].strip()


def write_docs_table(rows, path=DOCS):
    text = open(path, encoding="utf-8").read()
    head, rest = text.split(MARK_BEGIN, 1)
    tail = rest.split(MARK_END, 1)[1]
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{head}{MARK_BEGIN}\n{ledger_markdown(rows)}\n{MARK_END}{tail}")


def cmd_ledger(argv):
    ap = argparse.ArgumentParser(prog="bin/smartssd fuzz ledger", description="the campaigns so far")
    ap.add_argument("--markdown", action="store_true", help="only the table of cumulative executions (Markdown)")
    ap.add_argument("--docs", action="store_true", help="write that table into docs/RELIABILITY.md")
    a = ap.parse_args(argv)
    rows = read_ledger()
    if a.markdown:
        print(ledger_markdown(rows))
        return 0
    if a.docs:
        write_docs_table(rows)
        print(f"written: the ledger's table in {os.path.relpath(DOCS, ROOT)}")
        return 0
    print(f"{'target':24} {'campaigns':>9} {'executions':>12} {'of 10M':>7}  last")
    for t, (n, ex, last) in sorted(totals(rows).items()):
        print(f"{t:24} {n:>9} {ex:>12,} {100.0 * ex / GOAL:>6.1f}%  {last or 'none'}")
    print(f"\n{len(rows)} campaigns in {os.path.relpath(LEDGER, ROOT)}")
    return 0


def cmd_minimize(argv):
    """Each corpus replaced by the smallest subset libFuzzer finds with the same features; the seeds
    written by hand (make_corpus.py's, regressions of findings: any name that is not libFuzzer's
    SHA-1 of the input) are always kept."""
    ap = argparse.ArgumentParser(prog="bin/smartssd fuzz minimize")
    ap.add_argument("--targets", default="")
    ap.add_argument("--build", default=os.path.join(NATIVE, "target", "build-fuzz-long"))
    ap.add_argument("--no-jazzer", action="store_true")
    a = ap.parse_args(argv)
    build(a.build, a.targets.split(",") if a.targets else None)
    todo = native_targets() + ([] if a.no_jazzer else [JAVA_TARGET])
    if a.targets:
        todo = [t for t in todo if t in a.targets.split(",")]
    for t in todo:
        dest = repo_corpus(t)
        names = os.listdir(dest)
        keep = [n for n in names if not re.fullmatch(r"[0-9a-f]{40}", n)]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "min")
            os.makedirs(out)
            for n in keep:
                shutil.copy(os.path.join(dest, n), out)
            base = java_cmd() if t == JAVA_TARGET else native_cmd(a.build, t)
            os.makedirs(os.path.join(OUT, t), exist_ok=True)
            with open(os.path.join(OUT, t, "minimize.log"), "w") as f:
                subprocess.run(base + ["-merge=1", out, dest], stdout=f, stderr=subprocess.STDOUT, check=True)
            kept = set(os.listdir(out))
            # drop the files merge did not keep; one it kept (under its SHA-1 name) keeps its own name
            survivors = {open(os.path.join(out, n), "rb").read(): n for n in kept}
            for n in names:
                p = os.path.join(dest, n)
                data = open(p, "rb").read()
                if data in survivors:
                    del survivors[data]          # kept under its own name
                else:
                    os.remove(p)
            for data, n in survivors.items():
                with open(os.path.join(dest, n), "wb") as f:
                    f.write(data)
        print(f"fuzz: {t}: {len(names)} -> {len(os.listdir(dest))} inputs", flush=True)
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "ledger":
        return cmd_ledger(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "minimize":
        return cmd_minimize(sys.argv[2:])
    ap = argparse.ArgumentParser(prog="bin/smartssd fuzz", description=__doc__.split("\n\n")[1])
    ap.add_argument("seconds", nargs="?", type=int, default=60, help="per target (default 60)")
    ap.add_argument("--runs", type=int, default=0, help="stop each target after this many executions")
    ap.add_argument("--targets", default="", help="comma-separated subset (fuzz_packet,...,ResponseParserFuzzTest)")
    ap.add_argument("--parallel", type=int, default=1, help="targets at once (default 1; the machine has 2 cores)")
    ap.add_argument("--build", default=os.path.join(NATIVE, "target", "build-fuzz-long"))
    ap.add_argument("--no-jazzer", action="store_true", help="skip the Java target")
    ap.add_argument("--no-merge", action="store_true", help="leave the repository's corpora as they are")
    ap.add_argument("--no-ledger", action="store_true", help="do not record the campaigns in the ledger")
    a = ap.parse_args()
    native = build(a.build, a.targets.split(",") if a.targets else None)
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
            load = os.getloadavg()[0]
            p, cmd = start(a.build, t, a.seconds, a.runs)
            running.append((t, p, cmd, time.time(), load))
            print(f"fuzz: {t} started (load average {load:.1f})", flush=True)
        time.sleep(1)
        for entry in list(running):
            t, p, cmd, t0, load = entry
            if p.poll() is not None:
                running.remove(entry)
                r = summarize(t, p, cmd, time.time() - t0)
                r["corpus_added"] = 0 if a.no_merge else merge(a.build, t, [os.path.join(OUT, "corpus", t)])
                results.append(r)
                if not a.no_ledger:
                    append_ledger({"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
                                   "target": t, "seconds": r["seconds"], "executions": r["executions"],
                                   "cov_start": r["cov_start"], "cov_end": r["cov"], "ft_start": r["ft_start"],
                                   "ft_end": r["ft"], "corpus_added": r["corpus_added"],
                                   "findings": " ".join(r["crashes"]) or "0",
                                   "load": f"{load:.1f}", "note": f"bin/smartssd fuzz {a.seconds}"})
                print(f"fuzz: {t}: {r['executions']:,} executions, cov {r['cov_start']} -> {r['cov']}, "
                      f"ft {r['ft_start']} -> {r['ft']}, corpus {r['corpus']} (+{r['corpus_added']} kept), "
                      f"crashes {len(r['crashes'])}", flush=True)
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump(results, f, indent=1)
    if not a.no_ledger and os.path.exists(DOCS):
        write_docs_table(read_ledger())   # the docs' cumulative table follows the ledger
    print(f"\n{'target':24} {'executions':>12} {'cov':>11} {'ft':>13} {'corpus':>7} {'kept':>5} {'s':>6} crashes")
    for r in results:
        print(f"{r['target']:24} {r['executions']:>12,} {str(r['cov_start']) + '->' + str(r['cov']):>11} "
              f"{str(r['ft_start']) + '->' + str(r['ft']):>13} {r['corpus']:>7} {r['corpus_added']:>5} "
              f"{r['seconds']:>6} {len(r['crashes'])} {' '.join(r['crashes'])}")
    print(f"\nwritten: {OUT}/summary.json, logs and crash inputs in {OUT}/TARGET/"
          + ("" if a.no_ledger else f"; campaigns appended to {os.path.relpath(LEDGER, ROOT)}"))
    return 1 if any(r["crashes"] or r["exit"] not in (0,) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
