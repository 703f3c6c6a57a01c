"""The Intel adapter (vendor_adapters/intel: Intel GPUs through Level Zero) where there is no Intel GPU: it is
built against the Level Zero headers, loads everywhere (the loader is loaded with dlopen), and says why it has
no device: no loader, a library that is not a loader, or no driver (zeInit fails). Cases that read
TORCH_HAL_LEVEL_ZERO_LIBRARY run in a fresh interpreter, since adapters initialize at import.

With TORCH_HAL_TEST_LEVEL_ZERO_NULL_LOADER naming a libze_loader.so.1 built with the null driver of the public
oneapi-src/level-zero repository (-DINSTALL_NULL_DRIVER=ON), one more case drives the whole call sequence
(memory, copies, fills, SPIR-V kernels, streams, events) through it. The null driver executes nothing: that
case checks call order and arguments (the loader's parameter validation is on), never results."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import torch_hal
from torch_hal import HardwareVendor
from torch_hal.device_records import vendor_of
from torch_hal.vendor_adapters import IntelAdapter

from conftest import REPO_ROOT, run_python

LIB = Path(torch_hal.__file__).resolve().parent / "lib" / "libhal_adapter_intel.so"
HEADERS = Path("/usr/include/level_zero/ze_api.h")


@pytest.fixture(scope="module", autouse=True)
def built():
    if LIB.exists():
        return
    message = f"{LIB} is missing: the build found no Level Zero headers (scripts/setup.sh installs libze-dev)"
    if HEADERS.exists() or os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def intel_adapter(**env):
    """The intel adapter's entry of torch_hal.adapters(), in a fresh interpreter with `env`."""
    result = run_python("import torch, torch_hal\n"
                        "a = [a for a in torch_hal.adapters() if a.name == 'intel'][0]\n"
                        "print(a.state); print(a.device_count); print(a.reason)\n"
                        "print(sorted({torch.hal.get_device_properties(i).adapter "
                        "for i in range(torch.hal.device_count())}))\n"
                        "print(torch.ones(3, device='hal').sum().item())", **env)
    assert result.returncode == 0, result.stderr[-3000:]
    state, count, reason, adapters, total = result.stdout.splitlines()[-5:]
    assert float(total) == 3.0  # hal still works, on whatever device is hal:0
    return state, int(count), reason, adapters


def test_without_a_driver_the_adapter_loads_and_names_the_missing_driver():
    a = next(a for a in torch_hal.adapters() if a.name == "intel")
    assert a.path == str(LIB) and a.abi_version == torch_hal._C.abi_version()
    if a.state == "loaded" and a.device_count > 0:
        pytest.skip("this machine has a Level Zero GPU")
    assert a.state == "unavailable" and a.device_count == 0
    # Debian's loader is installed with the headers; the driver is what is missing, and the reason says which
    # call found that, with the driver's code, and what to install.
    assert "no Level Zero driver: zeInit returned ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)" in a.reason, a.reason
    assert "Intel's GPU driver" in a.reason and "libze-intel-gpu1" in a.reason
    assert all(torch.hal.get_device_properties(i).adapter != "intel" for i in range(torch.hal.device_count()))


def test_a_missing_loader_is_named_with_the_package_and_the_variable():
    state, count, reason, adapters = intel_adapter(TORCH_HAL_LEVEL_ZERO_LIBRARY="/nonexistent/libze_loader.so.1")
    assert state == "unavailable" and count == 0 and "intel" not in adapters
    assert 'dlopen("/nonexistent/libze_loader.so.1") failed' in reason, reason
    assert "libze1" in reason and "TORCH_HAL_LEVEL_ZERO_LIBRARY" in reason


def test_a_library_that_is_not_a_loader_is_refused_by_name():
    # A real shared library without Level Zero's entry points: the adapter's own.
    state, count, reason, adapters = intel_adapter(TORCH_HAL_LEVEL_ZERO_LIBRARY=str(LIB))
    assert state == "unavailable" and count == 0 and "intel" not in adapters
    assert f"{LIB} has no zeInit: it is not a Level Zero loader" in reason, reason


def test_info_shows_the_adapter_its_reason_and_intels_two_adapters():
    result = subprocess.run([sys.executable, "-m", "torch_hal", "info"], capture_output=True, text=True,
                            cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.strip().startswith("intel ") and ".so" in line)
    assert str(LIB) in line
    state = next(a.state for a in torch_hal.adapters() if a.name == "intel")
    assert f" {state} " in line
    if state == "unavailable":
        assert "zeInit" in line or "Level Zero" in line
    vendors = next(line for line in result.stdout.splitlines() if line.strip().startswith("intel ") and
                   "adapters:" in line)
    assert "adapters: intel, opencl" in vendors


def test_intel_vendor_view_names_both_adapters():
    va = IntelAdapter()
    names = [a.name for a in va.adapter_libraries()]
    assert names == ["intel", "opencl"]
    if not va.is_available():
        assert va.discover_devices() == []
        assert "adapter intel (" in va.unavailable_reason and "adapter opencl (" in va.unavailable_reason


def test_opencl_devices_of_intel_count_as_intel():
    # The OpenCL adapter reports "opencl" as its devices' vendor; their names start with the OpenCL name.
    assert vendor_of("opencl", "opencl", "Intel(R) Arc(TM) A770 Graphics (OpenCL, Intel(R) OpenCL Graphics)") \
        is HardwareVendor.INTEL
    assert vendor_of("opencl", "opencl", "AMD EPYC 7B13 64-Core Processor (OpenCL, Intel(R) OpenCL)") \
        is HardwareVendor.CUSTOM_ASIC
    assert vendor_of("intel", "intel", "Intel(R) Data Center GPU Max 1550") is HardwareVendor.INTEL
    # Another vendor's device behind a Level Zero driver is not Intel's.
    assert vendor_of("level_zero", "intel", "Null Device") is HardwareVendor.CUSTOM_ASIC


def test_library_links_no_level_zero_library():
    # dlopen only: the library must load where Level Zero is absent.
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    needed = subprocess.run([readelf, "-d", str(LIB)], capture_output=True, text=True, check=True).stdout
    assert "libze" not in needed, needed


NULL_LOADER = os.environ.get("TORCH_HAL_TEST_LEVEL_ZERO_NULL_LOADER", "")

CALL_SEQUENCE = """
import torch, torch_hal
p = torch.hal.get_device_properties(0)
print(p.adapter, p.vendor, p.name)
d = torch.device("hal", 0)
x = torch.arange(1000, dtype=torch.float32)
a = x.to(d)                                   # pageable: the core's staging ring, or the adapter's staging
b = x.pin_memory().to(d, non_blocking=True)   # pinned: appended in stream order
y = a + b                                     # SPIR-V: zeModuleCreate, zeKernelCreate, arguments, launch
z = torch.empty(10, device=d).zero_()
s = torch.hal.Stream()
e = torch.hal.Event(enable_timing=True)
with torch.hal.stream(s):
    w = y * 2
e.record(s)
torch.hal.current_stream().wait_event(e)
s.synchronize()
print(s.query(), e.query(), y.cpu().shape, w.cpu().shape)
torch.hal.synchronize()
del a, b, y, z, w
torch.hal.empty_cache()                       # zeMemFree after every stream synchronized
print("done")
"""


@pytest.mark.skipif(not NULL_LOADER, reason="TORCH_HAL_TEST_LEVEL_ZERO_NULL_LOADER is not set (a loader built with "
                                            "oneapi-src/level-zero's null driver)")
def test_the_call_sequence_on_the_null_driver():
    loader_dir = str(Path(NULL_LOADER).parent)
    result = run_python(CALL_SEQUENCE, TORCH_HAL_LEVEL_ZERO_LIBRARY=NULL_LOADER, ZE_ENABLE_NULL_DRIVER=1,
                        LD_LIBRARY_PATH=loader_dir + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""),
                        ZE_ENABLE_VALIDATION_LAYER=1, ZE_ENABLE_PARAMETER_VALIDATION=1,
                        TORCH_HAL_STRICT=1)  # no CPU fallback: the elementwise ops went to launch_op
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "intel level_zero Null Device"  # not an Intel GPU (PCI vendor 0), so not vendor intel
    assert lines[1] == "True True torch.Size([1000]) torch.Size([1000])"
    assert lines[-1] == "done"
