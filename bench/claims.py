"""bench claims: every paper's claims in one ledger. Runs each bench the claims need (bench/ledger/,
BENCHES), then judges every claim (bench/ledger/, CLAIMS) against what the benches wrote: one row per
claim of the five papers, named "<paper>: <claim>", with ours, the paper's value, ours / paper, holds,
the setup (paper: the paper's own workload and configuration; calibration: a parameter read off the
paper's figure, so agreement is by construction; stand-in: a substitute for a workload or platform the
paper does not give), the command that produced it and, where it does not hold, the doc section with
the experiment that says why. A claim whose bench did not run or does not report what it needs is "not
measured", with the reason; it is never dropped and never given a value.

usage: bin/smartssd bench claims [--quick] [--collect] [--only a,b] [--traces DIR] [--write-doc]
  --quick      each bench's quick run (a few minutes in all; the ledger says which commands ran)
  --traces DIR the real Nexus 5 traces for `bench drs` (its --traces; without it DRS runs its synthetic
               stand-ins only and the real-trace claim is not measured)
  --collect    run nothing: judge what out/bench/*/ holds from earlier runs
  --only a,b   run only these benches, collect the others' earlier outputs
  --write-doc  write the ledger into docs/EXPERIMENTS.md (after the run or the collection)
Writes out/bench/claims/: summary.json, results.csv, ledger.md, claims.png."""
import datetime
import math
import os
import subprocess
import sys

import benchlib
from ledger import BENCHES, CLAIMS
from ledger import core, doc

FIELDS = ["name", "paper_name", "claim", "setup", "kind", "paper", "ours", "unit", "ratio", "holds", "status",
          "command", "source", "doc", "why"]


def parse(args):
    o = {"quick": False, "collect": False, "only": None, "write_doc": False, "traces": None}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--quick", "--collect", "--write-doc"):
            o[a[2:].replace("-", "_")] = True
        elif a == "--only" and i + 1 < len(args):
            o["only"] = [x for x in args[i + 1].split(",") if x]
            i += 1
        elif a == "--traces" and i + 1 < len(args):
            o["traces"] = args[i + 1]
            if not os.path.isdir(o["traces"]):
                sys.exit(f"bench claims: --traces {o['traces']}: not a directory")
            i += 1
        else:
            sys.exit(f"bench claims: unknown argument {a!r} (--quick, --collect, --only a,b, --traces DIR, --write-doc)")
        i += 1
    bad = [b for b in o["only"] or [] if b not in BENCHES]
    if bad:
        sys.exit(f"bench claims: --only {','.join(bad)}: not a bench the claims use ({', '.join(BENCHES)})")
    return o


def run_benches(names, quick, traces=None):
    """Runs each bench through the launcher; {bench: why it failed} for the ones that did."""
    failed = {}
    launcher = os.path.join(benchlib.ROOT, "bin", "smartssd")
    for name in names:
        args = BENCHES[name][1 if quick else 0] + (["--traces", traces] if traces and name == "drs" else [])
        for stale in ("summary.json", "run.json"):      # a failed run must not leave an old result behind
            path = os.path.join(benchlib.out_root(), name, stale)
            if os.path.exists(path):
                os.remove(path)
        print(f"\n=== bin/smartssd bench {' '.join([name] + args)}", flush=True)
        rc = subprocess.run([launcher, "bench", name, *args]).returncode
        if rc:
            failed[name] = f"`bin/smartssd bench {' '.join([name] + args)}` failed (exit {rc})"
    return failed


def judge(out_dir, failed=None):
    """Every claim's entry, judged against the outputs under out_dir."""
    outs = core.Outputs(out_dir)
    entries = [c.evaluate(outs) for c in CLAIMS]
    for e in entries:
        if failed and e["status"] != "measured" and e["bench"] in failed:
            e["why"] = failed[e["bench"]]
    return entries


def header(o):
    when = datetime.date.today().isoformat()
    how = "from the benches' earlier runs (collected)" if o["collect"] else \
        "by `bin/smartssd bench claims" + (" --quick" if o["quick"] else "") + "`"
    return (f"Generated {when} {how}. Values are rounded to three significant figures before they are "
            "judged; \"within\" rules allow ±10 % unless the claim says otherwise.")


def plot(b, entries):
    q = [e for e in entries if e["status"] == "measured" and e.get("ratio") not in (None, "")
         and e["ratio"] > 0 and math.isfinite(e["ratio"])]
    if not q:
        return
    plt = benchlib._pyplot()
    fig, ax = plt.subplots(figsize=(13, 0.3 * len(q) + 1.5))
    ys = list(range(len(q)))
    ax.barh(ys, [e["ratio"] for e in q], color=["tab:green" if e["holds"] else "tab:red" for e in q])
    ax.axvspan(0.9, 1.1, color="gray", alpha=0.2)
    ax.axvline(1.0, color="black", linewidth=0.6)
    ax.set_xscale("log")
    ax.set_yticks(ys)
    ax.set_yticklabels([e["name"][:85] for e in q], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("ours / paper (ratio, log scale; band: ±10 %)")
    ax.set_title("Quantitative claims of the five papers (green: holds)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(b.out, "claims.png"), dpi=110)
    plt.close(fig)


def write_doc(text_md):
    path = os.path.join(benchlib.ROOT, "docs", "EXPERIMENTS.md")
    with open(path, encoding="utf-8") as f:
        old = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc.replace(old, text_md))
    print(f"written: {path} (the claims ledger section)")


def main(b):
    o = parse(b.args)
    errors = core.check(CLAIMS)
    if errors:
        sys.exit("bench claims: the definitions are wrong: " + "; ".join(errors))
    failed = {}
    if not o["collect"]:
        names = [n for n in BENCHES if not o["only"] or n in o["only"]]
        failed = run_benches(names, o["quick"], o["traces"])
    entries = judge(benchlib.out_root(), failed)
    b.summary = []
    for e in entries:
        extra = {k: e.get(k) for k in FIELDS if k not in ("name", "ours", "unit", "paper")}
        b.headline(e["name"], e["ours"], e["unit"], paper=e.get("paper"), **extra)
    b.write_csv(entries, FIELDS)
    md = doc.render(entries, header(o))
    with open(os.path.join(b.out, "ledger.md"), "w", encoding="utf-8") as f:
        f.write(md)
    plot(b, entries)
    rows = [{"claim": e["name"][:90], "setup": e["setup"], "paper": e.get("paper", ""),
             "ours": "" if e["ours"] is None else e["ours"],
             "ratio": e.get("ratio") if e.get("ratio") is not None else "", "holds": doc.verdict(e).strip("*")}
            for e in entries]
    b.finish(rows, ["claim", "setup", "paper", "ours", "ratio", "holds"])
    print(doc.counts(entries))
    if o["write_doc"]:
        write_doc(md)
