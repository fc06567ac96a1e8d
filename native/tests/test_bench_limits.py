"""bench scan's memory limits compute what the tasklet they are set against computes: the loops of
native/bench/bench_mem_limit read the same bytes (weblog: the type and server bytes 18-19 of every
record) and give the same answer as `csd run` of weblog-q1, weblog-q2, grep and the text plan, on one
thread and split over several (records and lines never cut). Run by ctest (cli_py) with CSD_BIN set."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
LIMIT = os.path.join(os.path.dirname(CSD), "bench_mem_limit")
WC98 = os.path.join(HERE, "wc98.py")
SCAN = os.path.join(HERE, "..", "..", "bench")

PLAN_TEXT = None   # bench/scan.py's plan, read from there so the two cannot drift


def plan_text():
    global PLAN_TEXT
    if PLAN_TEXT is None:
        sys.path.insert(0, SCAN)
        import scan   # noqa: E402
        PLAN_TEXT = scan.PLAN_TEXT
    return PLAN_TEXT


def csd(*args):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout) if "--json" in args else p.stdout


def limit(path, *args, threads=1):
    p = subprocess.run([LIMIT, str(path), *map(str, args), "-t", str(threads), "-n", "1"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["threads"] == threads and len(out["ns"]) == 1
    return out["answer"]


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    if not os.path.exists(LIMIT):
        pytest.skip("bench_mem_limit is not built")
    d = tmp_path_factory.mktemp("limits")
    img = d / "dev.img"
    csd("format", img, "--capacity", "64M")
    return d, img


@pytest.mark.parametrize("entry", [20, 32, 128])
def test_weblog_limits_answer_as_the_tasklets(device, entry):
    d, img = device
    recs = d / f"wc-{entry}.bin"
    # 40,001 records: no thread count splits them evenly; the seed gives every region and type
    subprocess.run([sys.executable, WC98, "gen", recs, "--records", "40001", "--entry-bytes", str(entry),
                    "--seed", "11"], check=True, capture_output=True)
    name = f"wc{entry}"
    csd("put", img, name, recs)
    q1 = csd("run", img, "weblog-q1", "--input", name, "--param", f"entry_bytes={entry}", "--json")["results"]
    q2 = csd("run", img, "weblog-q2", "--input", name, "--param", f"entry_bytes={entry}", "--json")["results"]
    q2_counts = {region: v["types"] for region, v in q2["regions"].items()}
    assert sum(q1["regions"].values()) == 40001 and len(q1["regions"]) >= 2
    for t in (1, 2, 3, 7):
        assert limit(recs, "weblog-q1", entry, threads=t) == q1["regions"]
        assert limit(recs, "weblog-q2", entry, threads=t) == q2_counts


def clf(path, lines):
    methods = ["GET", "GET", "GET", "POST", "HEAD"]
    paths = ["/images/logo.gif", "/english/index.html", "/french/news.html", "/images/ball.jpg", "/cgi/q"]
    codes = ["200", "200", "304", "404", "200"]
    with open(path, "w") as f:
        for i in range(lines):
            size = "-" if i % 97 == 0 else str(100 + i * 31 % 9000)
            f.write(f'10.0.{i % 200}.{i % 7} - - [30/Apr/1998:21:{i // 60 % 60:02d}:{i % 60:02d} +0000] '
                    f'"{methods[i % 5]} {paths[i * 7 % 5]} HTTP/1.0" {codes[i * 3 % 5]} {size}\n')


def test_text_limits_answer_as_grep_and_the_plan(device):
    d, img = device
    log = d / "access.log"
    clf(log, 30011)
    csd("put", img, "clf", log)
    plan = d / "plan.bin"
    with open(plan, "wb") as f:
        subprocess.run(["protoc-c", "--encode=smartssd.v1.Plan", "-I", os.path.join(HERE, "..", "..", "proto"),
                        os.path.join(HERE, "..", "..", "proto", "smartssd", "v1", "device.proto")],
                       input=plan_text().encode(), stdout=f, check=True)
    grep = csd("run", img, "grep", "--input", "clf", "--param", "pattern=/images/", "--json")["results"]["count"]
    rows = csd("run", img, "plan", "--input", "clf", "--plan", plan, "--json")["results"]["rows"]
    assert grep > 0 and len(rows) >= 2
    for t in (1, 2, 5):
        assert limit(log, "memmem", "/images/", threads=t) == grep
        assert limit(log, "plan-text", threads=t) == sorted(rows)
        assert limit(log, "lines", threads=t) == 30011


def test_bad_arguments_are_refused(device):
    d, _ = device
    recs = d / "wc-20.bin"
    for args in (["weblog-q1"], ["weblog-q1", "8"], ["stride", "128", "8", "1"], ["memmem", "x", "-t", "0"]):
        p = subprocess.run([LIMIT, str(recs), *args], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr
