"""Seeing the device work, from the command line: `csd run --trace` writes a trace-event JSON file
that parses as the format Perfetto reads and agrees with the run's own numbers; `csd top` draws a
frame from the stats command (of an image, and of a daemon while a tasklet runs); paced mode makes
wall time follow device time; `plot trace` draws a Gantt chart. Run by ctest (cli_py)."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
PLOT = os.path.join(HERE, "..", "tools", "plot_trace.py")
TEXT = b"".join(b"GET /images/%d.gif HTTP/1.0 200\n" % i if i % 3 else b"POST /cgi/%d HTTP/1.1 304\n" % i
                for i in range(6000))


def csd(*args, ok=True):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True)
    if ok and p.returncode:
        raise AssertionError(f"csd {' '.join(map(str, args))}: {p.returncode} {p.stderr}")
    return p


@pytest.fixture()
def image(tmp_path):
    img = tmp_path / "dev.img"
    csd("format", img, "--capacity", "16M", "--preset", "tiny")
    log = tmp_path / "access.log"
    log.write_bytes(TEXT)
    csd("put", img, "access.log", log)
    return img


def test_trace_is_trace_event_json_matching_the_run(image, tmp_path):
    out = tmp_path / "run.json"
    run = json.loads(csd("run", image, "grep", "--input", "access.log", "--param", "pattern=POST",
                         "--trace", out, "--json").stdout)
    assert run["results"]["count"] == 2000
    doc = json.loads(out.read_text())
    assert doc["displayTimeUnit"] == "ns" and doc["otherData"]["dropped"] == 0
    events = doc["traceEvents"]
    threads = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert threads[1] == "core 0" and threads[2] == "core 1" and threads[1001] == "chip 0"
    spans = [e for e in events if e["ph"] == "X"]
    for e in spans:   # the fields a trace-event viewer needs, with sane values
        assert {"name", "ph", "pid", "tid", "ts", "dur"} <= e.keys() and e["dur"] >= 0 and e["tid"] in threads
    core = [e for e in spans if e["tid"] < 1000]
    pages = sum(1 for e in core if e["name"] == "P")
    assert pages == run["pages"]                                  # one P slot per page processed
    assert sum(1 for e in core if e["name"] == "finish") == 1
    reads = [e for e in spans if 1001 <= e["tid"] < 2000 and e["name"] == "read"]
    assert len(reads) * 4096 == run["flash_bytes_read"]           # one array read per flash page
    host = [e for e in spans if e["tid"] == 3002]
    assert [e["name"] for e in host][:4] == ["stat", "create_object", "create_object", "execute_object"]
    counters = [e for e in events if e["ph"] == "C"]
    assert any(e["name"] == "isp buffer bytes" for e in counters)
    end = max(e["ts"] + e["dur"] for e in spans)
    assert end * 1000 >= run["device_ns"]                          # the timeline covers the run


def test_trace_bad_inputs(image, tmp_path):
    p = csd("run", image, "grep", "--input", "access.log", "--param", "pattern=x", "--trace",
            tmp_path / "no" / "such" / "dir" / "t.json", ok=False)
    assert p.returncode == 1 and "trace_file" in p.stderr
    p = csd("run", image, "grep", "--input", "access.log", "--trace", "", ok=False)
    assert p.returncode == 2
    p = csd("run", image, "grep", "--input", "access.log", "--set", "trace_events=0", ok=False)
    assert p.returncode != 0 and "trace_events" in (p.stderr + p.stdout)
    # a ring smaller than the run keeps the newest events and says how many it dropped
    out = tmp_path / "ring.json"
    csd("run", image, "grep", "--input", "access.log", "--param", "pattern=x", "--trace", out,
        "--set", "trace_events=20")
    doc = json.loads(out.read_text())
    assert doc["otherData"]["events"] == 20 and doc["otherData"]["dropped"] > 0
    # and the image keeps no trace setting from a format
    img = tmp_path / "t.img"
    csd("format", img, "--capacity", "8M", "--preset", "tiny", "--set", f"trace_file={tmp_path / 'x.json'}")
    ident = json.loads(csd("identify", img, "--json").stdout)
    assert ident["params"]["trace_file"] == ""


def test_top_frames(image):
    p = csd("top", image, "--iterations", "2", "--interval", "0.05")
    assert "core 0" in p.stdout and "core 1" in p.stdout and "chip queues" in p.stdout
    assert p.stdout.count("device clock") == 2
    assert csd("top", image, "--interval", "0", ok=False).returncode == 2


def test_top_on_a_daemon_while_a_tasklet_runs(image, tmp_path):
    sock = str(tmp_path / "d.sock")
    daemon = subprocess.Popen([CSD, "serve", str(image), "--socket", sock], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.02)
        # frames while a client's tasklet runs (or has just run) on the daemon
        run = subprocess.Popen([CSD, "run", sock, "grep", "--input", "access.log", "--param", "pattern=POST",
                                "--json"], stdout=subprocess.PIPE, text=True)
        frames = csd("top", sock, "--iterations", "3", "--interval", "0.05").stdout
        assert frames.count("device clock") == 3
        out, _ = run.communicate(timeout=60)
        assert json.loads(out)["results"]["count"] == 2000
        # the daemon serves the CLI's commands over the socket, but not bulk data
        p = csd("get", sock, "access.log", tmp_path / "copy", ok=False)
        assert p.returncode != 0
        # every command of the schema has its counter, the newest ones too
        csd("tasklet", "ls", sock)
        csd("tasklet", "ls", sock)
        stats = json.loads(csd("stats", sock, "--json").stdout)
        counters = stats.get("counters", stats)
        assert counters["commands.list_tasklets"] == 2
        assert counters["commands.execute_object"] == 1
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)


def test_paced_wall_time_follows_device_time(image):
    t0 = time.monotonic()
    run = json.loads(csd("run", image, "grep", "--input", "access.log", "--param", "pattern=POST", "--json",
                         "--set", "paced=1").stdout)
    wall = time.monotonic() - t0
    assert run["device_ns"] > 1_000_000
    assert wall * 1e9 >= run["device_ns"]        # never ahead of the device (the bench measures how close)


def test_plot_trace_draws_a_png(image, tmp_path):
    out = tmp_path / "run.json"
    csd("run", image, "grep", "--input", "access.log", "--param", "pattern=POST", "--trace", out)
    png = tmp_path / "gantt.png"
    p = subprocess.run([sys.executable, PLOT, out, "--out", png, "--tracks", "core,chip,channel"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    p = subprocess.run([sys.executable, PLOT, out, "--tracks", "cores"], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown track kind" in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    p = subprocess.run([sys.executable, PLOT, bad], capture_output=True, text=True)
    assert p.returncode != 0 and "not a readable trace" in p.stderr
