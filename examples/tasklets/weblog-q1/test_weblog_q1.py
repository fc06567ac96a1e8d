"""The web-log Q1 user tasklet against the WorldCup98 reference decoder (native/tests/wc98.py) and the
built-in weblog-q1 on the same data: same rows; device time within 2x of the built-in's."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import sdktest  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weblog-q1.c")
WC98 = os.path.join(sdktest.ROOT, "native", "tests", "wc98.py")


def test_user_q1_equals_reference_and_builtin(tmp_path):
    log = tmp_path / "wc.bin"
    subprocess.run(["python3", WC98, "gen", str(log), "--records", "50000", "--entry-bytes", "64", "--seed", "5"],
                   check=True)
    ref = subprocess.run(["python3", WC98, "q1", str(log), "--entry-bytes", "64"], check=True, capture_output=True,
                         text=True).stdout
    want = [[r, int(c)] for r, c in (l.split("\t") for l in ref.strip().split("\n"))]
    dev = sdktest.Device(tmp_path, "q1-user", SRC, preset="smartssd-paper", capacity="64M")
    dev.put("wc", log.read_bytes())
    user = dev.run_json("wc", entry_bytes=64)
    builtin = dev.run_json("wc", tasklet="weblog-q1", entry_bytes=64)
    assert user["results"]["rows"] == want
    assert builtin["results"]["rows"] == want
    assert user["flash_bytes_read"] == builtin["flash_bytes_read"]
    assert builtin["device_ns"] <= user["device_ns"] <= 2 * builtin["device_ns"]


def test_native_build_gives_the_same_rows(tmp_path):
    log = tmp_path / "wc.bin"
    subprocess.run(["python3", WC98, "gen", str(log), "--records", "3000", "--entry-bytes", "20", "--seed", "2"],
                   check=True)
    trusted = tmp_path / "trusted"
    trusted.mkdir()
    so = trusted / "q1.so"
    subprocess.run(["python3", sdktest.SDK, "build", "-q", "--native", SRC, "-o", str(so)], check=True)
    dev = sdktest.Device(tmp_path, "q1-user", SRC)
    dev.put("wc", log.read_bytes())
    sdktest.csd("tasklet", "add", dev.img, "q1-native", "q1.so", "--native", "--set", f"tasklet_trusted_dir={trusted}")
    native = dev.run_json("wc", tasklet="q1-native", sets=[f"tasklet_trusted_dir={trusted}"])
    assert native["results"]["rows"] == dev.run("wc")
