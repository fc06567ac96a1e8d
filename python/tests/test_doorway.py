"""How a PySpark user gets the connector: the runtime jar alone on spark.jars (no fs.smartssd.impl),
spark-submit with the jars option from pip's pyspark, configure_spark's checks, and docs/SPARK.md's
PySpark section run as written."""
import os
import re
import subprocess
import sys
import time

import pytest

import smartssd
from conftest import CSD, ROOT, clf_log, spark_env, venv_bin

JARS_ONLY = r'''
import sys
from pyspark.sql import SparkSession
jar, sock = sys.argv[1:3]
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.jars", jar).config("spark.hadoop.fs.smartssd.device.d0.socket", sock).getOrCreate())
hc = spark.sparkContext._jsc.hadoopConfiguration()
print("impl before:", hc.get("fs.smartssd.impl"))
n = spark.read.format("smartssd").option("format", "text").load("smartssd://d0/access.log") \
    .where("value LIKE '%/images/%'").count()
print("device count:", n)
# the connector registered the scheme in the session's Hadoop configuration: Spark's own reader finds it too
print("spark count:", spark.read.text("smartssd://d0/access.log").where("value LIKE '%/images/%'").count())
spark.stop()
'''


def images_lines(log):
    with open(log) as f:
        return sum(1 for l in f if "/images/" in l)


def test_only_spark_jars(inputs, daemon, runtime_jar, tmp_path):
    script = tmp_path / "jars_only.py"
    script.write_text(JARS_ONLY)
    r = subprocess.run([sys.executable, str(script), runtime_jar, daemon], capture_output=True, text=True,
                       env=spark_env(), timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    want = images_lines(inputs.log)
    assert "impl before: None" in r.stdout, r.stdout
    assert "device count: %d" % want in r.stdout, r.stdout
    assert "spark count: %d" % want in r.stdout, r.stdout


SUBMIT_APP = r'''
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
df = spark.read.format("smartssd").schema("a INT, b STRING, c DOUBLE").option("delimiter", " ") \
    .load("smartssd://d0/space.csv")
for r in df.where("a > 500").groupBy("b").count().orderBy("b").collect():
    print("row", r[0], r[1])
spark.stop()
'''


def test_spark_submit_with_the_runtime_jar(inputs, daemon, runtime_jar, tmp_path):
    """pip's pyspark ships spark-submit: the runtime jar is the one jar it is given."""
    app = tmp_path / "app.py"
    app.write_text(SUBMIT_APP)
    r = subprocess.run([venv_bin("spark-submit"), "--master", "local[2]", "--jars", runtime_jar,
                        "--conf", "spark.ui.enabled=false",
                        "--conf", "spark.hadoop.fs.smartssd.device.d0.socket=" + daemon, str(app)],
                       capture_output=True, text=True, env=spark_env(), timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    want = {}
    with open(inputs.space_csv) as f:
        for line in f:
            a, b, _ = line.rstrip("\n").split(" ")
            if a and int(a) > 500:
                want[b] = want.get(b, 0) + 1
    got = {m.group(1): int(m.group(2)) for m in re.finditer(r"^row (\S+) (\d+)$", r.stdout, re.M)}
    assert got == want, r.stdout


def test_configure_spark_refuses_bad_devices(runtime_jar):
    class Builder:
        def __init__(self):
            self._options = {}

        def config(self, k, v):
            self._options[k] = v
            return self

    with pytest.raises(ValueError, match="exactly one of image"):
        smartssd.configure_spark(Builder(), devices={"d0": {"host": "n1"}})
    with pytest.raises(ValueError, match="device id"):
        smartssd.configure_spark(Builder(), devices={"a/b": "x.img"})
    with pytest.raises(ValueError, match="unknown key"):
        smartssd.configure_spark(Builder(), devices={"d0": {"image": "x.img", "imgae": "y"}})
    b = Builder()
    b._options["spark.jars"] = "/opt/other.jar"
    smartssd.configure_spark(b, devices={"d0": "x.img", "d1": {"socket": "/run/s.sock", "host": "n1"}})
    assert b._options["spark.jars"] == "/opt/other.jar," + runtime_jar
    assert b._options["spark.hadoop.fs.smartssd.device.d0.image"] == os.path.abspath("x.img")
    assert b._options["spark.hadoop.fs.smartssd.device.d1.socket"] == "/run/s.sock"
    assert b._options["spark.hadoop.fs.smartssd.device.d1.host"] == "n1"
    assert b._options["spark.hadoop.fs.smartssd.impl"] == "io.smartssd.hadoop.fs.SmartSsdFileSystem"


SHIM = """#!/bin/bash
case "$1" in
  csd) shift; exec "$CSD_BIN" "$@" ;;
  build) exit 0 ;;   # the Maven build running this test built everything
  *) echo "bin/smartssd $1: not run by this test" >&2; exit 99 ;;
esac
"""


def pyspark_section():
    """docs/SPARK.md's PySpark section: its shell lines and its Python program, as written."""
    text = open(os.path.join(ROOT, "docs", "SPARK.md"), encoding="utf-8").read()
    m = re.search(r"^## PySpark\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "docs/SPARK.md has no PySpark section"
    blocks = re.findall(r"^```(\w+)\n(.*?)^```", m.group(1), re.S | re.M)
    shell = [l for lang, b in blocks if lang == "sh" for l in b.splitlines() if l.strip()]
    python = [b for lang, b in blocks if lang == "python"]
    assert shell and len(python) == 1, blocks
    return shell, python[0]


def test_docs_pyspark_section_as_written(tmp_path):
    shell, program = pyspark_section()
    os.makedirs(tmp_path / "bin")
    (tmp_path / "bin" / "smartssd").write_text(SHIM)
    os.chmod(tmp_path / "bin" / "smartssd", 0o755)
    os.symlink(os.path.join(ROOT, "python"), tmp_path / "python")
    clf_log(tmp_path / "access.log")
    env = dict(spark_env(), CSD_BIN=CSD, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    daemons = []
    try:
        for line in shell:
            cmd = line.split("#")[0].strip()
            for sock in re.findall(r"--socket (\S+)", cmd):
                if os.path.exists(sock):
                    os.unlink(sock)
            if " csd serve " in cmd:   # a daemon, as docs/SPARK.md's reader starts it in another terminal
                daemons.append(subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=tmp_path, env=env,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                sock = re.search(r"--socket (\S+)", cmd).group(1)
                for _ in range(500):
                    if os.path.exists(sock):
                        break
                    time.sleep(0.02)
                assert os.path.exists(sock), line
                continue
            r = subprocess.run(["bash", "-e", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=600)
            assert r.returncode == 0, "%s\n%s\n%s" % (line, r.stdout[-2000:], r.stderr[-3000:])
        (tmp_path / "query.py").write_text(program)
        r = subprocess.run([sys.executable, "query.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stderr[-4000:]
        assert r.stdout.split() == [str(images_lines(tmp_path / "access.log"))], r.stdout
    finally:
        for d in daemons:
            d.terminate()
            d.wait(timeout=30)
