"""bench pairs: command A against command B in pairs, A first in each (bench/vs.py): the repository's
command for every "A against B" speed figure in the docs.

    bin/smartssd bench pairs [-n PAIRS] [--timeout S] --vs B -- A [ARGS...]

A is a command; its tools (`csd`, `bench_mem_limit`, ... as bare names) are this tree's build. B is
either a commit (a branch, tag or hash: then B is A run with that commit's build, exported with `git
archive` into out/vs/ and built once) or a whole command line in quotes, in which TOOL@REF names
REF's build of a tool (`csd@main`, `csd@a9e0a93`) and a bare tool this tree's. PAIRS pairs (default 6,
at least 5); prints and writes (out/bench/pairs/) each pair's wall and CPU times (user + system of
the process) and the medians of the pairs' ratios A / B with min and max, the load average beside
them. When B is a commit the two outputs must agree (JSON without its wall-clock keys) unless
--different-output. Examples:

    bin/smartssd bench pairs --vs main -- csd run out/bench/scan/data/dev.img weblog-q1 --input wc \\
        --param entry_bytes=128 --json
    bin/smartssd bench pairs -n 10 --vs 'csd run dev.img plan --input clf --plan p.bin --json' \\
        -- csd run dev.img plan --input clf --plan p.bin --json --set host_threads=2
"""
import argparse
import os
import re
import shlex
import subprocess

import vs


def is_commit(text):
    if " " in text.strip():
        return False
    return subprocess.run(["git", "-C", vs.ROOT, "rev-parse", "--verify", "-q", f"{text}^{{commit}}"],
                          capture_output=True).returncode == 0


def resolve_tools(cmd, mine):
    """A command line's tools: bare names this tree's build, TOOL@REF that commit's (built once)."""
    out = []
    for w in cmd:
        m = re.fullmatch(r"([A-Za-z0-9_]+)@(\S+)", w)
        if m and m.group(1) in vs.TOOLS:
            _, build = vs.build_ref(m.group(2), (m.group(1),))
            out.append(os.path.join(build, m.group(1)))
        else:
            out.append(os.path.join(mine, w) if w in vs.TOOLS else w)
    return out


def main(b):
    p = argparse.ArgumentParser(prog="bin/smartssd bench pairs", description=__doc__.split("\n")[0])
    p.add_argument("--vs", required=True, metavar="B", help="a commit, or B's whole command line in quotes")
    p.add_argument("-n", "--pairs", type=int, default=6)
    p.add_argument("--timeout", type=float, default=0, help="seconds one run may take (0: no limit)")
    p.add_argument("--different-output", action="store_true", help="the two outputs need not agree")
    p.add_argument("--label", default="")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args(b.args)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        p.error("give command A after --")
    if a.pairs < 5:
        p.error(f"-n {a.pairs}: at least 5 pairs")
    mine = os.path.dirname(b.tool("csd"))
    cmd_a = resolve_tools(cmd, mine)
    if is_commit(a.vs):
        sha, build = vs.build_ref(a.vs, tuple(sorted({c for c in cmd if c in vs.TOOLS}) or ("csd",)))
        cmd_b = vs.with_build(cmd, build)
        b_name, same = f"{a.vs} ({sha[:12]})", not a.different_output
    else:
        cmd_b = resolve_tools(shlex.split(a.vs), mine)
        b_name, same = "B", False
    label = a.label or " ".join(cmd)
    ps = vs.pairs(cmd_a, cmd_b, a.pairs, same_output=same, label=label, timeout=a.timeout or None)
    b.write_csv(ps, list(ps[0].keys()))
    vs.summarize(b, "A", ps, b_name)
    loads = [x["load"] for x in ps]
    b.headline("1-min load average during the pairs", f"{min(loads):.1f}-{max(loads):.1f}", "")
    b.plot("pairs.png", f"A against {b_name}: wall time of each pair", "pair", "wall time (s)",
           {"A": (list(range(len(ps))), [x["a_wall_s"] for x in ps]),
            b_name: (list(range(len(ps))), [x["b_wall_s"] for x in ps])})
    print(f"A: {' '.join(cmd_a)}\nB: {' '.join(cmd_b)}")
    b.finish(ps, ["pair", "a_wall_s", "b_wall_s", "wall_ratio", "a_cpu_s", "b_cpu_s", "cpu_ratio", "load"])
