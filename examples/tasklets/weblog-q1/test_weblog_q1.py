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


def test_declared_filters_run_on_the_device(tmp_path):
    """The schema in weblog-q1.c reaches the device; a filter it declares drops rows there (the answer is
    the reference's rows that pass it, computed here); one it does not declare is refused."""
    log = tmp_path / "wc.bin"
    subprocess.run(["python3", WC98, "gen", str(log), "--records", "20000", "--entry-bytes", "32", "--seed", "3",
                    "--mix", "uniform"], check=True)
    ref = subprocess.run(["python3", WC98, "q1", str(log), "--entry-bytes", "32"], check=True, capture_output=True,
                         text=True).stdout
    want = [[r, int(c)] for r, c in (l.split("\t") for l in ref.strip().split("\n"))]
    dev = sdktest.Device(tmp_path, "q1-user", SRC)
    dev.put("wc", log.read_bytes())
    ls = sdktest.json.loads(sdktest.csd("tasklet", "ls", dev.img, "--json"))["tasklets"][0]
    assert ls["schema"] == "region STRING FILTER(= <> IN STARTS_WITH NULL), count BIGINT FILTER(= <> < <= > >=)"
    assert ls["summary"].startswith("accesses per region")
    everything = dev.run_json("wc", entry_bytes=32)
    assert everything["results"]["rows"] == want and everything["rows_filtered"] == 0
    median = sorted(c for _, c in want)[len(want) // 2]
    cases = [
        (["region IN Paris,Plano,region-7"], lambda r, c: r in ("Paris", "Plano", "region-7")),
        ([f"count >= {median}"], lambda r, c: c >= median),
        (["region STARTS_WITH region-", f"count < {median}"], lambda r, c: r.startswith("region-") and c < median),
        (["region <> Herndon"], lambda r, c: r != "Herndon"),
    ]
    for filters, keep in cases:
        args = ["run", dev.img, "q1-user", "--input", "wc", "--param", "entry_bytes=32", "--json"]
        for f in filters:
            args += ["--filter", f]
        got = sdktest.json.loads(sdktest.csd(*args))
        kept = [[r, c] for r, c in want if keep(r, c)]
        assert got["results"]["rows"] == kept, filters
        assert 0 < len(kept) < len(want)
        assert got["rows_filtered"] == len(want) - len(kept)
        assert got["bytes_to_host"] < everything["bytes_to_host"]
    try:
        sdktest.csd("run", dev.img, "q1-user", "--input", "wc", "--param", "entry_bytes=32", "--filter", "count IN 1,2")
        raise AssertionError("expected a refusal")
    except RuntimeError as e:
        assert "UNSUPPORTED" in str(e) and "does not take filter IN on column 'count'" in str(e)
