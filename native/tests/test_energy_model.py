"""The web-log report's energy model by phase (bench/energy.py; Smart SSD paper V-C-3, Fig. 10): joules
worked out by hand from the power levels, and the wr phase's device time measured through `csd put`
against the link's lower bound and against csd's own report. Run by ctest (cli_py) with CSD_BIN set."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import energy  # noqa: E402

CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))
POWER = {"host_idle_w": 44.0, "host_active_w": 35.0, "device_w": 0.5, "host_write_w": 20.0, "pause_s": 5.0}


def test_phases_by_hand():
    # host version: wr 2 s at 44 + 20 W = 128 J; pause 5 s at 44 W = 220 J; exec 3 s at 44 + 35 W = 237 J
    h = energy.phases("host-optimized", 3.0, 2.0, POWER)
    assert h == {"wr": 128.0, "pause": 220.0, "exec": 237.0, "total": 585.0, "exec_above_idle": 105.0}
    # device version: the same wr and pause; exec 4 s at 44 + 0.5 W = 178 J, 2 J above idle
    d = energy.phases("device", 4.0, 2.0, POWER)
    assert d == {"wr": 128.0, "pause": 220.0, "exec": 178.0, "total": 526.0, "exec_above_idle": 2.0}
    assert energy.phases("spark-device", 4.0, 2.0, POWER)["exec"] == 178.0
    assert energy.phases("host-normal", 3.0, 2.0, POWER)["exec"] == 237.0


def test_phases_without_the_write_phase():
    d = energy.phases("device", 1.0, None, POWER)
    assert d["wr"] is None and d["total"] is None
    assert d["exec"] == 44.5 and d["pause"] == 220.0


def test_defaults_are_the_papers_power_levels():
    p = energy.DEFAULT_POWER
    assert p["host_idle_w"] == 44.0 and p["host_active_w"] == 35.0 and p["pause_s"] == 5.0
    assert 0.5 <= p["device_w"] <= 0.8


def test_write_phase_is_measured_through_csd(tmp_path):
    if not os.access(CSD, os.X_OK):
        pytest.skip("csd is not built")
    sizes = [1 << 20, 3 << 20]
    wr = energy.write_phase_s(sizes, preset="smartssd-paper", csd=CSD)
    assert sorted(wr) == sizes
    # the link must carry every byte: smartssd-paper's SATA link moves 300 MB/s
    for n, s in wr.items():
        assert s >= n / 300e6
    assert wr[3 << 20] > wr[1 << 20]
    # the same number csd reports for the same write on a fresh image of the same preset
    img = tmp_path / "w.img"
    subprocess.run([CSD, "format", img, "--capacity", "64M", "--preset", "smartssd-paper"], check=True,
                   capture_output=True)
    src = tmp_path / "zeros"
    src.write_bytes(bytes(1 << 20))
    r = json.loads(subprocess.run([CSD, "put", img, "x", src, "--json"], check=True, capture_output=True).stdout)
    assert r["device_ns"] / 1e9 == wr[1 << 20]


def test_write_phase_without_csd(monkeypatch):
    # a missing build gives no wr phase (the report says so) rather than a guessed one
    monkeypatch.setattr(energy, "find_csd", lambda: None)
    assert energy.write_phase_s([1 << 20]) == {}
    # a named binary that is not there is an error
    with pytest.raises(FileNotFoundError):
        energy.write_phase_s([1 << 20], csd="/nonexistent/csd")
