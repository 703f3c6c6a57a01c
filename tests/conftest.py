"""Shared by every pytest suite: the package import, the fixture adapter libraries, subprocess runs, the GPU
suites' device and the known gaps of a device they are pointed at by name."""
import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)

FIXTURE_LIB_DIR = Path(__file__).resolve().parent / "fixtures" / "lib"
REPO_ROOT = Path(__file__).resolve().parent.parent


def fixture_library(name: str) -> Path:
    path = FIXTURE_LIB_DIR / f"libhal_fixture_{name}.so"
    if not path.exists():
        pytest.fail(f"{path} is missing: build with TORCH_HAL_BUILD_TESTS=ON (scripts/setup.sh --tests)")
    return path


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter with extra environment variables (for import-time settings)."""
    full_env = dict(os.environ, **{k: str(v) for k, v in env.items()})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env,
                          cwd=REPO_ROOT, timeout=300)


def run_pytest_child(test_file, *args, timeout=600, **env):
    """Runs pytest on `test_file` in a child process with extra environment variables (for import-time
    settings; a value of None removes the variable) and returns the counts of its summary line, {"passed": N,
    ...}, and the end of its output. The child's exit status must be 0."""
    environ = {k: str(v) for k, v in {**os.environ, **env}.items() if v is not None}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(test_file),
                          *args], capture_output=True, text=True, cwd=REPO_ROOT, timeout=timeout,
                         env=environ)
    log = out.stdout[-4000:] + out.stderr[-2000:]
    assert out.returncode == 0, log
    summary = next(line for line in reversed(out.stdout.splitlines()) if " in " in line)
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", summary)}, log


OPENCL_CPU_RUNTIME = REPO_ROOT / "build" / "opencl_runtime" / "lib" / "libintelocl.so"


def opencl_cpu_runtime() -> Path:
    """Intel's CPU OpenCL runtime, which scripts/setup.sh --tests unpacks under build/: its path. Where it is
    missing the calling test fails on CI (whose setup installs it) and skips elsewhere."""
    if not OPENCL_CPU_RUNTIME.exists():
        message = (f"{OPENCL_CPU_RUNTIME} is missing: scripts/setup.sh --tests (or scripts/opencl_cpu_runtime.sh) "
                   "installs it")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return OPENCL_CPU_RUNTIME


def opencl_cpu_device_env() -> dict:
    """The settings that make the OpenCL adapter's CPU device the only hal device, hal:0 (opencl_cpu_runtime's
    failure or skip where the runtime is missing)."""
    return {"TORCH_HAL_OPENCL_LIBRARY": str(opencl_cpu_runtime()), "TORCH_HAL_OPENCL_DEVICES": "cpu",
            "HAL_VISIBLE_DEVICES": "opencl:0"}


@pytest.fixture
def hal0():
    return torch.device("hal", 0)


def nvidia_hal_index():
    """The hal index of the first NVIDIA GPU, or None."""
    for i in range(torch.hal.device_count()):
        if str(torch.hal.get_device_properties(i).vendor).lower() == "nvidia":
            return i
    return None


GPU_VENDORS = ("nvidia", "amd")
# Devices the GPU suites test only when asked by name: the OpenCL adapter's device (on CI, Intel's CPU OpenCL
# runtime, which runs the kernel library's SPIR-V form), with tests/gpu/known_gaps/opencl.json.
NAMED_ONLY = ("opencl",)


def gpu_hal_index():
    """The hal index of the GPU the GPU suites test: the first hal device of TORCH_HAL_TEST_GPU_VENDOR
    ("nvidia", "amd" or "opencl"; by default nvidia or amd), or None."""
    wanted = os.environ.get("TORCH_HAL_TEST_GPU_VENDOR", "").strip().lower()
    if wanted and wanted not in GPU_VENDORS + NAMED_ONLY:
        raise ValueError(f"TORCH_HAL_TEST_GPU_VENDOR={wanted!r}: use one of {', '.join(GPU_VENDORS + NAMED_ONLY)} "
                         "or leave it unset")
    for i in range(torch.hal.device_count()):
        vendor = str(torch.hal.get_device_properties(i).vendor).lower()
        if vendor == wanted or (not wanted and vendor in GPU_VENDORS):
            return i
    return None


@pytest.fixture
def gpu_device():
    """A GPU as a hal device, of any vendor (TORCH_HAL_TEST_GPU_VENDOR picks one); the test skips where
    there is none (CI). The AMD adapter's code runs here on NVIDIA GPUs through HIP's NVIDIA platform
    (vendor_adapters/amd/nvidia_platform)."""
    index = gpu_hal_index()
    if index is None:
        pytest.skip("no GPU hal device")
    return torch.device("hal", index)


@pytest.fixture
def nvidia_device():
    """An NVIDIA GPU as a hal device, for what only NVIDIA has (CUDA's DLPack device, the CUDA runtime);
    the test skips where there is none (CI)."""
    index = nvidia_hal_index()
    if index is None:
        pytest.skip("no NVIDIA hal device")
    return torch.device("hal", index)


# ---- Known gaps of a device named by TORCH_HAL_TEST_GPU_VENDOR ------------------------------------------------
# A device the GPU suites are pointed at by name (TORCH_HAL_TEST_GPU_VENDOR=opencl: the OpenCL adapter, the kernel
# library's SPIR-V form) keeps its known gaps in tests/gpu/known_gaps/<vendor>.json: a reason (the first line of the
# failure: for most, the op that has no kernel there yet and would take the CPU fallback, which strict mode
# forbids) mapped to the tests that fail for it. Those tests are marked xfail(strict=True): one that fails is
# expected, one that passes fails the run, so the list only shrinks as kernels land. Any other test that fails,
# fails.
#
# Refresh a list after a kernel lands (then review its diff):
#     TORCH_HAL_TEST_GPU_VENDOR=opencl TORCH_HAL_WRITE_KNOWN_GAPS=tests/gpu/known_gaps/opencl.json \
#         TORCH_HAL_OPENCL_LIBRARY=build/opencl_runtime/lib/libintelocl.so TORCH_HAL_OPENCL_DEVICES=cpu \
#         HAL_VISIBLE_DEVICES=opencl:0 python -m pytest tests/gpu -q -p no:cacheprovider
# (while writing, no test is marked: every failure is recorded as it happens).
GAPS_DIR = Path(__file__).resolve().parent / "gpu" / "known_gaps"


def _vendor():
    return os.environ.get("TORCH_HAL_TEST_GPU_VENDOR", "").strip().lower()


def _gaps_path():
    path = GAPS_DIR / f"{_vendor()}.json"
    return path if _vendor() and path.exists() else None


def _reason(report) -> str:
    """The failure's first line, without the device index or the strict-mode advice."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    line = text.strip().splitlines()[0] if text.strip() else "failed"
    line = re.sub(r" on hal:\d+ \((\w+) adapter\) and would run through the CPU fallback.*",
                  r" on the \1 device (the CPU fallback, which strict mode forbids)", line)
    return line[:200]


def pytest_collection_modifyitems(config, items):
    path = _gaps_path()
    if path is None or os.environ.get("TORCH_HAL_WRITE_KNOWN_GAPS"):
        return
    reasons = {test: reason for reason, tests in json.loads(path.read_text()).items() for test in tests}
    for item in items:
        reason = reasons.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"known gap ({path.name}): {reason}"))


_failures = collections.defaultdict(list)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TORCH_HAL_WRITE_KNOWN_GAPS") and report.failed and report.when in ("setup", "call"):
        _failures[_reason(report)].append(item.nodeid)


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("TORCH_HAL_WRITE_KNOWN_GAPS")
    if not target:
        return
    ordered = {reason: sorted(set(tests)) for reason, tests in sorted(_failures.items())}
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(json.dumps(ordered, indent=1) + "\n")
