"""Every bench's summary names say their configuration: no two entries of one run share a name.

Three checks. benchlib's Bench.headline refuses a name it was given before in the same run (every run
of every bench checks itself). Statically, every headline made inside a loop names a variable of each
loop around it, so the loop cannot give two entries one name (the bug this catches: one name per
adaptation, written twice). And the benches that need only the native build run in their quick form
here (about a minute of CPU, remus --quick the most; not under sanitizers), their summary.json
checked. The others need Hadoop, Spark, RocksDB or JMH, or take minutes each in their quick form
(measured on 2 shared cores: drs --quick 78 s, scan --quick 28 s, weblog at 64 MiB 88 s after a Maven
build, 2pm and hybrid --quick minutes); their runs check themselves."""
import ast
import json
import os
import subprocess
import sys

import pytest

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ROOT = os.path.abspath(os.path.join(NATIVE, ".."))
BENCH = os.path.join(ROOT, "bench")
BUILD = os.path.dirname(os.path.abspath(os.environ["CSD_BIN"])) if os.environ.get("CSD_BIN") else \
    os.path.join(NATIVE, "target", "build")
sys.path.insert(0, BENCH)

import benchlib  # noqa: E402

# quick runs of the benches that need only the native build, and the arguments that keep them short
NATIVE_QUICK = {"flash": ["16"], "dram": ["8"], "datafilter": ["8"], "remus": ["--quick"]}


def test_a_repeated_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CSD_BENCH_OUT", str(tmp_path))
    b = benchlib.Bench("names", [])
    b.headline("Fig. 4 REMUS / CFS (paper adaptation)", 1.68, "x", paper=1.65)
    b.headline("Fig. 4 REMUS / CFS (shared engine)", 1.05, "x", paper=1.65)
    with pytest.raises(ValueError, match="two summary entries named 'Fig. 4 REMUS / CFS \\(shared engine\\)'"):
        b.headline("Fig. 4 REMUS / CFS (shared engine)", 1.04, "x")
    b.finish([], ["figure"])
    with open(tmp_path / "names" / "run.json") as f:
        assert json.load(f)["command"] == "bin/smartssd bench names"


def names_used(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def derived(loop):
    """The loop's variables and every name assigned in its body from one of them (tag = f"{j['x']}")."""
    names = names_used(loop.target)
    if isinstance(loop, ast.comprehension):
        return names
    assigns = [n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Assign)]
    while True:
        more = {t for a in assigns if names_used(a.value) & names for tgt in a.targets for t in names_used(tgt)}
        if more <= names:
            return names
        names |= more


def unnamed_loops(tree):
    """(line, call) of headline calls in a loop whose name (with the adaptation remus's add() appends)
    uses no variable of that loop."""
    bad = []

    def visit(node, loops):
        if isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname in ("headline", "add") and node.args and isinstance(node.args[0], (ast.JoinedStr, ast.Constant,
                                                                                         ast.Name, ast.BinOp)):
                used = names_used(node.args[0])
                for k in node.keywords:
                    if k.arg == "adapt":
                        used |= names_used(k.value)
                for targets in loops:
                    if not used & targets:
                        bad.append((node.lineno, ast.unparse(node.args[0])))
                        break
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            loops = []          # a function's loops are its own
        if isinstance(node, (ast.For, ast.comprehension)):
            loops = loops + [derived(node)]
        for child in ast.iter_child_nodes(node):
            visit(child, loops)

    visit(tree, [])
    return bad


def bench_files():
    return sorted(f for f in os.listdir(BENCH) if f.endswith(".py") and f != "benchlib.py")


@pytest.mark.parametrize("name", bench_files())
def test_headlines_in_loops_name_the_loop(name):
    with open(os.path.join(BENCH, name), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    assert unnamed_loops(tree) == [], f"bench/{name}: these entries repeat their name on every pass of a loop"


def test_the_static_check_catches_a_name_without_its_loop():
    bad = ast.parse("def report(b, by):\n"
                    "    for a in ('shared-engine', 'paper'):\n"
                    "        for over in ('cfs', 'horae'):\n"
                    "            b.headline(f'Fig. 4 REMUS / {over}', by[a, over], 'x')\n")
    assert [line for line, _ in unnamed_loops(bad)] == [4]
    good = ast.parse("def report(b, by):\n"
                     "    for a in ('shared-engine', 'paper'):\n"
                     "        for over in ('cfs', 'horae'):\n"
                     "            add(f'Fig. 4 REMUS / {over}', by[a, over], adapt=a)\n")
    assert unnamed_loops(good) == []


@pytest.mark.skipif(os.environ.get("CSD_SANITIZE") == "ON", reason="names, not memory: the plain build's run suffices")
@pytest.mark.parametrize("bench", sorted(NATIVE_QUICK))
def test_quick_runs_give_distinct_names(bench, tmp_path):
    env = dict(os.environ, CSD_BENCH_OUT=str(tmp_path), CSD_BUILD=BUILD, MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, os.path.join(BENCH, "benchlib.py"), bench, *NATIVE_QUICK[bench]],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    with open(tmp_path / bench / "summary.json") as f:
        names = [e["name"] for e in json.load(f)]
    assert names and len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
