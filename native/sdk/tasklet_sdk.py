#!/usr/bin/env python3
"""The tasklet SDK: write your own tasklet in C against smartssd/tasklet.h, build it, install it.

  tasklet_sdk.py new NAME [--dir DIR]       scaffold DIR/NAME/NAME.c and a test against a host reference
  tasklet_sdk.py build FILE.c [-o OUT]      WebAssembly for the device's sandbox (default NAME.wasm)
  tasklet_sdk.py build --native FILE.c      a native shared object (NAME.so) for a trusted directory

A WebAssembly build is clang --target=wasm32-wasi with Debian's wasi-libc, linked with the SDK's guest
runtime (native/sdk/guest.c); the stack comes first in memory so overflowing it traps. Then:
  csd tasklet add IMAGE NAME NAME.wasm ; csd run IMAGE NAME --input OBJECT --param KEY=VALUE
docs/USER-TASKLETS.md has the whole story.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

SDK = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(SDK, "..", "include")
GUEST = os.path.join(SDK, "guest.c")
EXAMPLES = os.path.abspath(os.path.join(SDK, "..", "..", "examples", "tasklets"))
STACK_BYTES = 256 * 1024


def clang():
    for c in ("clang", "clang-14"):
        if shutil.which(c):
            return c
    sys.exit("tasklet build: clang is missing (Debian: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32)")


def build(args):
    src = args.sources
    base = os.path.splitext(os.path.basename(src[0]))[0]
    if args.native:
        out = args.output or os.path.join(os.path.dirname(os.path.abspath(src[0])), base + ".so")
        # Every frame touches its stack pages in order (-fstack-clash-protection), so an overflow of
        # the tasklet stack the device runs it on faults in the guard below it, whatever the frame's
        # size, and the device stops the tasklet there instead of letting it write past its stack.
        cmd = [os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-std=c11",
               "-fstack-clash-protection", "-D_GNU_SOURCE", "-I", INCLUDE, "-o", out] + src
    else:
        out = args.output or os.path.join(os.path.dirname(os.path.abspath(src[0])), base + ".wasm")
        # The C stack comes first in memory, so overflowing it leaves the memory and traps, however
        # large the frame (the stack pointer wraps below 0, and every access below the stack is out of
        # bounds); its pointer is exported so the device can tell a stack overflow from another stray
        # access.
        cmd = [clang(), "--target=wasm32-wasi", "-O2", "-std=c11", "-mmutable-globals", "-nostartfiles",
               "-Wl,--no-entry", "-Wl,--stack-first", f"-Wl,-z,stack-size={args.stack_bytes}",
               "-Wl,--export=__stack_pointer", "-I", INCLUDE, "-o", out] + src + [GUEST]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    t0 = time.monotonic()
    r = subprocess.run(cmd)
    if r.returncode:
        sys.exit(r.returncode)
    if not args.quiet:
        print(f"{out} ({os.path.getsize(out)} bytes, {time.monotonic() - t0:.2f} s)")


TEMPLATE_C = r'''/* {name}: a user tasklet. It counts the text lines that contain the parameter `word` (default
 * "error") and emits one row (count INT64) at finish. Edit record() and finish() to make it yours;
 * the ABI is smartssd/tasklet.h, the rules docs/USER-TASKLETS.md and docs/TASKLETS.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

typedef struct state {{
    char word[256];
    size_t word_len;
    int64_t count;
}} state;

static int t_init(void **out, const csd_tasklet_args *args, csd_framing *fr, char *err, size_t errlen) {{
    const char *w = csd_args_get(args, "word");
    if (!w) w = "error";
    if (!*w || strlen(w) >= sizeof ((state *)0)->word) {{
        csd_args_reject(args, "word");
        strncpy(err, "param word: give 1..255 bytes", errlen);
        return -EINVAL;
    }}
    state *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    strcpy(s->word, w);
    s->word_len = strlen(w);
    fr->kind = CSD_FRAMING_LINES;
    *out = s;
    return 0;
}}

static int t_record(void *st, csd_tasklet_io *io, const uint8_t *line, size_t len, uint64_t offset) {{
    state *s = st;
    if (memmem(line, len, s->word, s->word_len)) s->count++;
    return 0;
}}

static int t_finish(void *st, csd_tasklet_io *io) {{
    state *s = st;
    csd_io_row_begin(io);
    csd_io_val_int(io, s->count);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : 0;
}}

static void t_destroy(void *st) {{ free(st); }}

static const csd_tasklet_ops ops = {{
    .name = "{name}",
    .summary = "lines containing a word",
    .init = t_init,
    .record = t_record,
    .finish = t_finish,
    .destroy = t_destroy,
}};
CSD_TASKLET(ops)
'''

TEMPLATE_TEST = r'''"""{name} on a device against a host reference (Python), run by pytest."""
import os
import sys

sys.path.insert(0, {examples!r})
import sdktest  # noqa: E402  (examples/tasklets/sdktest.py: build, install, run)


def test_{ident}_counts_lines_like_python(tmp_path):
    lines = [b"ok", b"an error here", b"", b"error", b"no", b"errors everywhere"] * 500
    data = b"\n".join(lines) + b"\n"
    dev = sdktest.Device(tmp_path, "{name}", os.path.join(os.path.dirname(os.path.abspath(__file__)), "{name}.c"))
    dev.put("log.txt", data)
    rows = dev.run("log.txt", word="error")
    assert rows == [[sum(1 for l in lines if b"error" in l)]]
'''


def new(args):
    d = os.path.join(args.dir, args.name)
    if os.path.exists(d):
        sys.exit(f"tasklet new: {d} exists")
    os.makedirs(d)
    ident = args.name.replace("-", "_").replace(".", "_")
    with open(os.path.join(d, args.name + ".c"), "w") as f:
        f.write(TEMPLATE_C.format(name=args.name))
    with open(os.path.join(d, f"test_{ident}.py"), "w") as f:
        f.write(TEMPLATE_TEST.format(name=args.name, ident=ident, examples=EXAMPLES))
    print(f"{d}/{args.name}.c\n{d}/test_{ident}.py\n"
          f"build: bin/smartssd tasklet build {d}/{args.name}.c ; test: python3 -m pytest {d}")


def main():
    p = argparse.ArgumentParser(prog="bin/smartssd tasklet", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compile a tasklet (WebAssembly, or --native)")
    b.add_argument("sources", nargs="+")
    b.add_argument("-o", "--output")
    b.add_argument("--native", action="store_true", help="a shared object for the device's trusted directory")
    b.add_argument("--stack-bytes", type=int, default=STACK_BYTES, help="the tasklet's C stack (default 256 KiB)")
    b.add_argument("-q", "--quiet", action="store_true")
    b.set_defaults(fn=build)
    n = sub.add_parser("new", help="scaffold a tasklet and its test")
    n.add_argument("name")
    n.add_argument("--dir", default=".")
    n.set_defaults(fn=new)
    a = p.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
