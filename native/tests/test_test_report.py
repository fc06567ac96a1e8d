"""bin/test-report: the per-module summary `bin/smartssd test` ends with, and its log check."""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bin", "test-report")

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modules>
<module>native</module><module>lib</module></modules></project>"""

SUREFIRE = """<?xml version="1.0"?>
<testsuite name="io.x.OuterTest" time="2.5" tests="0" errors="0" skipped="0" failures="0">
  <testcase name="a" classname="io.x.OuterTest$Inner" time="1"/>
  <testcase name="b" classname="io.x.OuterTest$Inner" time="1"><failure message="boom"/></testcase>
  <testcase name="c" classname="io.x.OuterTest$Inner" time="0"><skipped/></testcase>
  <testcase name="d" classname="io.x.OuterTest" time="0.5"><error message="npe"/></testcase>
</testsuite>"""

CTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux" tests="3" failures="0" disabled="1" skipped="0" hostname="" time="4">
  <testcase name="test_a" classname="test_a" time="1" status="run"/>
  <testcase name="test_b" classname="test_b" time="3" status="run"/>
  <testcase name="test_c" classname="test_c" time="0" status="disabled"><skipped/></testcase>
</testsuite>"""


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_summary_counts_testcases_of_this_run_only(tmp_path):
    root = str(tmp_path)
    write(os.path.join(root, "pom.xml"), POM)
    write(os.path.join(root, "native/target/build/ctest-junit.xml"), CTEST)
    stale = os.path.join(root, "native/target/build-asan/ctest-junit.xml")
    write(stale, CTEST)
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    marker = os.path.join(root, "started")
    write(marker, "")
    os.utime(marker, (time.time() - 60, time.time() - 60))
    write(os.path.join(root, "lib/target/surefire-reports/TEST-io.x.OuterTest.xml"), SUREFIRE)
    r = run("summary", "--since", marker, "--root", root)
    lines = r.stdout.splitlines()
    assert r.returncode == 1, r.stdout  # a failure and an error
    assert any(l.split()[:2] == ["native", "ctest"] and "tests    3" in l and "skipped   1" in l for l in lines), r.stdout
    assert any("ASan+UBSan" in l and l.endswith("not run") for l in lines), r.stdout  # older than the marker
    assert any(l.split()[:2] == ["lib", "surefire"] and "tests    4" in l and "failed   2" in l and "FAILED" in l
               for l in lines), r.stdout
    assert lines[-1] == "total: 3 passed, 2 failed, 2 skipped", r.stdout


def log(*test_lines):
    return "\n".join([
        "[INFO] Building smartssd lib 0.1.0-SNAPSHOT                         [2/3]",
        "[INFO] -------------------------------------------------------",
        "[INFO]  T E S T S",
        "[INFO] -------------------------------------------------------",
        *test_lines,
        "[INFO] Results:",
        "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
        "[INFO] Building smartssd other 0.1.0-SNAPSHOT                       [3/3]",
        "[INFO] BUILD SUCCESS",
    ]) + "\n"


def test_check_log_flags_third_party_info_and_long_test_output(tmp_path):
    p = tmp_path / "mvn.log"
    ours = ["[main] INFO io.smartssd.hadoop.X - device d0 opened",
            "17:26:26.621 INFO io.smartssd.spark.DeviceRun: ran", "[main] WARN org.apache.hadoop.Y - careful"]
    p.write_text(log(*ours))
    r = run("check-log", str(p))
    assert r.returncode == 0, r.stdout
    for bad in ("[main] INFO org.apache.hadoop.yarn.Foo - started",  # slf4j-simple
                "17:26:26.621 INFO org.apache.spark.SparkContext: Running Spark",  # log4j2
                "INFO: Registering org.apache.hadoop.yarn.webapp.GenericExceptionHandler as a provider class"):  # JUL
        p.write_text(log(bad))
        r = run("check-log", str(p))
        assert r.returncode == 1 and "third-party INFO" in r.stdout, (bad, r.stdout)
    p.write_text(log(*["[main] WARN org.apache.hadoop.Y - again"] * 61))
    r = run("check-log", str(p))
    assert r.returncode == 1 and "printed 61 lines (bound 60)" in r.stdout, r.stdout
    r = run("check-log", str(p), "--max-module-lines", "61")
    assert r.returncode == 0, r.stdout
