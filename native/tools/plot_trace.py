#!/usr/bin/env python3
"""Gantt chart of a device timeline (the trace-event JSON that `csd run --trace FILE` or the
trace_file parameter writes): cores and chips (and channels, the firmware, the host link) against
virtual time, one colour per request, with a legend.

  bin/smartssd plot trace FILE [--out PNG] [--from US] [--to US] [--tracks core,chip,...] [--title T]

Readable up to a few thousand operations; narrow the window (--from/--to, in microseconds of device
time) for longer runs.
"""
import argparse
import json
import os
import subprocess
import sys

TRACKS = {"core": (1, 1000), "chip": (1001, 2000), "channel": (2001, 3000), "firmware": (3001, 3001),
          "host": (3002, 3002)}


def pyplot():
    try:
        import matplotlib
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--root-user-action=ignore", "matplotlib"],
                       check=True)
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def load(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    return names, spans


def kind_of(tid):
    for k, (lo, hi) in TRACKS.items():
        if lo <= tid <= hi:
            return k
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bin/smartssd plot trace", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--out", help="PNG to write (default: FILE with .png)")
    ap.add_argument("--from", dest="t0", type=float, help="start of the window, us of device time")
    ap.add_argument("--to", dest="t1", type=float, help="end of the window, us of device time")
    ap.add_argument("--tracks", default="core,chip", help="track kinds, comma-separated: " + ",".join(TRACKS))
    ap.add_argument("--title", help="chart title (default: the file's name)")
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.tracks.split(",") if k.strip()]
    bad = [k for k in kinds if k not in TRACKS]
    if bad:
        ap.error(f"unknown track kind {', '.join(bad)} (known: {', '.join(TRACKS)})")
    try:
        names, spans = load(a.file)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot trace: {a.file} is not a readable trace: {e}")
    spans = [s for s in spans if kind_of(s["tid"]) in kinds
             and (a.t0 is None or s["ts"] + s["dur"] >= a.t0) and (a.t1 is None or s["ts"] <= a.t1)]
    if not spans:
        sys.exit("plot trace: no spans on those tracks in that window")
    tids = sorted({s["tid"] for s in spans}, key=lambda t: (kinds.index(kind_of(t)), t))
    t_end = max(s["ts"] + s["dur"] for s in spans)
    scale, unit = (1e3, "ms") if t_end > 5e3 else (1.0, "us")
    reqs = sorted({s["args"].get("req", 0) for s in spans})
    plt = pyplot()
    cmap = plt.get_cmap("tab10" if len(reqs) <= 10 else "tab20")
    colour = {r: ("#888888" if r == 0 else cmap((i % cmap.N))) for i, r in enumerate(reqs)}
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.32 * len(tids)))
    for row, tid in enumerate(tids):
        mine = [s for s in spans if s["tid"] == tid]
        for r in reqs:
            bars = [(s["ts"] / scale, max(s["dur"], 1e-9) / scale) for s in mine if s["args"].get("req", 0) == r]
            if bars:
                ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=colour[r], edgecolors="black", linewidth=0.2)
    ax.set_yticks(range(len(tids)))
    ax.set_yticklabels([names.get(t, str(t)) for t in tids])
    ax.invert_yaxis()
    ax.set_xlabel(f"device time ({unit})")
    ax.set_ylabel("track")
    if a.t0 is not None or a.t1 is not None:
        ax.set_xlim((a.t0 or 0) / scale, (a.t1 if a.t1 is not None else t_end) / scale)
    ax.set_title(a.title or os.path.basename(a.file))
    ax.grid(True, axis="x", alpha=0.3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[r]) for r in reqs[:20]]
    labels = ["host / none" if r == 0 else f"request {r}" for r in reqs[:20]]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="colour")
    fig.tight_layout()
    out = a.out or os.path.splitext(a.file)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"{out}: {len(spans)} spans on {len(tids)} tracks, {t_end / scale:.3f} {unit} of device time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
