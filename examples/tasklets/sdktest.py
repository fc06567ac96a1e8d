"""Test helper for user tasklets: build one with the SDK, load data onto a fresh device image, install
the tasklet, run it with the device CLI and return its rows. Used by every example's test."""
import json
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SDK = os.path.join(ROOT, "native", "sdk", "tasklet_sdk.py")
CSD = os.path.abspath(os.environ.get("CSD_BIN") or os.path.join(ROOT, "native", "target", "build", "csd"))


def csd(*args):
    r = subprocess.run([CSD, *args], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"csd {' '.join(args)}: {r.stderr.strip()} {r.stdout.strip()}")
    return r.stdout


class Device:
    """A scratch device image (preset tiny unless told) with the tasklet NAME built from SOURCE."""

    def __init__(self, tmp, name, source, preset="tiny", capacity="16M", native=False):
        self.img = os.path.join(str(tmp), "dev.img")
        self.name = name
        csd("format", self.img, "--capacity", capacity, "--preset", preset)
        out = os.path.join(str(tmp), name + (".so" if native else ".wasm"))
        subprocess.run(["python3", SDK, "build", "-q", source, "-o", out] + (["--native"] if native else []),
                       check=True)
        csd("tasklet", "add", self.img, name, out)

    def put(self, obj, data):
        path = self.img + "." + obj.replace("/", "_")
        with open(path, "wb") as f:
            f.write(data)
        csd("put", self.img, obj, path)

    def run_json(self, obj, tasklet=None, sets=(), **params):
        args = ["run", self.img, tasklet or self.name, "--input", obj, "--json"]
        for k, v in params.items():
            args += ["--param", f"{k}={v}"]
        for s in sets:
            args += ["--set", s]
        return json.loads(csd(*args))

    def run(self, obj, tasklet=None, **params):
        return self.run_json(obj, tasklet, **params)["results"]["rows"]
