"""torch_hal.vendor_adapters: per-vendor views of the hal devices, with the reason a vendor has none."""
import torch

from torch_hal.device_records import vendor_of
from torch_hal.vendor_adapters import (AmdAdapter, CustomAsicAdapter, HostAdapter, IntelAdapter, NvidiaAdapter,
                                       all_vendor_adapters, auto_detect_best_adapter)

from conftest import fixture_library, run_python


def test_each_device_belongs_to_exactly_one_vendor_adapter():
    found = [d.torch_device for va in all_vendor_adapters() for d in va.discover_devices()]
    assert sorted(found, key=lambda d: d.index) == [torch.device("hal", i) for i in range(torch.hal.device_count())]


def test_host_adapter_finds_the_host_devices():
    host = HostAdapter()
    expected = [i for i in range(torch.hal.device_count()) if torch.hal.get_device_properties(i).vendor == "host"]
    assert [d.index for d in host.discover_devices()] == expected
    assert host.is_available() and host.unavailable_reason == ""


def test_absent_vendors_say_why():
    for cls, runtime in ((NvidiaAdapter, "libcuda.so.1"), (AmdAdapter, "libamdhip64.so"),
                         (IntelAdapter, "libze_loader.so.1")):
        va = cls()
        if va.is_available():
            continue
        assert va.discover_devices() == []
        named = va.adapter_libraries()
        assert (runtime in va.unavailable_reason) if not named else all(a.name in va.unavailable_reason for a in named)


def test_an_unavailable_plugin_reports_its_own_reason():
    out = run_python(
        "from torch_hal.vendor_adapters import CustomAsicAdapter\n"
        "va = CustomAsicAdapter()\n"
        "print(va.discover_devices(), '|', va.unavailable_reason)",
        TORCH_HAL_ADAPTERS=fixture_library("unavailable"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[] | adapter fixture_unavailable (")
    assert "is unavailable: fixture runtime libfoo.so.1 not found: install foo" in out.stdout


def test_no_plugin_loaded_is_said_plainly():
    if not CustomAsicAdapter().adapter_libraries():
        assert "no plugin adapter is loaded" in CustomAsicAdapter().unavailable_reason


def test_auto_detect_picks_the_vendor_of_the_best_device():
    best = auto_detect_best_adapter()
    devices = best.discover_devices()
    assert devices and devices[0].torch_device == torch.device("hal", 0)
    props = torch.hal.get_device_properties(0)
    assert best.vendor is vendor_of(props.vendor, props.adapter, props.name)
