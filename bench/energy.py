"""Energy of the web-log runs by phase, as the Smart SSD paper measured it (V-C-3, Fig. 10).

The paper plugged the host into a power meter and, for each entry size, ran three phases: *wr* (the
dataset is written synchronously to the device and the host page cache flushed), a pause (the
application sleeps 5 s; the system idles), and *exec* (the tasklet or the host job); another pause
follows. It reports the power levels, not a table of energies: the system idles at about 44 W, the
host versions add about 35 W in exec (75-82 W in all), the Smart SSD version adds 0.5-0.8 W. Fig. 10's
claims are about the exec phase: the Smart SSD system uses less than half the energy of the host
versions there, idle power included, and about 2% of it above idle.

This module models the same three phases from those power levels and the times our runs give:
  wr     the device time of writing the dataset (`csd put` of the same number of bytes on a scratch
         image of the sweep's preset, measured here), at idle + host_write_w (the paper does not give
         the wr phase's power level: host_write_w is an assumption, by default the host's active 35 W)
  pause  pause_s (5 s in the paper) at idle
  exec   the run's device time (or its wall time), at idle + host_active_w (host versions) or idle +
         device_w (versions that run inside the device)
Every figure is a model of energy, not a measurement.
"""
import json
import os
import subprocess
import tempfile

# Paper V-C-3: idle ~44 W; host versions +35 W in exec; device +0.5-0.8 W (0.65 the middle); a 5 s
# pause between phases. host_write_w is not in the paper's text (an assumption).
DEFAULT_POWER = {"host_idle_w": 44.0, "host_active_w": 35.0, "device_w": 0.65, "host_write_w": 35.0,
                 "pause_s": 5.0}
# Versions whose work runs inside the device while the host idles.
DEVICE_VERSIONS = {"device", "spark-device"}


def exec_extra_w(version, power):
    """Power above idle during the exec phase."""
    return power["device_w"] if version in DEVICE_VERSIONS else power["host_active_w"]


def phases(version, exec_s, wr_s, power):
    """Joules of each phase of one run: {"wr", "pause", "exec", "total", "exec_above_idle"} (wr and total
    are None when the write phase was not measured). exec_s, wr_s in seconds."""
    idle = power["host_idle_w"]
    e_exec = (idle + exec_extra_w(version, power)) * exec_s
    e_pause = idle * power["pause_s"]
    e_wr = None if wr_s is None else (idle + power["host_write_w"]) * wr_s
    return {"wr": e_wr, "pause": e_pause, "exec": e_exec,
            "total": None if e_wr is None else e_wr + e_pause + e_exec,
            "exec_above_idle": exec_extra_w(version, power) * exec_s}


def find_csd():
    """The device CLI of this checkout's native build, or None."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in (os.environ.get("CSD_BUILD"), os.path.join(root, "native", "target", "build")):
        if d and os.access(os.path.join(d, "csd"), os.X_OK):
            return os.path.join(d, "csd")
    return None


def write_phase_s(sizes, preset="smartssd-paper", csd=None):
    """{bytes: device seconds to write that many bytes} for each size, each written as one object by
    `csd put` (host writes over the link, programs on the flash) on a fresh scratch image of preset.
    {} when the device CLI is not built."""
    csd = csd or find_csd()
    sizes = sorted(set(int(s) for s in sizes))
    if not csd or not sizes:
        return {}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        img = os.path.join(tmp, "wr.img")
        cap = sum(sizes) * 5 // 4 + (128 << 20)
        subprocess.run([csd, "format", img, "--capacity", str(cap), "--preset", preset], check=True,
                       capture_output=True)
        for i, n in enumerate(sizes):
            p = subprocess.Popen([csd, "put", img, f"wr{i}", "-", "--json"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            chunk = bytes(1 << 20)
            left = n
            while left:
                k = min(left, len(chunk))
                p.stdin.write(chunk[:k])
                left -= k
            p.stdin.close()
            o, e = p.stdout.read(), p.stderr.read()   # small: --json prints one line, no progress bar
            p.wait()
            if p.returncode:
                raise RuntimeError(f"csd put: {e.decode().strip()}")
            r = json.loads(o)
            if r["bytes"] != n:
                raise RuntimeError(f"csd put wrote {r['bytes']} bytes of {n}")
            out[n] = r["device_ns"] / 1e9
    return out
