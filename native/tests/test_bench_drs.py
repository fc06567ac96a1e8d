"""bench drs end to end on a small scale (bench/drs.py): a real trace from --traces (a BIOTracer file
named after its workload) beside synthetic stand-ins, the Table 1 row computed from the trace, every
output file, and summary.json carrying each workload's DRS-vs-RCF entry labelled real or synthetic
and the claims by their stable names with 1 or 0. Run by ctest (cli_py) with CSD_BIN set."""
import csv
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import _drs_claims as claims  # noqa: E402


def biotracer(path, n=400, seed=3):
    """A BIOTracer trace (two tabs between fields): bursts of reads and writes in 4 KiB multiples."""
    rnd = random.Random(seed)
    t, lines, reads, writes = 1398403999.0, [], 0, 0
    for i in range(n):
        t += rnd.expovariate(20.0) if i % 4 == 0 else 0.00004
        w = rnd.random() < 0.2
        size = 4096 * rnd.randint(1, 8)
        sector = 8 * rnd.randrange(0, 50000)
        reads, writes = reads + (not w), writes + w
        lines.append("\t\t".join([str(sector), str(size // 512), str(size), str(int(w)), f"{t:.9f}",
                                  f"{t + 0.0001:.9f}", f"{t + 0.0002:.9f}", f"{t + 0.001:.9f}"]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return reads, writes


def test_bench_drs_small(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    reads, writes = biotracer(traces / "Movie_log1.txt")
    out = tmp_path / "bench" / "drs"
    env = dict(os.environ, CSD_BUILD=os.path.dirname(os.path.abspath(CSD)), CSD_BENCH_OUT=str(tmp_path / "bench"))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "benchlib.py"), "drs", "--quick", "--requests", "300",
                        "--schedulers", "rcf,size,rrf,fot,drs", "--bursts", "1,4", "--raw", "0", "--traces", str(traces)],
                       capture_output=True, text=True, env=env, timeout=1800)
    assert p.returncode == 0, p.stderr[-3000:]
    for f in ("workloads.csv", "results.csv", "claims.csv", "band.csv", "summary.json", "fig9_read.png",
              "fig10_breakdown.png", "fig11a_cache.png", "fig11b_queue_depth.png", "band_drs_raw0.png"):
        assert (out / f).exists(), f
    assert not (out / "scratch").exists()
    with open(out / "workloads.csv") as f:
        wl = {r["workload"]: r for r in csv.DictReader(f)}
    # the real trace's Table 1 row, from the trace: counted independently here
    movie = wl["Movie (real trace)"]
    assert int(movie["requests"]) == reads + writes
    assert float(movie["write_pct"]) == round(100.0 * writes / (reads + writes), 2)
    assert float(movie["read_table1"]) == 27.5
    assert set(wl) == {"Movie (real trace)"} | {f"{w} (synthetic)" for w in
                                                ("AngryBird", "Booting", "Facebook", "Radio", "Radio/Msg", "Radio/WB",
                                                 "YouTube")}
    # the synthetic Booting at 460.4/s offers the one chip more than it can serve: a fixed window
    assert float(wl["Booting (synthetic)"]["offered_load"]) > 1
    summary = {e["name"]: e for e in json.load(open(out / "summary.json"))}
    for w in wl:
        assert f"{w}: DRS read latency vs RCF" in summary
    for name in claims.ALL:
        assert summary[name]["ours"] in (0, 1), name
        assert summary[name]["paper"] == 1
    assert summary["DRS read latency vs RCF, best workload"]["paper"] == -51.0
    assert summary["Movie (real trace): Table 1 write requests"]["ours"] == float(movie["write_pct"])
    with open(out / "claims.csv") as f:
        cl = {r["claim"]: r for r in csv.DictReader(f)}
    assert set("claim: " + c for c in cl) == set(claims.ALL)
    # the Fig. 11a control: a 4 MiB working set, which the 16 KiB cache holds; with the 1 KiB cache DRS
    # gains more
    ctl = cl[claims.FIG11A[len("claim: "):]]["control: 4 MiB working set, bursts of 8"]
    assert ctl == "1"
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    # every run's parts add up to its mean latency (the means of parts that add up per request)
    for r in rows:
        parts = sum(float(r[k]) for k in ("host_queue_us", "io_queue_us", "flash_queue_us", "flash_us", "host_link_us"))
        assert abs(parts - float(r["all_us"])) <= 1e-6 * max(1.0, float(r["all_us"])), r
