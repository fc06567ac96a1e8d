"""Fixtures of the PySpark suite: the repository's device tools (csd, csdd, the tasklet SDK), one device
image holding every input (CSV with space and tab delimiters, a web-server log, WorldCup98 records, a user
tasklet), served by a csdd daemon, and the same inputs as local files for Spark's own readers."""
import os
import random
import shutil
import struct
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.environ.get("SMARTSSD_NATIVE_BUILD") or os.path.join(ROOT, "native", "target", "build")
CSD = os.path.join(BUILD, "csd")
CSDD = os.path.join(BUILD, "csdd")
REGIONS = ["Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5", "region-6", "region-7"]
ENTRY_BYTES = 32


def run(*cmd, **kw):
    r = subprocess.run(list(cmd), capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s\nstdout: %s\nstderr: %s" % (" ".join(map(str, cmd)), r.stdout[-2000:], r.stderr[-2000:])
    return r.stdout


def clf_log(path, lines=3000):
    """A web-server access log in Common Log Format."""
    paths = ["/images/logo.gif", "/english/index.html", "/french/news.html", "/images/ball.jpg", "/cgi/q"]
    with open(path, "w") as f:
        for i in range(lines):
            f.write('10.0.%d.%d - - [30/Apr/1998:21:%02d:%02d +0000] "GET %s HTTP/1.0" %s %d\n'
                    % (i % 200, i % 7, i // 60 % 60, i % 60, paths[i * 7 % 5], ["200", "304", "404"][i % 3], 100 + i % 900))


def csv_rows(n, seed):
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "eps"]
    rows = []
    for i in range(n):
        a = rng.randrange(-50, 1000) if rng.random() > 0.03 else None     # some empty fields: NULL
        rows.append((a, rng.choice(words), round(rng.uniform(-10, 10), 3)))
    return rows


def write_csv(path, rows, sep):
    with open(path, "w") as f:
        for a, b, c in rows:
            f.write(sep.join(["" if a is None else str(a), b, repr(c)]) + "\n")


def wc98_rows(path):
    """The WorldCup98 records as (region, type, status_code, size) by a plain decoder."""
    out = []
    data = open(path, "rb").read()
    for off in range(0, len(data), ENTRY_BYTES):
        _, _, _, size, _, status, typ, server = struct.unpack(">IIIIBBBB", data[off:off + 20])
        out.append((server >> 5, typ, status & 0x3F, None if size == 0xFFFFFFFF else size))
    return out


class Inputs:
    """The inputs, as local files (Spark's own readers) and as objects on device d0."""

    def __init__(self, d):
        self.dir = d
        self.space_csv = os.path.join(d, "space.csv")
        self.tab_csv = os.path.join(d, "tab.csv")
        self.log = os.path.join(d, "access.log")
        self.wc98 = os.path.join(d, "wc98.bin")
        self.image = os.path.join(d, "dev.img")
        self.socket = os.path.join(d, "csdd.sock")
        self.wasm = os.path.join(d, "q1.wasm")


@pytest.fixture(scope="session")
def runtime_jar():
    import smartssd
    return smartssd.runtime_jar()


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    for tool in (CSD, CSDD):
        if not os.access(tool, os.X_OK):
            pytest.fail("%s is not built: build the repository first (bin/smartssd build)" % tool)
    d = str(tmp_path_factory.mktemp("smartssd"))
    i = Inputs(d)
    write_csv(i.space_csv, csv_rows(4000, 1), " ")
    write_csv(i.tab_csv, csv_rows(4000, 2), "\t")
    clf_log(i.log)
    run(sys.executable, os.path.join(ROOT, "native", "tests", "wc98.py"), "gen", i.wc98, "--records", "20000",
        "--entry-bytes", str(ENTRY_BYTES), "--seed", "7")
    run(CSD, "format", i.image, "--capacity", "256M")
    for name, path in (("space.csv", i.space_csv), ("tab.csv", i.tab_csv), ("access.log", i.log),
                       ("wc98.bin", i.wc98)):
        run(CSD, "put", i.image, name, path)
    # a user tasklet, built with the repository's SDK (C to WebAssembly) and installed on the device
    run(sys.executable, os.path.join(ROOT, "native", "sdk", "tasklet_sdk.py"), "build",
        os.path.join(ROOT, "examples", "tasklets", "weblog-q1", "weblog-q1.c"), "-o", i.wasm,
        env=dict(os.environ, CSD_BUILD=BUILD))
    run(CSD, "tasklet", "add", i.image, "q1-user", i.wasm)
    return i


@pytest.fixture(scope="session")
def daemon(inputs):
    """csdd serving the image: Spark's executors (other JVMs on local-cluster) all reach it."""
    p = subprocess.Popen([CSDD, inputs.image, "--socket", inputs.socket], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    for _ in range(500):
        if os.path.exists(inputs.socket) or p.poll() is not None:
            break
        time.sleep(0.02)
    assert os.path.exists(inputs.socket), "csdd did not start: %s" % p.stderr.read().decode(errors="replace")
    yield inputs.socket
    p.terminate()
    p.wait(timeout=30)


def spark_env():
    """What Spark's launcher needs from pip's pyspark: its Scala line for local-cluster, loopback only."""
    env = dict(os.environ)
    env.setdefault("SPARK_SCALA_VERSION", "2.13")
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    # this interpreter's environment first, as for a user whose virtual environment is active: pyspark's
    # launch scripts (spark-submit) look for pyspark with the python3 they find on PATH
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYSPARK_PYTHON"] = sys.executable
    return env


MASTERS = ["local[2]", "local-cluster[2,1,1024]"]


@pytest.fixture(scope="module", params=MASTERS)
def spark(request, daemon, runtime_jar):
    """A session through smartssd.configure_spark, on each master in turn."""
    from pyspark.sql import SparkSession
    import smartssd
    os.environ.update(spark_env())
    builder = (SparkSession.builder.master(request.param).appName("smartssd-pytest")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", "1g").config("spark.executor.memory", "1g"))
    s = smartssd.configure_spark(builder, devices={"d0": daemon}).getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()
    SparkSession.builder._options.clear()   # pyspark keeps builder options on the class


def venv_bin(name):
    return os.path.join(os.path.dirname(sys.executable), name)
