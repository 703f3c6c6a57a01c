"""Bad input gets a Python exception that names the problem; nothing crashes, hangs or is lost."""
import pytest
import torch
import torch_hal

from conftest import fixture_library, run_python


def test_device_index_that_does_not_exist():
    n = torch.hal.device_count()
    with pytest.raises((IndexError, RuntimeError), match=f"hal:{n + 4}"):
        torch.ones(2, device=f"hal:{n + 4}")
    with pytest.raises((IndexError, RuntimeError), match=f"hal:{n + 4}"):
        torch.randn(2).to(f"hal:{n + 4}")
    with pytest.raises((IndexError, RuntimeError), match=f"hal:{n + 4}"):
        torch.hal.set_device(n + 4)
    assert torch.ones(2, device="hal:0").sum().item() == 2


def test_negative_device_index():
    with pytest.raises(ValueError, match="hal:-3"):
        torch.hal.set_device(-3)
    assert torch.hal.current_device() == 0


def test_mixing_hal_and_cpu_tensors():
    a = torch.ones(3, device="hal")
    with pytest.raises(RuntimeError, match="hal:0 and cpu"):
        torch.add(a, torch.ones(3))
    with pytest.raises(RuntimeError, match="same device"):
        torch.mm(torch.ones(2, 2), torch.ones(2, 2, device="hal"))
    # Like CUDA, 0-dim CPU tensors may join as scalars.
    assert torch.equal((a * torch.tensor(2.0)).cpu(), torch.full((3,), 2.0))


def test_allocating_more_than_the_device_holds_then_allocating_again():
    total = torch.hal.get_device_properties(0).total_memory
    before = torch.hal.memory_allocated()
    with pytest.raises(torch.OutOfMemoryError) as info:
        torch.empty(total + (1 << 30), dtype=torch.uint8, device="hal")
    message = str(info.value)
    assert "hal:0" in message and "tried to allocate" in message.lower()
    assert torch.hal.memory_allocated() == before
    assert torch.hal.memory_stats()["num_ooms"] >= 1
    x = torch.ones(1 << 20, device="hal")
    assert x.sum().item() == float(1 << 20)


def test_memory_fraction_cap_raises_oom_then_recovers():
    total = torch.hal.get_device_properties(0).total_memory
    try:
        torch.hal.set_per_process_memory_fraction(0.001)
        with pytest.raises(torch.OutOfMemoryError):
            torch.empty(int(total * 0.002), dtype=torch.uint8, device="hal")
    finally:
        torch.hal.set_per_process_memory_fraction(1.0)
    assert torch.empty(int(total * 0.002), dtype=torch.uint8, device="hal").numel() > 0
    with pytest.raises(ValueError):
        torch.hal.set_per_process_memory_fraction(1.5)


@pytest.mark.parametrize("fixture,pattern", [
    ("not_an_adapter", "not a torch_hal adapter"),
    ("wrong_abi", "2.0.*1.4"),
])
def test_loading_a_broken_adapter_names_the_file_and_keeps_devices(fixture, pattern):
    path = fixture_library(fixture)
    count = torch.hal.device_count()
    with pytest.raises(ValueError, match=pattern) as info:
        torch_hal.load_adapter(str(path))
    assert path.name in str(info.value)
    assert torch.hal.device_count() == count
    assert torch.ones(4, device="hal:0").sum().item() == 4


def test_loading_a_file_that_does_not_exist():
    with pytest.raises(ValueError, match="no_such_adapter.so"):
        torch_hal.load_adapter("/nonexistent/libno_such_adapter.so")


def test_broken_adapters_listed_at_import_and_others_work():
    libs = ":".join(str(fixture_library(n)) for n in ("wrong_abi", "not_an_adapter", "unavailable"))
    out = run_python(
        "import warnings; warnings.simplefilter('always')\n"
        "import torch, torch_hal\n"
        "for a in torch_hal.adapters(): print('ADAPTER', a.name, a.state, '|', a.reason)\n"
        "print('SUM', torch.ones(3, device='hal:0').sum().item())",
        TORCH_HAL_ADAPTERS=libs)
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.startswith("ADAPTER")]
    assert any("broken" in l and "2.0" in l and "1.4" in l for l in lines), lines
    assert any("broken" in l and "hal_adapter_query" in l for l in lines), lines
    assert any("unavailable" in l for l in lines), lines
    assert "SUM 3.0" in out.stdout
    assert "could not be loaded" in out.stderr


def test_strict_mode_refuses_the_cpu_fallback():
    # The host device with host access switched off exercises the copy-based CPU fallback.
    code = ("import torch, torch_hal\n"
            "x = torch.ones(4).to('hal')  # a copy: native on every adapter\n"
            "try:\n"
            "    torch.nn.functional.gelu(x)\n"
            "    print('NO ERROR')\n"
            "except RuntimeError as e:\n"
            "    print('ERROR', e)\n"
            "print('STILL WORKS', x.cpu().sum().item())")
    out = run_python(code, TORCH_HAL_STRICT=1, TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 0, out.stderr
    assert "ERROR" in out.stdout and "gelu" in out.stdout and "TORCH_HAL_STRICT" in out.stdout
    assert "STILL WORKS 4.0" in out.stdout


def test_strict_context_manager_in_process():
    x = torch.ones(4, device="hal")
    with torch.hal.strict():
        # On the host device CPU kernels run in place: nothing falls back.
        assert torch.nn.functional.gelu(x).device.type == "hal"
    assert not torch.hal.is_strict()


def test_autoload_warning_of_a_missing_native_module_reads_once():
    # torch's autoload of torch_hal must warn, not fail, and say the fix once (it used to read "checkout.. Rebuild").
    out = run_python(
        "import sys, warnings; warnings.simplefilter('always')\n"
        "import torch\n"
        "sys.modules['torch_hal._C'] = None  # as if the native module were missing\n"
        "import torch_hal_autoload\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    torch_hal_autoload.load()\n"
        "print('WARNED', *[str(w.message) for w in caught])",
        TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert out.returncode == 0, out.stderr
    warned = out.stdout.split("WARNED", 1)[1]
    assert "native module is missing" in warned and ".." not in warned, warned
    assert warned.count("pip install") == 1 and "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in warned, warned
