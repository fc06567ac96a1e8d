"""The device's folders are its layers: dependencies between folders point down the layer order, no
files depend on each other in a circle (by includes or by calls), and docs/ARCHITECTURE.md shows the
graph the code has today (native/tools/layers.py)."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BUILD = os.path.dirname(os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd")))
TOOL = os.path.join(HERE, "..", "tools", "layers.py")


def layers(what):
    return subprocess.run([sys.executable, TOOL, what, "--objects", BUILD], capture_output=True, text=True)


def test_no_upward_dependency_and_no_circles():
    r = layers("check")
    assert r.returncode == 0, "layering broken:\n" + r.stdout + r.stderr


def test_architecture_doc_shows_todays_graph():
    r = layers("graph")
    assert r.returncode == 0, r.stderr
    doc = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md")).read()
    m = re.search(r"<!-- layers:begin -->\n(.*?)\n<!-- layers:end -->", doc, re.S)
    assert m, "docs/ARCHITECTURE.md has no layers:begin/end block"
    assert m.group(1).strip() == r.stdout.strip(), (
        "docs/ARCHITECTURE.md's graph is stale; regenerate it with\n"
        "python3 native/tools/layers.py graph --objects native/target/build")


def test_check_catches_an_upward_call_and_a_circle():
    """The check itself can fail: a lower layer calling a higher one, and two files calling each other."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("layers", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    files = ["hil/a.c", "ftl/b.c", "ftl/c.c"]
    problems, _ = mod.judge(files, set(), {("ftl/b.c", "hil/a.c")})
    assert any("ftl/b.c calls hil/a.c" in p for p in problems), problems
    problems, _ = mod.judge(files, {("ftl/b.c", "ftl/c.c"), ("ftl/c.c", "ftl/b.c")}, set())
    assert problems == ["files in a circle by includes: ftl/b.c -> ftl/c.c"], problems
    problems, _ = mod.judge(files, {("hil/a.c", "ftl/b.c")}, {("hil/a.c", "ftl/c.c")})
    assert problems == []
