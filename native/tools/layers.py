#!/usr/bin/env python3
"""The device's layers, checked against the code.

native/src/ has one folder per layer of the device. A file depends on another when it includes it or
calls a function only the other defines (read from the compiled objects with nm, so calls through
macros and headers count too). This tool checks that:
  - every dependency between folders points down the layer order below (no folder loops);
  - no files depend on each other in a circle, by includes or by calls;
and prints the folder graph as a Mermaid diagram for docs/ARCHITECTURE.md.

  layers.py check --objects BUILD_DIR    exit 1 and list every violation
  layers.py graph --objects BUILD_DIR    the Mermaid block (docs/ARCHITECTURE.md holds its output)
"""
import argparse
import os
import re
import subprocess
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# Top of the device to the bottom: a folder may depend only on folders after it.
LAYERS = ["transport", "hil", "tasklets", "query", "sandbox", "runtime", "engine", "sched", "ftl", "flash", "store",
          "sim", "trace", "config", "host", "util"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    out = []
    for folder in sorted(os.listdir(SRC)):
        d = os.path.join(SRC, folder)
        if os.path.isdir(d):
            out += [f"{folder}/{f}" for f in sorted(os.listdir(d)) if f.endswith((".c", ".h"))]
    return out


def include_edges(files):
    edges = set()
    for f in files:
        for inc in INCLUDE.findall(open(os.path.join(SRC, f)).read()):
            if inc in files and inc != f:
                edges.add((f, inc))
    return edges


def call_edges(files, objdir):
    """a.c -> b.c when a.c's object leaves undefined a function b.c's object defines."""
    defined, undefined = {}, {}
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join(objdir, "CMakeFiles", "csd_obj.dir", "src", f + ".o")
        if not os.path.exists(obj):
            sys.exit(f"layers.py: {obj} is missing: build native/ first (cmake --build {objdir})")
        syms = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout.split("\n")
        for line in syms:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRB":
                defined[parts[2]] = f
            elif len(parts) == 2 and parts[0] == "U":
                undefined.setdefault(f, set()).add(parts[1])
    edges = set()
    for f, names in undefined.items():
        for n in names:
            g = defined.get(n)
            if g and g != f:
                edges.add((f, g))
    return edges


def folder(f):
    return f.split("/")[0]


def cycles(nodes, edges):
    """Strongly connected components with more than one member (Tarjan)."""
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(adj):
        if n not in index:
            visit(n)
    return out


def analyse(objdir):
    files = sources()
    return judge(files, include_edges(files), call_edges(files, objdir))


def judge(files, inc, calls):
    """Problems (one line each) and the folder graph {(from, to): {"includes", "calls"}}."""
    problems = []
    unknown = sorted({folder(f) for f in files} - set(LAYERS))
    if unknown:
        problems.append(f"folders not in the layer order: {', '.join(unknown)}")
    folders = {}
    for kind, edges in (("includes", inc), ("calls", calls)):
        for a, b in sorted(edges):
            fa, fb = folder(a), folder(b)
            if fa == fb:
                continue
            folders.setdefault((fa, fb), set()).add(kind)
            if fa in LAYERS and fb in LAYERS and LAYERS.index(fb) < LAYERS.index(fa):
                problems.append(f"{a} {kind} {b}: {fa}/ may not depend on {fb}/, a layer above it")
        for comp in cycles(files, edges):
            problems.append(f"files in a circle by {kind}: {' -> '.join(comp)}")
    return problems, folders


def mermaid(folders):
    lines = ["```mermaid", "flowchart TD"]
    used = sorted({f for pair in folders for f in pair}, key=lambda f: LAYERS.index(f) if f in LAYERS else 99)
    for f in used:
        lines.append(f"  {f}[{f}/]")
    for (a, b), kinds in sorted(folders.items(), key=lambda e: (LAYERS.index(e[0][0]), LAYERS.index(e[0][1]))):
        lines.append(f"  {a} --> {b}")
    lines.append("```")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["check", "graph"])
    ap.add_argument("--objects", required=True, help="the CMake build directory of native/")
    a = ap.parse_args()
    problems, folders = analyse(a.objects)
    if a.what == "graph":
        print(mermaid(folders))
        return 0
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
