#!/usr/bin/env bash
# The Python package's build and tests, as the Maven build runs them (python/pom.xml):
#   tests.sh wheel   the wheel, with the Spark runtime jar inside, in python/target/dist
#   tests.sh test    the pytest suite in python/target/venv with pip's pyspark (SMARTSSD_PYSPARK, default
#                    the build's Spark version), the wheel installed as a user installs it
# Whatever it needs comes from pip, into that virtual environment; pip's cache keeps pyspark for the next run.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
TARGET="$HERE/target"
VENV="$TARGET/venv"
PYSPARK="${SMARTSSD_PYSPARK:-4.0.1}"
export SMARTSSD_RUNTIME_JAR="${SMARTSSD_RUNTIME_JAR:-$ROOT/spark-runtime/target/spark-smartssd-runtime-0.1.0-SNAPSHOT.jar}"
export SMARTSSD_NATIVE_BUILD="${SMARTSSD_NATIVE_BUILD:-$ROOT/native/target/build}"

venv() {   # venv [pyspark]: the build's tools, and for the tests pip's pyspark
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
  fi
  if ! "$VENV/bin/python" -c 'import pytest, setuptools, wheel' 2>/dev/null; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check pytest "setuptools>=61" wheel >&2
  fi
  if [ "${1:-}" = pyspark ]; then
    local have
    have="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("pyspark"))' 2>/dev/null || true)"
    if [ "$have" != "$PYSPARK" ]; then
      echo "python: installing pyspark==$PYSPARK into $VENV (pip)" >&2
      "$VENV/bin/python" -m pip install -q --disable-pip-version-check "pyspark==$PYSPARK" >&2
    fi
  fi
}

case "${1:-}" in
  wheel)
    venv
    rm -rf "$TARGET/dist" "$HERE/build" "$HERE"/src/*.egg-info
    "$VENV/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation "$HERE" -w "$TARGET/dist"
    rm -rf "$HERE/build" "$HERE"/src/*.egg-info
    ls "$TARGET"/dist/smartssd-*.whl
    ;;
  test)
    venv pyspark
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$TARGET"/dist/smartssd-*.whl
    cd "$HERE"
    # pytest's own exit code; its closing line counts the tests
    exec "$VENV/bin/python" -m pytest -p no:cacheprovider -q -rs --durations=12 --junitxml="$TARGET/pytest-junit.xml" tests
    ;;
  *)
    echo "usage: python/tests.sh wheel|test" >&2
    exit 2
    ;;
esac
