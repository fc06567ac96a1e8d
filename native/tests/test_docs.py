"""The README and docs/ as a new user meets them: every page linked from the README, nothing pointing
outside the repository, and every device command they show run as written.

Each fenced block that shows `bin/smartssd csd|tasklet|plot` lines is run line by line, in order, in a
scratch directory holding the inputs a user brings (an `access.log` in Common Log Format) and links to
the repository's `native/`, `examples/` and `bench/`. There `bin/smartssd` is a small stand-in that runs
what the launcher runs for those commands (the built `csd`, the tasklet SDK, the trace plotter) without
rebuilding. Daemons a block starts (`csd serve`) are stopped when the block ends; `csd top` runs until its
first frames. Lines of the Java tools are run by the examples module's DocCommandsTest; here they are
checked to name a launcher command that exists, and `bench NAME` lines a bench that exists."""
import os
import re
import shlex
import subprocess
import sys
import time

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROOT = os.path.abspath(os.path.join(NATIVE, ".."))
CSD = os.path.abspath(os.environ.get("CSD_BIN") or os.path.join(NATIVE, "target", "build", "csd"))
PAGES = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))

SHIM = """#!/bin/bash
# what bin/smartssd runs for the commands these tests execute, without a rebuild
case "$1" in
  csd) shift; exec "$CSD_BIN" "$@" ;;
  tasklet) shift; exec python3 "$SMARTSSD_ROOT/native/sdk/tasklet_sdk.py" "$@" ;;
  plot) shift; [ "$1" = trace ] || exit 2; shift; exec python3 "$SMARTSSD_ROOT/native/tools/plot_trace.py" "$@" ;;
  *) echo "bin/smartssd $1: not run by test_docs.py" >&2; exit 99 ;;
esac
"""
RUN_HERE = ("csd", "tasklet", "plot")


def blocks(page):
    """(first line number, [command lines]) of each fenced block; `\\` continuations joined."""
    out, cur, start, inside = [], [], 0, False
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                if inside:
                    out.append((start, cur))
                inside, cur, start = not inside, [], n
                continue
            if inside:
                text = line.rstrip("\n")
                if cur and cur[-1].endswith("\\"):
                    cur[-1] = cur[-1][:-1] + text.strip()
                else:
                    cur.append(text.strip())
    return out


def launcher_lines(lines):
    return [l for l in lines if l.startswith("bin/smartssd ")]


def launcher_commands():
    usage = subprocess.run(["bash", os.path.join(ROOT, "bin", "smartssd"), "help"], capture_output=True,
                           text=True).stdout
    return set(re.findall(r"^  ([a-z]+)\b", usage, flags=re.M))


def placeholder(line):
    # IMG, FILE, SOCKET...: a shape to fill in, not a command to run
    return re.search(r"(?<![\w/.=-])[A-Z]{3,}(?![\w.])", line.split("#")[0]) is not None


def clf_log(path, lines=4000):
    methods = ["GET", "GET", "GET", "POST", "HEAD"]
    paths = ["/images/logo.gif", "/english/index.html", "/french/news.html", "/images/ball.jpg", "/cgi/q"]
    codes = ["200", "200", "304", "404"]
    with open(path, "w") as f:
        for i in range(lines):
            f.write(f'10.0.{i % 200}.{i % 7} - - [30/Apr/1998:21:{i // 60 % 60:02d}:{i % 60:02d} +0000] '
                    f'"{methods[i % 5]} {paths[i * 7 % 5]} HTTP/1.0" {codes[i % 4]} {100 + i % 900}\n')


def test_every_doc_is_linked_from_the_readme():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    missing = [p for p in PAGES[1:] if f"({p})" not in readme]
    assert not missing, f"docs pages the README does not link: {missing}"


def test_links_between_pages_resolve():
    broken = []
    for page in PAGES:
        text = open(os.path.join(ROOT, page), encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            if not os.path.exists(os.path.normpath(os.path.join(ROOT, os.path.dirname(page), target))):
                broken.append(f"{page} -> {target}")
    assert not broken, broken


def test_nothing_points_outside_the_repository():
    # the patterns are assembled so that this file does not match itself
    pats = [r"\.\./" + "shared", "/wo" + "rk/", "STACK" + r"\.md", "DESIGN" + r"\.md", r"\b[Ii]ss" + r"ue #?\d+"]
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split("\n")
    hits = []
    for f in files:
        if not f or "/corpus/" in f or "Inputs/" in f or not re.search(r"\.(md|c|h|py|java|xml|sh|proto|txt|conf|map)$|^bin/", f):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for p in pats:
            for m in re.finditer(p, text):
                hits.append(f"{f}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert not hits, hits


def test_every_launcher_line_names_a_command_and_bench_that_exist():
    cmds = launcher_commands()
    assert {"csd", "bench", "weblog", "demo", "test"} <= cmds, cmds
    benches = {f[:-3] for f in os.listdir(os.path.join(ROOT, "bench")) if f.endswith(".py")}
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import benchlib
        benches |= set(benchlib.ALIASES)
    finally:
        sys.path.pop(0)
    bad = []
    for page in PAGES:
        for start, lines in blocks(page):
            for line in launcher_lines(lines):
                for part in line.split("#")[0].split(";"):
                    w = shlex.split(part)
                    if not w:
                        continue
                    if w[0] != "bin/smartssd" or len(w) < 2 or w[1] not in cmds:
                        bad.append(f"{page}:{start}: {part.strip()}")
                    elif w[1] == "bench" and (len(w) < 3 or w[2] not in benches):
                        bad.append(f"{page}:{start}: no bench {w[2:3]}")
    assert not bad, bad


def runnable_blocks(page):
    out = []
    for start, lines in blocks(page):
        run = [l for l in launcher_lines(lines) if l.split()[1] in RUN_HERE and not placeholder(l)]
        if run:
            # with the data generators the block shows
            out.append((start, [l for l in lines if l in run or l.startswith("python3 native/")]))
    return out


@pytest.mark.parametrize("page", [p for p in PAGES if runnable_blocks(p)])
def test_device_commands_run_as_written(page, tmp_path):
    """A page's blocks in order, in one directory: later blocks use what earlier ones made."""
    todo = runnable_blocks(page)
    if any(" tasklet " in l for _, lines in todo for l in lines) and not os.path.exists("/usr/lib/wasm32-wasi/libc.a"):
        pytest.skip("the tasklet SDK needs wasi-libc")
    os.makedirs(tmp_path / "bin")
    (tmp_path / "bin" / "smartssd").write_text(SHIM)
    os.chmod(tmp_path / "bin" / "smartssd", 0o755)
    for d in ("native", "examples", "bench"):
        os.symlink(os.path.join(ROOT, d), tmp_path / d)
    clf_log(tmp_path / "access.log")
    (tmp_path / "README.md").write_bytes(open(os.path.join(ROOT, "README.md"), "rb").read())
    env = dict(os.environ, CSD_BIN=CSD, SMARTSSD_ROOT=ROOT, PWD=str(tmp_path))
    for start, lines in todo:
        run_block(page, start, lines, tmp_path, env)


def run_block(page, start, lines, tmp_path, env):
    daemons = []
    try:
        for line in lines:
            # sockets in /tmp as written: one block at a time may use a path, so a daemon takes it over
            # (a client's --socket, as csd nbd's, is the daemon's it reaches)
            for sock in re.findall(r"--socket (\S+)", line) if " csd serve " in line else []:
                if os.path.exists(sock):
                    os.unlink(sock)
            if " csd serve " in line:
                daemons.append(subprocess.Popen(["bash", "-c", line], cwd=tmp_path, env=env,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
                sock = re.search(r"--socket (\S+)", line).group(1)
                for _ in range(500):
                    if os.path.exists(sock):
                        break
                    time.sleep(0.02)
                assert os.path.exists(sock), f"{page}:{start}: {line}: no socket"
                continue
            if " csd top " in line:
                p = subprocess.Popen(["bash", "-c", "exec " + line], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                try:
                    out, err = p.communicate(timeout=3)
                except subprocess.TimeoutExpired:
                    p.terminate()
                    out, err = p.communicate(timeout=10)
                assert "device clock" in out, f"{page}:{start}: {line}: {err}"
                continue
            r = subprocess.run(["bash", "-e", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=300)
            assert r.returncode == 0, f"{page}:{start}: {line}\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}"
            if "--json" in line and ";" not in line:
                import json
                json.loads(r.stdout)
    finally:
        for d in daemons:
            d.terminate()
            d.wait(timeout=30)
