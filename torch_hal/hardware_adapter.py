"""``HardwareAdapter``, the device picker: cross-vendor discovery and selection of hal devices, with the
pre-HAL (legacy) API kept working (hardware_adapter_legacy_mode.py). Not an adapter (a library behind the C ABI,
``torch_hal.adapters()``): docs/ARCHITECTURE.md, "Words".

    picker = HardwareAdapter(enable_hal=True)
    dev = picker.get_optimal_device_hal(memory_requirement_gb=8, compute_requirement_tflops=20,
                                        preferred_vendors=['nvidia', 'amd'], required_precisions=['bf16'])
    if dev is None:
        print(picker.last_selection_reasons)         # {'hal:0': 'lost: needs 8 GB free, has 3.1 GB', ...}

How devices qualify and rank: :mod:`torch_hal.selection`.
"""
from typing import Any, Dict, Iterable, List, Optional, Union

from torch_hal.cross_vendor import cross_vendor_capabilities
from torch_hal.device_records import DeviceRecord, hal_devices
from torch_hal.hardware_adapter_legacy_mode import cpu_record, legacy_devices, legacy_placement
from torch_hal.requirements import Requirements, check_amount, parse_requirements
from torch_hal.selection import Selection, select
from torch_hal.vendors import HardwareVendor


class HardwareAdapter:
    """``enable_hal=True``: every hal device of every vendor. ``enable_hal=False`` (the default, legacy
    mode): torch.cuda and the CPU only, as before the hardware abstraction layer."""

    def __init__(self, enable_hal: bool = False):
        if not isinstance(enable_hal, bool):
            raise TypeError(f"enable_hal must be True or False, got {enable_hal!r}")
        self._hal = enable_hal
        self.last_selection: Optional[Selection] = None

    def is_hal_enabled(self) -> bool:
        return self._hal

    def discover_devices(self) -> List[DeviceRecord]:
        """Every hal device (HAL mode), or torch.cuda's devices and the CPU (legacy mode)."""
        return hal_devices() if self._hal else legacy_devices()

    def get_optimal_device_hal(self, memory_requirement_gb: float = 0.0, compute_requirement_tflops: float = 0.0,
                               preferred_vendors: Optional[Iterable[Union[str, HardwareVendor]]] = None,
                               required_precisions: Iterable[str] = (), explain: bool = False):
        """The best hal device that meets every requirement, or None when none does.

        ``memory_requirement_gb``: free device memory (decimal GB). ``compute_requirement_tflops``: matmul
        TFLOP/s, in bf16 when ``required_precisions`` names bf16, else fp32. ``preferred_vendors``: the
        vendors to accept, most preferred first, as strings ('nvidia', 'amd', 'intel', 'custom_asic',
        'host') or HardwareVendor members; None accepts all, in the order nvidia, amd, intel, custom_asic,
        host. ``required_precisions``: any of 'fp32', 'fp16', 'bf16', 'fp8', 'fp64'.

        Qualifying devices rank by the score (vendor preference, reported peak TFLOP/s, total memory, lower
        index; see torch_hal.selection). ``explain=True`` returns a :class:`Selection` instead (``.device``,
        and ``.reasons``: why each device won or lost); either way ``self.last_selection`` keeps it and
        ``self.last_selection_reasons`` gives the reasons. A malformed request raises TypeError or
        ValueError naming the argument; an unmet one is not an error.
        """
        self._require_hal("get_optimal_device_hal")
        req = parse_requirements(memory_requirement_gb, compute_requirement_tflops, preferred_vendors,
                                 required_precisions)
        self.last_selection = select(hal_devices(), req)
        return self.last_selection if explain else self.last_selection.device

    @property
    def last_selection_reasons(self) -> Dict[str, str]:
        """Why each device won or lost in the last get_optimal_device_hal() call ({} before the first)."""
        return self.last_selection.reasons if self.last_selection else {}

    def get_cross_vendor_capabilities(self) -> Dict[str, Any]:
        """Devices, vendor distribution, device and host memory, precisions and adapters
        (torch_hal.cross_vendor)."""
        self._require_hal("get_cross_vendor_capabilities")
        return cross_vendor_capabilities()

    def get_optimal_device_placement(self, memory_gb: float = 0.0, compute_tflops: float = 0.0) -> DeviceRecord:
        """The pre-HAL API: always a device record. Legacy mode: cuda:0 when torch.cuda has it and it fits,
        else the CPU. HAL mode: the best hal device that fits, else the CPU."""
        req = Requirements(check_amount("memory_gb", memory_gb, "gigabytes"),
                           check_amount("compute_tflops", compute_tflops, "TFLOP/s"))
        if not self._hal:
            return legacy_placement(req.memory_gb, req.compute_tflops)
        self.last_selection = select(hal_devices(), req)
        return self.last_selection.device or cpu_record()

    def _require_hal(self, method: str) -> None:
        if not self._hal:
            raise RuntimeError(f"HardwareAdapter.{method}() needs the hardware abstraction layer, and this "
                               f"adapter is in legacy mode: create it with HardwareAdapter(enable_hal=True), "
                               f"or use get_optimal_device_placement()")


def best_device_index() -> int:
    """The hal index that selection ranks first with no requirements (what set_device("auto") picks)."""
    best = select(hal_devices(), parse_requirements()).device
    if best is None:
        raise RuntimeError("no hal device exists: see torch_hal.adapters() for why each adapter has none")
    return best.index
