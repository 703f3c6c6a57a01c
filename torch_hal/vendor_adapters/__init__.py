"""Vendor views: one Python class per vendor over the adapters the HAL core loaded (``torch_hal.adapters()``)
and their devices. Not adapters themselves, despite the class names (public API, kept): docs/ARCHITECTURE.md,
"Words".

    from torch_hal.vendor_adapters import NvidiaAdapter, auto_detect_best_adapter
    NvidiaAdapter().discover_devices()      # [] here, and .unavailable_reason says why
    auto_detect_best_adapter().discover_devices()

These are views: the devices are the hal devices (records from torch_hal.device_records), and the reason a
vendor has none is the one its C++ adapter gave.
"""
from typing import Dict, List, Type

from torch_hal._adapters import AdapterInfo, adapters
from torch_hal.device_records import DeviceRecord, hal_device, hal_devices
from torch_hal.hardware_adapter import best_device_index
from torch_hal.vendors import HardwareVendor

# C++ adapters named after a vendor belong to it; any other adapter is a plugin (custom ASIC).
_NAMED_VENDORS = {HardwareVendor.NVIDIA, HardwareVendor.AMD, HardwareVendor.INTEL, HardwareVendor.HOST}
# Adapters that serve a vendor's devices besides the one named after it: the OpenCL adapter's Intel devices
# are Intel's (torch_hal.device_records.vendor_of), its others a custom ASIC's, so it is listed under both.
_ALSO_SERVED_BY = {HardwareVendor.INTEL: ("opencl",)}


class VendorAdapter:
    vendor: HardwareVendor
    runtime: str  # what the C++ adapter needs at run time, for the reason when it is absent

    def discover_devices(self) -> List[DeviceRecord]:
        """This vendor's hal devices, in hal index order; [] when it has none (see unavailable_reason)."""
        return [d for d in hal_devices() if d.vendor is self.vendor]

    def is_available(self) -> bool:
        return bool(self.discover_devices())

    def adapter_libraries(self) -> List[AdapterInfo]:
        """The C++ adapters of this vendor that the core found, loaded or not."""
        if self.vendor is HardwareVendor.CUSTOM_ASIC:
            return [a for a in adapters() if a.name not in {v.value for v in _NAMED_VENDORS}]
        names = (self.vendor.value,) + _ALSO_SERVED_BY.get(self.vendor, ())
        return [a for a in adapters() if a.name in names]

    @property
    def unavailable_reason(self) -> str:
        """Empty when the vendor has devices; otherwise why not, from its C++ adapters."""
        if self.is_available():
            return ""
        libraries = self.adapter_libraries()
        if not libraries and self.vendor is HardwareVendor.CUSTOM_ASIC:
            return ("no plugin adapter is loaded: name its library in TORCH_HAL_ADAPTERS, or call "
                    "torch_hal.load_adapter(path)")
        if not libraries:
            return (f"no {self.vendor} adapter library was found (libhal_adapter_{self.vendor}.so in "
                    f"torch_hal/lib or a folder of TORCH_HAL_ADAPTER_PATH); it needs {self.runtime}")
        return "; ".join(f"adapter {a.name} ({a.path}) is {a.state}: {a.reason}" if a.reason else
                         f"adapter {a.name} ({a.path}) is {a.state} with no {self.vendor} device" for a in libraries)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vendor={self.vendor.value!r}, available={self.is_available()})"


class NvidiaAdapter(VendorAdapter):
    vendor, runtime = HardwareVendor.NVIDIA, "an NVIDIA GPU and its driver (libcuda.so.1)"


class AmdAdapter(VendorAdapter):
    vendor, runtime = HardwareVendor.AMD, "an AMD GPU and ROCm's HIP runtime (libamdhip64.so)"


class IntelAdapter(VendorAdapter):
    vendor, runtime = (HardwareVendor.INTEL, "an Intel GPU with its Level Zero driver and loader (libze_loader.so.1), "
                                             "or an Intel device behind OpenCL (libOpenCL.so.1)")


class CustomAsicAdapter(VendorAdapter):
    vendor, runtime = HardwareVendor.CUSTOM_ASIC, "its plugin adapter library"


class HostAdapter(VendorAdapter):
    vendor, runtime = HardwareVendor.HOST, "nothing: it is built in"


ADAPTER_CLASSES: Dict[HardwareVendor, Type[VendorAdapter]] = {
    cls.vendor: cls for cls in (NvidiaAdapter, AmdAdapter, IntelAdapter, CustomAsicAdapter, HostAdapter)}


def all_vendor_adapters() -> List[VendorAdapter]:
    return [cls() for cls in ADAPTER_CLASSES.values()]


def auto_detect_best_adapter() -> VendorAdapter:
    """The adapter of the vendor whose device selection ranks first with no requirements."""
    return ADAPTER_CLASSES[hal_device(best_device_index()).vendor]()
