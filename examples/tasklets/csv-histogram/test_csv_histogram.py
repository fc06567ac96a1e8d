"""csv-histogram on a device against Python's csv module and collections.Counter."""
import collections
import csv
import io
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import sdktest  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csv-histogram.c")


def make_csv(n, seed=7):
    rnd = random.Random(seed)
    cities = ["Paris", "Plano", "Herndon", "Santa Clara", "Zürich", "", "x" * 300]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "city", "status"])
    for i in range(n):
        w.writerow([i, rnd.choice(cities), rnd.choice(["200", "304", "404", "500"])])
    return out.getvalue().encode()


def reference(data, column):
    rows = list(csv.reader(io.StringIO(data.decode())))[1:]
    c = collections.Counter(r[column].encode() if column < len(r) else b"" for r in rows)
    return sorted([v, n] for v, n in c.items())


def test_histogram_of_each_column_matches_python(tmp_path):
    data = make_csv(20000)   # ~500 KB: many 4 KiB pages, lines cut across them
    dev = sdktest.Device(tmp_path, "csv-histogram", SRC)
    dev.put("t.csv", data)
    for column in (1, 2):
        got = dev.run_json("t.csv", column=column, skip_header=1)["results"]["rows"]
        want = reference(data, column)
        assert sorted([v.encode("utf-8", "surrogateescape") if isinstance(v, str) else v, n] for v, n in got) == want


def test_bad_params_name_the_key(tmp_path):
    dev = sdktest.Device(tmp_path, "csv-histogram", SRC)
    dev.put("t.csv", b"a,b\n")
    for params, message in (({"column": 0, "delimiter": "::"}, "param delimiter: '::' is not one byte"),
                            ({}, "param column: give the 0-based column")):
        try:
            dev.run("t.csv", **params)
            raise AssertionError("expected a failure")
        except RuntimeError as e:
            assert message in str(e) and "tasklet 'csv-histogram'" in str(e)
