"""bench pairs: one command with this tree's build against another commit's, in pairs (bench/vs.py).

    bin/smartssd bench pairs --vs REF [--pairs N] [--different-output] [--label TEXT] -- CMD [ARGS...]

CMD's tools (`csd`, `bench_mem_limit`, ... as bare names) are this tree's build in A and REF's build
in B; paths and other words are passed as they are. N pairs (default 6, at least 5), A first in each;
prints and writes (out/bench/pairs/) each pair's wall and CPU times and the medians of the pairs'
ratios A / B with min and max, the load average beside them. The outputs of A and B must agree
(JSON without its wall-clock keys) unless --different-output. Example, weblog-q1 on the scan bench's
image against main:

    bin/smartssd bench pairs --vs main -- csd run out/bench/scan/data/dev.img weblog-q1 --input wc \\
        --param entry_bytes=128 --json
"""
import argparse
import os

import vs


def main(b):
    p = argparse.ArgumentParser(prog="bin/smartssd bench pairs", description=__doc__.split("\n")[0])
    p.add_argument("--vs", required=True, metavar="REF", help="the commit to compare with (branch, tag, hash)")
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--different-output", action="store_true", help="the two builds' outputs need not agree")
    p.add_argument("--label", default="")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args(b.args)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        p.error("give the command after --")
    if a.pairs < 5:
        p.error(f"--pairs {a.pairs}: at least 5")
    sha, build = vs.build_ref(a.vs, tuple(sorted({c for c in cmd if c in vs.TOOLS}) or ("csd",)))
    mine = os.path.dirname(b.tool("csd"))
    label = a.label or " ".join(cmd)
    ps = vs.pairs(vs.with_build(cmd, mine), vs.with_build(cmd, build), a.pairs,
                  same_output=not a.different_output, label=label)
    b.write_csv(ps, list(ps[0].keys()))
    vs.summarize(b, "A = this tree", ps, f"{a.vs} ({sha[:12]})")
    loads = [x["load"] for x in ps]
    b.headline("1-min load average during the pairs", f"{min(loads):.1f}-{max(loads):.1f}", "")
    b.plot("pairs.png", f"{label[:70]}: this tree (A) against {a.vs} (B)", "pair", "wall time (s)",
           {"A (this tree)": (list(range(len(ps))), [x["a_wall_s"] for x in ps]),
            f"B ({a.vs})": (list(range(len(ps))), [x["b_wall_s"] for x in ps])})
    b.finish(ps, ["pair", "a_wall_s", "b_wall_s", "wall_ratio", "a_cpu_s", "b_cpu_s", "cpu_ratio", "load"])
