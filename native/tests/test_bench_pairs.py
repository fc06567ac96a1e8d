"""bench/vs.py, the machinery of `bench pairs` and `bench scan --vs`: pairs run A then B, the ratios
are taken pair by pair, the two outputs must agree (wall-clock keys aside), tools are taken from the
build asked for, and a commit that is not one is refused."""
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import vs  # noqa: E402


def test_outputs_compare_without_wall_clock_keys():
    a = '{"device_ns": 5, "replay_wall_s": 1.0, "cpu_s": 3, "rows": [[1, {"x_wall": 2}]]}'
    b = '{"device_ns": 5, "replay_wall_s": 9.0, "cpu_s": 1, "rows": [[1, {"x_wall": 7}]]}'
    assert vs.comparable(a) == vs.comparable(b)
    assert vs.comparable('{"device_ns": 5}') != vs.comparable('{"device_ns": 6}')
    assert vs.comparable("text 1\n") != vs.comparable("text 2\n")


def test_pairs_alternate_and_take_ratios_pair_by_pair(tmp_path):
    log = tmp_path / "order"
    a = ["sh", "-c", f"echo A >> {log}; echo same"]
    b = ["sh", "-c", f"echo B >> {log}; sleep 0.05; echo same"]
    ps = vs.pairs(a, b, 5, label="t")
    assert log.read_text().split() == ["A", "B"] * 5
    assert len(ps) == 5 and all(p["wall_ratio"] == p["a_wall_s"] / p["b_wall_s"] for p in ps)
    assert all(p["wall_ratio"] < 1 for p in ps)   # B sleeps


def test_different_outputs_stop_the_pairs():
    with pytest.raises(SystemExit, match="outputs differ"):
        vs.pairs(["echo", "1"], ["echo", "2"], 5)
    assert len(vs.pairs(["echo", "1"], ["echo", "2"], 5, same_output=False)) == 5


def test_fewer_than_five_pairs_are_refused():
    with pytest.raises(SystemExit, match="at least 5"):
        vs.pairs(["true"], ["true"], 4)


def test_tools_come_from_the_build_asked_for():
    assert vs.with_build(["csd", "run", "x.img", "csd.txt"], "/b") == ["/b/csd", "run", "x.img", "csd.txt"]


def test_a_ref_that_is_no_commit_is_refused():
    with pytest.raises(SystemExit, match="not a commit"):
        vs.resolve("no-such-ref-anywhere")
