"""The speed targets, in one place: the benches judge their figures against these, and
native/tests/test_bench_targets.py checks that docs/PERFORMANCE.md's table states the same ones.

Each: the figure's name as the table in docs/PERFORMANCE.md spells it, the comparison, the value and
its unit as the table writes it. "Met" is judged on a figure's median over its samples."""

TARGETS = {
    "embedded command round trip": ("<=", 5, " µs"),
    "remote command round trip": ("<=", 50, " µs"),
    "grep / memory limit": (">=", 0.5, ""),
    "weblog-q1 / memory limit": (">=", 0.5, ""),
    "text plan throughput": (">=", 1.5, " GB/s per core"),
    "smartssd over CSV / Spark's CSV reader": ("<=", 0.1, ""),
    "smartssd over Parquet objects / Spark's Parquet reader": ("<=", 0.5, ""),
    "web-log DeviceJob / host-normal": ("<=", 0.05, ""),
    "web-log DeviceJob / host-optimized": ("<=", 0.2, ""),
    "trace replay": (">=", 1, " M/s"),
    "csd replay end to end": (">=", 150000, " requests/s"),
}

SYMBOL = {"<=": "≤", ">=": "≥"}


def text(figure):
    """'≤ 0.1', '≥ 1.5 GB/s per core': the target as docs/PERFORMANCE.md writes it."""
    op, value, unit = TARGETS[figure]
    return f"{SYMBOL[op]} {value:g}{unit}"


def met(figure, value):
    op, target, _ = TARGETS[figure]
    return value <= target if op == "<=" else value >= target
