"""The GPU suites (tests/gpu) on the OpenCL device of Intel's CPU OpenCL runtime, in strict mode, on CI: the same
tests that check the CUDA and HIP builds of the kernel library against the CPU check its SPIR-V form, where no op
may take the CPU fallback. Tests that fail there for a known reason (mostly an op without a SPIR-V kernel yet) are
listed in tests/gpu/known_gaps/opencl.json and expected to fail; one of them that passes, or any other test that
fails, fails this test (tests/gpu/conftest.py). Measured on the 2-core machine (2026-11-28): 3.6 minutes alone,
8.4 beside a build."""
import os

import pytest

from conftest import REPO_ROOT, run_pytest_child

RUNTIME = REPO_ROOT / "build" / "opencl_runtime" / "lib" / "libintelocl.so"


def test_gpu_suites_on_the_opencl_device():
    if not RUNTIME.exists():
        message = f"{RUNTIME} is missing: scripts/setup.sh --tests (scripts/opencl_cpu_runtime.sh) installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    counts, log = run_pytest_child(REPO_ROOT / "tests" / "gpu", timeout=1800, TORCH_HAL_TEST_GPU_VENDOR="opencl",
                                   TORCH_HAL_OPENCL_LIBRARY=str(RUNTIME), TORCH_HAL_OPENCL_DEVICES="cpu",
                                   HAL_VISIBLE_DEVICES="opencl:0", TORCH_HAL_WRITE_KNOWN_GAPS=None)
    print(counts)
    # The suites ran on the device (a missing device would skip them all) and the list held.
    assert counts.get("passed", 0) > 1000 and not counts.get("failed"), log
