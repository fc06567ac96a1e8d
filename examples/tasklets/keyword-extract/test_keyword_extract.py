"""keyword-extract on a device against Python's re module (patterns on which POSIX ERE and Python's
leftmost matching agree: no alternation of overlapping prefixes)."""
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import sdktest  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keyword-extract.c")


def make_log(n, seed=3):
    rnd = random.Random(seed)
    words = ["GET", "POST", "/images/a.gif", "ERR-42", "ok", "ERR-7", "err-9", "INFO", "ERR-", "x" * 200]
    lines = [" ".join(rnd.choice(words) for _ in range(rnd.randint(0, 8))) for _ in range(n)]
    return ("\n".join(lines) + "\n").encode(), lines


def reference(lines, pattern, flags=0):
    rows, off = [], 0
    for line in lines:
        for m in re.finditer(pattern, line, flags):
            if m.group(0):
                rows.append([off, m.group(0)])
        off += len(line.encode()) + 1
    return rows


def test_extracts_every_match_like_python(tmp_path):
    data, lines = make_log(6000)
    dev = sdktest.Device(tmp_path, "keyword-extract", SRC)
    dev.put("app.log", data)
    assert dev.run("app.log", pattern="ERR-[0-9]+") == reference(lines, r"ERR-[0-9]+")
    assert dev.run("app.log", pattern="err-[0-9]+", icase=1) == reference(lines, r"err-[0-9]+", re.I)
    assert dev.run("app.log", pattern="/images/[a-z]+\\.gif") == reference(lines, r"/images/[a-z]+\.gif")


def test_a_bad_pattern_is_refused_with_the_reason(tmp_path):
    dev = sdktest.Device(tmp_path, "keyword-extract", SRC)
    dev.put("app.log", b"x\n")
    try:
        dev.run("app.log", pattern="ERR-[0-9")
        raise AssertionError("expected a failure")
    except RuntimeError as e:
        assert "is not a POSIX extended regular expression" in str(e)
