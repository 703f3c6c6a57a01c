#!/usr/bin/env bash
# Intel's OpenCL runtime for CPUs, from the Python package index, unpacked into build/opencl_runtime/lib
# (no system change): an OpenCL 3.0 implementation that takes SPIR-V and runs on any x86-64 CPU, AMD's
# included. The OpenCL adapter's tests load it directly (TORCH_HAL_OPENCL_LIBRARY=.../libintelocl.so),
# without an ICD loader; its libraries find each other through their $ORIGIN run path, so the four packages'
# lib folders are merged into one. Run by scripts/setup.sh --tests; idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
dest=build/opencl_runtime
if [[ -f $dest/lib/libintelocl.so ]]; then exit 0; fi
# Pinned: the versions the OpenCL adapter was verified with (2026-11-25).
packages=(intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 tbb==2023.2.0 tcmlib==1.6.0)
rm -rf "$dest" && mkdir -p "$dest/wheels" "$dest/unpacked" "$dest/lib"
echo "setup: downloading Intel's OpenCL CPU runtime (${packages[*]})"
"$PYTHON" -m pip download -q --no-deps -d "$dest/wheels" "${packages[@]}"
for wheel in "$dest"/wheels/*.whl; do
  "$PYTHON" -m zipfile -e "$wheel" "$dest/unpacked"
done
cp -a "$dest"/unpacked/*.data/data/lib/. "$dest/lib/"
rm -rf "$dest/wheels" "$dest/unpacked"
test -f "$dest/lib/libintelocl.so"
echo "setup: OpenCL CPU runtime in $dest/lib"
