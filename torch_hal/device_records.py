"""Device records: what selection, the vendor adapters and HardwareAdapter's legacy mode return for a device.

A hal device's record holds the properties its adapter read from the hardware (``torch_hal._C``); peak
throughput and bandwidth are the adapter's figures, 0 where the adapter does not know them (the host
reference device: measure them with :func:`torch_hal.measure`).
"""
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch

from torch_hal import _C
from torch_hal.vendors import HardwareVendor

GB = 1e9  # requirements and reports are in decimal gigabytes, as vendors state memory sizes


@dataclass(frozen=True)
class DeviceCapabilities:
    device_name: str
    architecture: str
    total_memory_gb: float
    compute_units: int
    compute_capability: Tuple[int, int]
    clock_rate_mhz: float
    memory_clock_rate_mhz: float
    memory_bus_width_bits: int
    supports_fp16: bool
    supports_bf16: bool
    supports_fp8: bool
    supports_fp64: bool
    host_accessible: bool  # the CPU can address its memory (the host reference device, unified memory)
    peak_fp32_tflops: float  # 0: not reported by the adapter
    peak_bf16_tflops: float  # 0: not reported by the adapter
    memory_bandwidth_gbps: float  # 0: not reported by the adapter
    pci_bus_id: str
    uuid: str

    def supports(self, precision: str) -> bool:
        """Whether the device computes in ``precision`` ('fp32', 'fp16', 'bf16', 'fp8' or 'fp64')."""
        return precision == "fp32" or getattr(self, f"supports_{precision}")

    @property
    def precisions(self) -> List[str]:
        return [p for p in ("fp32", "fp16", "bf16", "fp8", "fp64") if self.supports(p)]


@dataclass(frozen=True)
class DeviceRecord:
    """One device: ``torch_device`` is what to pass to ``.to()``; ``index`` is the hal index, or None for a
    device outside hal (legacy placement's 'cuda:0' or 'cpu')."""

    torch_device: torch.device
    vendor: HardwareVendor
    adapter: str
    index: Optional[int]
    capabilities: DeviceCapabilities

    @property
    def is_host_reference(self) -> bool:
        return self.index is not None and self.vendor is HardwareVendor.HOST

    def free_memory_gb(self) -> float:
        """Free memory now, as the runtime reports it (changes as tensors come and go)."""
        if self.torch_device.type == "hal":
            return _C.mem_get_info(self.index)[0] / GB
        if self.torch_device.type == "cuda":
            return torch.cuda.mem_get_info(self.torch_device)[0] / GB
        return self.capabilities.total_memory_gb  # the CPU: no allocator tracks it; its installed memory

    def __str__(self) -> str:
        return f"{self.torch_device} ({self.vendor}, {self.capabilities.device_name})"


def vendor_of(vendor_name: str, adapter: str = "", device_name: str = "") -> HardwareVendor:
    """The vendor of a device from the name its adapter reports; adapters of other vendors are plugins.

    The OpenCL adapter serves devices of any vendor and reports "opencl" as theirs (the core numbers its
    devices apart from those of the vendors' own adapters); its device names begin with the OpenCL device's
    own name, so an Intel GPU or CPU there ("Intel(R) Arc(TM) A770 Graphics (OpenCL, ...)") is Intel's, as the
    Level Zero adapter's are. Its other devices stay custom_asic."""
    if adapter == "opencl" and device_name.startswith("Intel"):
        return HardwareVendor.INTEL
    try:
        return HardwareVendor(vendor_name.lower())
    except ValueError:
        return HardwareVendor.CUSTOM_ASIC


def hal_device(index: int) -> DeviceRecord:
    p = _C.get_device_properties(index)
    caps = DeviceCapabilities(
        device_name=p["name"], architecture=p["arch_name"], total_memory_gb=p["total_memory"] / GB,
        compute_units=p["multi_processor_count"], compute_capability=(p["major"], p["minor"]),
        clock_rate_mhz=p["clock_rate_khz"] / 1e3, memory_clock_rate_mhz=p["memory_clock_rate_khz"] / 1e3,
        memory_bus_width_bits=p["memory_bus_width"], supports_fp16=p["supports_fp16"],
        supports_bf16=p["supports_bf16"], supports_fp8=p["supports_fp8"], supports_fp64=p["supports_fp64"],
        host_accessible=p["host_accessible"], peak_fp32_tflops=p["peak_fp32_tflops"],
        peak_bf16_tflops=p["peak_bf16_tflops"], memory_bandwidth_gbps=p["memory_bandwidth_gbps"],
        pci_bus_id=p["pci_bus_id"], uuid=p["uuid"])
    vendor = vendor_of(p["vendor"], p["adapter"], p["name"])
    return DeviceRecord(torch.device("hal", index), vendor, p["adapter"], index, caps)


def hal_devices() -> List[DeviceRecord]:
    """Every hal device, in hal index order (vendor GPUs first, the host reference device last)."""
    return [hal_device(i) for i in range(_C.device_count())]
