"""The GPU suites (tests/gpu) on the OpenCL device of Intel's CPU OpenCL runtime, in strict mode, on CI: the same
tests that check the CUDA and HIP builds of the kernel library against the CPU check its SPIR-V form, where no op
may take the CPU fallback. Tests that fail there for a known reason (mostly an op without a SPIR-V kernel yet) are
listed in tests/gpu/known_gaps/opencl.json and expected to fail; one of them that passes, or any other test that
fails, fails this test (tests/conftest.py applies the list). Measured on the 2-core machine (2026-11-28): 3.6 minutes alone,
8.4 beside a build."""
from conftest import REPO_ROOT, opencl_cpu_device_env, run_pytest_child


def test_gpu_suites_on_the_opencl_device():
    counts, log = run_pytest_child(REPO_ROOT / "tests" / "gpu", timeout=1800, TORCH_HAL_TEST_GPU_VENDOR="opencl",
                                   TORCH_HAL_WRITE_KNOWN_GAPS=None, **opencl_cpu_device_env())
    print(counts)
    # The suites ran on the device (a missing device would skip them all) and the list held.
    assert counts.get("passed", 0) > 1000 and not counts.get("failed"), log
