"""The shipped shared libraries export the public C API and nothing else: every function declared in
include/smartssd/*.h, plus the JNI entry points in the JNI library (nm -D against the headers)."""
import glob
import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.dirname(os.environ.get("CSD_BIN", os.path.join(HERE, "..", "target", "build", "csd")))
DECL = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(csd_\w+)\s*\(", re.M)


def declared():
    names = set()
    for h in glob.glob(os.path.join(HERE, "..", "include", "smartssd", "*.h")):
        text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
        names |= {m.group(1) for m in DECL.finditer(text) if "typedef" not in m.group(0)}
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.split()[-2] in ("T", "W")}


@pytest.mark.parametrize("name", ["libsmartssd.so", "libsmartssd_jni.so"])
def test_exports_are_the_public_api(name):
    lib = os.path.join(BUILD, name)
    if not os.path.exists(lib):
        pytest.skip(f"{name} is not built in {BUILD} (the JNI library needs -DCSD_JNI=ON)")
    api = declared()
    assert "csd_device_command" in api and "csd_io_row_end" in api   # the header parse found the API
    got = exported(lib)
    extra = {s for s in got - api if not s.startswith("Java_") and s not in ("JNI_OnLoad", "JNI_OnUnload")}
    assert not extra, f"{name} exports internals: {sorted(extra)}"
    assert not api - got, f"{name} lacks public functions: {sorted(api - got)}"
