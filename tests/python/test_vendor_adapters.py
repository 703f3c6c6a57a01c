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


def _vendor(index):
    props = torch.hal.get_device_properties(index)
    return vendor_of(props.vendor, props.adapter, props.name)


def test_each_vendor_has_devices_or_says_why():
    """Present vendors list their own devices and no reason; absent ones list none and say why: each of their
    adapter libraries by name, path and state (with its own reason), or the runtime they need when no library
    was found."""
    for cls, runtime in ((NvidiaAdapter, "libcuda.so.1"), (AmdAdapter, "libamdhip64.so"),
                         (IntelAdapter, "libze_loader.so.1"), (CustomAsicAdapter, "TORCH_HAL_ADAPTERS")):
        va = cls()
        devices = va.discover_devices()
        expected = [i for i in range(torch.hal.device_count()) if _vendor(i) is va.vendor]
        assert [d.index for d in devices] == expected, cls
        if devices:
            assert va.is_available() and va.unavailable_reason == "", cls
            continue
        assert not va.is_available()
        reason, named = va.unavailable_reason, va.adapter_libraries()
        assert reason, cls
        if named:
            for a in named:
                assert f"adapter {a.name} ({a.path}) is {a.state}" in reason, (cls, reason)
                assert (a.reason in reason) if a.reason else f"with no {va.vendor} device" in reason, (cls, reason)
        else:
            assert runtime in reason or "no plugin adapter is loaded" in reason, (cls, reason)


def test_an_unavailable_plugin_reports_its_own_reason():
    out = run_python(
        "from torch_hal.vendor_adapters import CustomAsicAdapter\n"
        "va = CustomAsicAdapter()\n"
        "print(va.discover_devices(), '|', va.unavailable_reason)",
        TORCH_HAL_ADAPTERS=fixture_library("unavailable"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[] | adapter fixture_unavailable (")
    assert "is unavailable: fixture runtime libfoo.so.1 not found: install foo" in out.stdout


def test_the_plugin_view_names_every_adapter_not_named_after_a_vendor():
    """CustomAsicAdapter's libraries are the loaded adapters other than nvidia, amd, intel and host (the OpenCL
    adapter's non-Intel devices are a custom ASIC's); with none, its reason says plainly that no plugin is loaded
    and how to load one, otherwise it names each."""
    import torch_hal
    va = CustomAsicAdapter()
    plugins = [a.name for a in torch_hal.adapters() if a.name not in ("nvidia", "amd", "intel", "host")]
    assert [a.name for a in va.adapter_libraries()] == plugins
    if va.is_available():
        assert va.unavailable_reason == ""
    elif not plugins:
        assert va.unavailable_reason == ("no plugin adapter is loaded: name its library in TORCH_HAL_ADAPTERS, or "
                                         "call torch_hal.load_adapter(path)")
    else:
        assert all(f"adapter {name} (" in va.unavailable_reason for name in plugins), va.unavailable_reason
        assert "no plugin adapter is loaded" not in va.unavailable_reason


def test_a_loaded_plugin_is_listed_with_the_others():
    """A plugin named in TORCH_HAL_ADAPTERS joins the plugin view, beside any other non-vendor adapter."""
    out = run_python(
        "import torch_hal\n"
        "from torch_hal.vendor_adapters import CustomAsicAdapter\n"
        "print(sorted(a.name for a in CustomAsicAdapter().adapter_libraries()))\n"
        "print(sorted(a.name for a in torch_hal.adapters() if a.name not in ('nvidia', 'amd', 'intel', 'host')))",
        TORCH_HAL_ADAPTERS=fixture_library("unavailable"))
    assert out.returncode == 0, out.stderr
    listed, expected = out.stdout.strip().splitlines()
    assert listed == expected and "'fixture_unavailable'" in listed, out.stdout


def test_auto_detect_picks_the_vendor_of_the_best_device():
    best = auto_detect_best_adapter()
    devices = best.discover_devices()
    assert devices and devices[0].torch_device == torch.device("hal", 0)
    props = torch.hal.get_device_properties(0)
    assert best.vendor is vendor_of(props.vendor, props.adapter, props.name)
