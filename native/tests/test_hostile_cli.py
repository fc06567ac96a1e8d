"""Hostile names and users through the csd CLI and the csdd daemon: each refused with a clear message
and a non-zero exit, nothing stored disturbed (docs/RELIABILITY.md). Run by ctest (cli_py)."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CSD = os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd"))


def csd(*args):
    return subprocess.run([CSD, *map(str, args)], capture_output=True)


@pytest.fixture()
def tiny(tmp_path):
    img = tmp_path / "tiny.img"
    assert csd("format", img, "--capacity", "8M", "--preset", "tiny").returncode == 0
    return img


@pytest.mark.parametrize("name,why", [
    ("../etc/passwd", "a name cannot hold a '..' component"),
    ("a//b", "empty component"),
    ("/abs", "cannot start with '/'"),
    ("a/./b", "a '.' component"),
    ("bell\x07", "control character U+0007"),
    ("cafe\u0301", "its NFC spelling is 'caf\u00e9'"),
    ("x" * 1025, "1025 bytes exceeds the limit of 1024"),
])
def test_put_refuses_hostile_names(tiny, tmp_path, name, why):
    src = tmp_path / "src.txt"
    src.write_bytes(b"hello\n")
    assert csd("put", tiny, "good", src).returncode == 0
    p = csd("put", tiny, name, src)
    assert p.returncode != 0
    err = p.stderr.decode()
    assert "INVALID_ARGUMENT" in err and why in err, err
    assert "\x07" not in err   # the name is shown escaped, never raw
    ls = csd("ls", tiny).stdout.decode()
    assert "good" in ls and len(ls.strip().splitlines()) == 1
    assert csd("check", tiny).returncode == 0


def test_mv_refuses_hostile_target(tiny, tmp_path):
    src = tmp_path / "src.txt"
    src.write_bytes(b"data\n")
    assert csd("put", tiny, "keep", src).returncode == 0
    p = csd("mv", tiny, "keep", "../keep")
    assert p.returncode != 0 and b"'..' component" in p.stderr
    out = tmp_path / "back.txt"
    assert csd("get", tiny, "keep", out).returncode == 0 and out.read_bytes() == b"data\n"


def test_serve_allow_list_usage(tiny, tmp_path):
    p = csd("serve", tiny, "--socket", tmp_path / "s.sock", "--allow", "no-such-user-here")
    assert p.returncode == 2
    assert b"--allow takes uids or user names" in p.stderr
    p = csd("serve", tiny, "--socket", tmp_path / "s.sock", "--max-clients", "0")
    assert p.returncode == 2


def test_serve_refuses_open_directory(tiny, tmp_path):
    d = tmp_path / "open"
    d.mkdir()
    os.chmod(d, 0o777)
    p = csd("serve", tiny, "--socket", d / "s.sock")
    assert p.returncode != 0
    assert b"other users may write to this directory" in p.stderr
