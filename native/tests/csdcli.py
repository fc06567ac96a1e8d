"""The built `csd` for the Python tests: its path (CSD_BIN, else the default build) and a runner that
fails the test with csd's stderr when a call that should succeed does not."""
import os
import subprocess

CSD = os.environ.get("CSD_BIN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "build", "csd"))


def csd(*args, ok=True):
    p = subprocess.run([CSD, *map(str, args)], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise AssertionError(f"csd {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
    return p
