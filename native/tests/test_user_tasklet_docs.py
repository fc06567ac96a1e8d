"""The user-tasklet commands shown in docs/USER-TASKLETS.md and README.md, run as written (paths moved
into a scratch directory): scaffold, build, install, list, run, remove."""
import json
import os
import shutil
import subprocess

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROOT = os.path.abspath(os.path.join(NATIVE, ".."))
SDK = os.path.join(NATIVE, "sdk", "tasklet_sdk.py")
CSD = os.path.abspath(os.environ.get("CSD_BIN") or os.path.join(NATIVE, "target", "build", "csd"))

pytestmark = pytest.mark.skipif(not shutil.which("clang") or not os.path.exists("/usr/lib/wasm32-wasi/libc.a"),
                                reason="the tasklet SDK needs clang and wasi-libc")


def run(*args, cwd):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, f"{args}: {r.stderr} {r.stdout}"
    return r.stdout


def test_five_commands_of_the_guide(tmp_path):
    shutil.copy(os.path.join(ROOT, "README.md"), tmp_path / "README.md")
    run("python3", SDK, "new", "my-count", "--dir", "out/tasklets", cwd=tmp_path)
    run("python3", SDK, "build", "out/tasklets/my-count/my-count.c", cwd=tmp_path)
    assert (tmp_path / "out/tasklets/my-count/my-count.wasm").exists()
    run(CSD, "format", "out/ut.img", "--capacity", "64M", cwd=tmp_path)
    run(CSD, "tasklet", "add", "out/ut.img", "my-count", "out/tasklets/my-count/my-count.wasm", cwd=tmp_path)
    run(CSD, "put", "out/ut.img", "notes.txt", "README.md", cwd=tmp_path)
    got = json.loads(run(CSD, "run", "out/ut.img", "my-count", "--input", "notes.txt", "--param", "word=tasklet",
                         "--json", cwd=tmp_path))
    lines = (tmp_path / "README.md").read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    assert got["results"]["rows"] == [[sum(1 for l in lines if b"tasklet" in l)]]
    # the scaffold's own test passes against its Python reference
    env = dict(os.environ, CSD_BIN=CSD)
    r = subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "out/tasklets/my-count"],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    ls = json.loads(run(CSD, "tasklet", "ls", "out/ut.img", "--json", cwd=tmp_path))
    assert [t["name"] for t in ls["tasklets"]] == ["my-count"]
    ident = json.loads(run(CSD, "identify", "out/ut.img", "--json", cwd=tmp_path))
    assert ident["user_tasklets"] == ["my-count"] and ident["sandbox"].startswith("wasmtime ")
    again = json.loads(run(CSD, "tasklet", "add", "out/ut.img", "my-count", "out/tasklets/my-count/my-count.wasm",
                           "--json", cwd=tmp_path))
    assert again["unchanged"] is True
    run(CSD, "tasklet", "rm", "out/ut.img", "my-count", cwd=tmp_path)
    assert json.loads(run(CSD, "tasklet", "ls", "out/ut.img", "--json", cwd=tmp_path))["tasklets"] == []


def test_tasklet_usage_errors_exit_2(tmp_path):
    r = subprocess.run([CSD, "tasklet", "frobnicate", "x.img"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown action 'frobnicate'" in r.stderr
    r = subprocess.run([CSD, "tasklet", "add", "x.img"], capture_output=True, text=True)
    assert r.returncode == 2 and "add needs IMAGE NAME FILE" in r.stderr
