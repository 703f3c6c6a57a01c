"""The AMD adapter (issue 12) without an AMD GPU: it is built from the portable kernel library with hipcc,
loads everywhere (HIP is loaded with dlopen), says why AMD GPUs are unavailable, and holds a code object for
each architecture it was built for. Skips only where the build had no hipcc (scripts/setup.sh --tests
installs Debian's)."""
import shutil
from pathlib import Path

import pytest
import torch

import torch_hal

LIB = Path(torch_hal.__file__).resolve().parent / "lib" / "libhal_adapter_amd.so"
pytestmark = pytest.mark.skipif(not LIB.exists(), reason="built without hipcc: no AMD adapter")


def amd_adapter():
    return next(a for a in torch_hal._C.adapters() if a["name"] == "amd")


def test_adapter_loads_and_says_why_no_amd_gpu_is_usable():
    a = amd_adapter()
    if a["state"] == "loaded":
        pytest.skip("this machine has an AMD GPU")
    assert a["state"] == "unavailable"
    assert "no AMD GPU" in a["reason"] or "no ROCm runtime" in a["reason"], a["reason"]
    assert "install" in a["reason"] or "driver" in a["reason"]
    assert all(torch.hal.get_device_properties(i).vendor != "amd" for i in range(torch.hal.device_count()))


def newer_clang_present():
    """clang 19 with its linker: the build then compiles gfx942 and gfx1100 too (amd/CMakeLists.txt)."""
    return shutil.which("clang++-19") is not None and Path("/usr/lib/llvm-19/bin/lld").exists()


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1030", "gfx942", "gfx1100"])
def test_library_holds_a_code_object_per_architecture(arch):
    if arch in ("gfx942", "gfx1100") and not newer_clang_present():
        pytest.skip(f"{arch} needs clang-19 and lld-19 (scripts/setup.sh --tests installs them)")
    # The offload bundles the compiler embedded, as the adapter itself parsed them at load ...
    assert arch in amd_adapter()["description"]
    # ... and as bytes of the library: each bundle entry is named by its target.
    assert f"amdgcn-amd-amdhsa--{arch}".encode() in LIB.read_bytes()


def test_library_links_no_hip_library():
    # dlopen only: the library must load where ROCm is absent, so nothing of HIP may be a needed library.
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    import subprocess

    needed = subprocess.run([readelf, "-d", str(LIB)], capture_output=True, text=True, check=True).stdout
    assert "amdhip" not in needed and "hsa-runtime" not in needed, needed
