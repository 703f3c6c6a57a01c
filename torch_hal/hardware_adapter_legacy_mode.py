"""``HardwareAdapter``'s legacy mode: discovery and placement as they were before the hardware abstraction
layer, over PyTorch's own devices (torch.cuda's GPUs and the CPU), not hal devices. ``HardwareAdapter()``
(``enable_hal=False``, the default) answers with this, so code written for it keeps working; HAL mode's
get_optimal_device_placement() falls back to :func:`cpu_record` as well."""
import os
import platform

import torch

from torch_hal.device_records import GB, DeviceCapabilities, DeviceRecord
from torch_hal.measure import measure
from torch_hal.vendors import HardwareVendor


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_record() -> DeviceRecord:
    pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    caps = DeviceCapabilities(
        device_name=_cpu_model(), architecture=platform.machine(), total_memory_gb=pages * page_size / GB,
        compute_units=os.cpu_count() or 1, compute_capability=(0, 0), clock_rate_mhz=0.0,
        memory_clock_rate_mhz=0.0, memory_bus_width_bits=0, supports_fp16=True, supports_bf16=True,
        supports_fp8=False, supports_fp64=True, host_accessible=True, peak_fp32_tflops=0.0,
        peak_bf16_tflops=0.0, memory_bandwidth_gbps=0.0, pci_bus_id="", uuid="")
    return DeviceRecord(torch.device("cpu"), HardwareVendor.HOST, "cpu", None, caps)


def cuda_record(index: int) -> DeviceRecord:
    p = torch.cuda.get_device_properties(index)
    caps = DeviceCapabilities(
        device_name=p.name, architecture=getattr(p, "gcnArchName", "") or f"sm_{p.major}{p.minor}",
        total_memory_gb=p.total_memory / GB, compute_units=p.multi_processor_count,
        compute_capability=(p.major, p.minor), clock_rate_mhz=getattr(p, "clock_rate", 0) / 1e3,
        memory_clock_rate_mhz=getattr(p, "memory_clock_rate", 0) / 1e3,
        memory_bus_width_bits=getattr(p, "memory_bus_width", 0), supports_fp16=True,
        supports_bf16=torch.cuda.is_bf16_supported(),
        supports_fp8=not torch.version.hip and (p.major, p.minor) >= (8, 9),  # NVIDIA Ada and Hopper onwards
        supports_fp64=True, host_accessible=False, peak_fp32_tflops=0.0, peak_bf16_tflops=0.0,
        memory_bandwidth_gbps=0.0, pci_bus_id="", uuid=str(getattr(p, "uuid", "")))
    vendor = HardwareVendor.AMD if torch.version.hip else HardwareVendor.NVIDIA
    return DeviceRecord(torch.device("cuda", index), vendor, "torch.cuda", None, caps)


def legacy_devices():
    cuda = [cuda_record(i) for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    return cuda + [cpu_record()]


def legacy_placement(memory_gb: float, compute_tflops: float) -> DeviceRecord:
    """cuda:0 when torch.cuda is available, has ``memory_gb`` free and measures ``compute_tflops`` fp32
    (torch.cuda reports no peak, so it is timed with torch_hal.measure); otherwise the CPU, the fallback
    that always exists."""
    if torch.cuda.is_available():
        gpu = cuda_record(0)
        if gpu.free_memory_gb() >= memory_gb and (
                compute_tflops <= 0 or measure(gpu.torch_device).fp32_tflops >= compute_tflops):
            return gpu
    return cpu_record()
