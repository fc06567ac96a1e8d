#!/usr/bin/env bash
# Fetch the WebAssembly sandbox the device runs user tasklets in: Wasmtime's C API, by name from the
# package registries, into a cache outside the clone (nothing is vendored):
#   - the shared library from PyPI's `wasmtime` wheel (it ships a prebuilt libwasmtime with the C API);
#   - the matching C headers from crates.io's `wasmtime-c-api-impl` crate (cargo fetch), installed by
#     the crate's own cmake script (it generates wasmtime/conf.h).
# Prints the cache directory (lib/libwasmtime.so, include/). Repeat runs only check the stamp.
set -euo pipefail
VERSION="${1:-50.0.1}"
CACHE="${SMARTSSD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/smartssd}"
DEST="$CACHE/wasmtime-$VERSION"
if [ -f "$DEST/.complete" ]; then echo "$DEST"; exit 0; fi
export PATH="$PATH:$HOME/.cargo/bin"
command -v cargo >/dev/null || { echo "fetch_wasmtime: cargo is needed to fetch the Wasmtime C headers (crates.io)" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DEST/lib" "$TMP/wheel" "$TMP/hdr/src"
python3 -m pip download -q --no-deps --only-binary=:all: \
    -d "$TMP/wheel" "wasmtime==$VERSION" >&2
python3 - "$TMP/wheel" "$DEST/lib/libwasmtime.so" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/wasmtime-*.whl")[0]
with zipfile.ZipFile(whl) as z:
    name = [n for n in z.namelist() if n.endswith("linux-x86_64/_libwasmtime.so")][0]
    open(sys.argv[2], "wb").write(z.read(name))
PY
cat > "$TMP/hdr/Cargo.toml" <<TOML
[package]
name = "csd-wasmtime-headers"
version = "0.0.0"
edition = "2021"
publish = false
[lib]
path = "src/lib.rs"
[dependencies]
wasmtime-c-api-impl = { version = "=$VERSION", default-features = false }
TOML
touch "$TMP/hdr/src/lib.rs"
cargo fetch -q --manifest-path "$TMP/hdr/Cargo.toml" --target x86_64-unknown-linux-gnu >&2
SRC="$(cargo metadata -q --format-version 1 --manifest-path "$TMP/hdr/Cargo.toml" --filter-platform x86_64-unknown-linux-gnu \
      | python3 -c 'import json,os,sys; m=json.load(sys.stdin); print([os.path.dirname(p["manifest_path"]) for p in m["packages"] if p["name"]=="wasmtime-c-api-impl"][0])')"
# The wheel's library is Wasmtime's release C API, built with the default features: declare the
# same ones (they change type layouts, e.g. wasmtime_val_t with gc).
cmake -DCMAKE_INSTALL_PREFIX="$DEST" -P "$SRC/cmake/install-headers.cmake" >/dev/null
test -f "$DEST/include/wasmtime.h" && test -f "$DEST/include/wasmtime/conf.h"
touch "$DEST/.complete"
echo "$DEST"
