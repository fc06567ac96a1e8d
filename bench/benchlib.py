"""Shared plumbing for `bin/smartssd bench NAME`: every bench writes out/bench/NAME/ with
results.csv, PNG plots (labelled axes with units), summary.json — a list of headline figures
{"name", "ours", "paper" (when a paper gives one), "unit"} — and prints its table.

A bench is bench/NAME.py with a main(ctx) function; ctx is a Bench. Next to summary.json, run.json
records the command that produced it (bin/smartssd bench claims cites it). CSD_BENCH_OUT, when set, is
the directory that holds the benches' outputs instead of out/bench (the tests use it).
"""
import csv
import datetime
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Bench:
    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.out = os.path.join(out_root(), name)
        os.makedirs(self.out, exist_ok=True)
        self.build = os.environ.get("CSD_BUILD", os.path.join(ROOT, "native", "target", "build"))
        self.summary = []
        self.started = time.time()

    def tool(self, name):
        """Path of a native executable (csd, bench_flash, ...) in the build tree."""
        return os.path.join(self.build, name)

    def run(self, *cmd, capture=True):
        r = subprocess.run([str(c) for c in cmd], capture_output=capture, text=True)
        if r.returncode:
            sys.exit(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n{r.stderr}")
        return r.stdout

    def write_csv(self, rows, fields=None, name="results.csv"):
        fields = fields or list(rows[0].keys())
        path = os.path.join(self.out, name)
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for r in rows:
                w.writerow({k: r.get(k, "") for k in fields})
        return path

    def headline(self, name, ours, unit, paper=None, **extra):
        """One entry of summary.json; its name must say its configuration: two entries of one run may not
        share a name (ValueError). extra: more fields beside "ours" (a confidence interval: ci_low, ci_high,
        samples; the setup)."""
        if any(e["name"] == name for e in self.summary):
            raise ValueError(f"bench {self.name}: two summary entries named {name!r}")
        entry = {"name": name, "ours": ours, "unit": unit}
        if paper is not None:
            entry["paper"] = paper
        entry.update(extra)
        self.summary.append(entry)

    def plot(self, filename, title, xlabel, ylabel, series, kind="line", logx=False, logy=False, legend_below=False):
        """series: {label: ([x...], [y...])}. Axis labels must carry units. legend_below: the legend under
        the axes (many series: inside it would hide bars)."""
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(7, 4.5))
        if kind == "bar":
            labels = list(series.keys())
            xs = series[labels[0]][0]
            width = 0.8 / len(labels)
            for i, lab in enumerate(labels):
                ax.bar([j + i * width for j in range(len(xs))], series[lab][1], width, label=lab)
            ax.set_xticks([j + 0.4 - width / 2 for j in range(len(xs))])
            ax.set_xticklabels([str(x) for x in xs])
        else:
            for lab, (xs, ys) in series.items():
                ax.plot(xs, ys, marker="o", label=lab)
        if logx:
            ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if legend_below:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, fontsize=8)
        else:
            ax.legend()
        fig.tight_layout()
        path = os.path.join(self.out, filename)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def finish(self, table_rows, columns):
        """Write summary.json and run.json and print the table and the headline figures."""
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(self.summary, f, indent=1)
        with open(os.path.join(self.out, "run.json"), "w") as f:
            json.dump({"command": " ".join(["bin/smartssd", "bench", self.name] + [shlex.quote(a) for a in self.args]),
                       "finished": datetime.datetime.now().isoformat(timespec="seconds"),
                       "wall_s": round(time.time() - self.started, 1)}, f, indent=1)
        print_table(table_rows, columns)
        if self.summary:
            print()
            print_table([{"figure": s["name"], "ours": fmt(s["ours"]), "paper": fmt(s.get("paper", "")),
                          "unit": s["unit"]} for s in self.summary], ["figure", "ours", "paper", "unit"])
        print(f"\nwritten: {self.out}/ (results.csv, summary.json, *.png)")


def out_root():
    """The directory of the benches' outputs: CSD_BENCH_OUT, else out/bench."""
    return os.environ.get("CSD_BENCH_OUT") or os.path.join(ROOT, "out", "bench")


def fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def print_table(rows, columns):
    cells = [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--root-user-action=ignore", "matplotlib"], check=True)
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# bench names that are not Python module names
ALIASES = {"2pm": "twopm"}


def main():
    if len(sys.argv) < 2:
        names = sorted({v: k for k, v in ALIASES.items()}.get(f[:-3], f[:-3])
                       for f in os.listdir(os.path.dirname(__file__))
                       if f.endswith(".py") and f != "benchlib.py" and not f.startswith("_"))
        sys.exit("usage: bin/smartssd bench NAME [ARGS]\nbenches: " + ", ".join(names))
    name = sys.argv[1]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        mod = __import__(ALIASES.get(name, name).replace("-", "_"))
    except ModuleNotFoundError:
        sys.exit(f"no bench named '{name}'")
    mod.main(Bench(name, sys.argv[2:]))


if __name__ == "__main__":
    main()
