#!/usr/bin/env bash
# Runs every test: the HAL core's GoogleTest suite (CTest) and the Python suite (pytest).
# Expects scripts/setup.sh --tests to have run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
build_dir=build/current  # the folder of the last build (setup.py links it)
echo "== ctest ($build_dir)"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j 2
echo "== pytest"
"$PYTHON" -m pytest tests -q "$@"
