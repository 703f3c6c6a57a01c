"""``HardwareAdapter.get_cross_vendor_capabilities()``: one summary of every hal device and adapter.

Device memory and host memory are kept apart: ``available_memory_gb`` counts accelerator memory only (every
hal device but the host reference device, whose "device memory" is the machine's RAM); the host reference
device's memory has its own keys.
"""
from typing import Any, Dict

from torch_hal._adapters import adapters
from torch_hal.device_records import hal_devices
from torch_hal.requirements import PRECISIONS
from torch_hal.vendors import HardwareVendor


def cross_vendor_capabilities() -> Dict[str, Any]:
    devices = hal_devices()
    accelerators = [d for d in devices if not d.is_host_reference]
    host_devices = [d for d in devices if d.is_host_reference]
    return {
        "hal_enabled": True,
        "device_count": len(devices),
        "cross_vendor_devices": [
            {"device": str(d.torch_device), "vendor": d.vendor.value, "adapter": d.adapter,
             "name": d.capabilities.device_name, "total_memory_gb": d.capabilities.total_memory_gb,
             "free_memory_gb": d.free_memory_gb(), "peak_fp32_tflops": d.capabilities.peak_fp32_tflops,
             "peak_bf16_tflops": d.capabilities.peak_bf16_tflops,
             "memory_bandwidth_gbps": d.capabilities.memory_bandwidth_gbps,
             "precisions": d.capabilities.precisions}
            for d in devices],
        "vendor_distribution": {v.value: sum(d.vendor is v for d in devices) for v in HardwareVendor},
        "available_memory_gb": sum((d.free_memory_gb() for d in accelerators), 0.0),
        "total_memory_gb": sum((d.capabilities.total_memory_gb for d in accelerators), 0.0),
        "host_available_memory_gb": sum((d.free_memory_gb() for d in host_devices), 0.0),
        "host_total_memory_gb": sum((d.capabilities.total_memory_gb for d in host_devices), 0.0),
        "precision_support": {p: [str(d.torch_device) for d in devices if d.capabilities.supports(p)]
                              for p in PRECISIONS},
        "adapters": [{"name": a.name, "state": a.state, "reason": a.reason, "device_count": a.device_count}
                     for a in adapters()],
    }
