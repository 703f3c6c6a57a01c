"""What a caller asks of a device, checked once: a malformed request is a TypeError or ValueError that names
the argument and what it accepts; an unmet request is not an error (selection answers None with reasons)."""
import math
from dataclasses import dataclass
from typing import Iterable, Optional, Tuple, Union

from torch_hal.vendors import HardwareVendor

PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "fp64")
# With no preferred_vendors every vendor is accepted, in the order the registry numbers devices.
DEFAULT_VENDOR_ORDER = (HardwareVendor.NVIDIA, HardwareVendor.AMD, HardwareVendor.INTEL,
                        HardwareVendor.CUSTOM_ASIC, HardwareVendor.HOST)
_VENDOR_NAMES = ", ".join(v.value for v in HardwareVendor)


@dataclass(frozen=True)
class Requirements:
    memory_gb: float = 0.0  # free device memory, decimal GB
    compute_tflops: float = 0.0  # matmul TFLOP/s in compute_precision
    vendors: Tuple[HardwareVendor, ...] = DEFAULT_VENDOR_ORDER  # accepted vendors, most preferred first
    precisions: Tuple[str, ...] = ()

    @property
    def compute_precision(self) -> str:
        """bf16 when the caller requires bf16 (that is what they will compute in), else fp32."""
        return "bf16" if "bf16" in self.precisions else "fp32"


def check_amount(name: str, value, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of {unit} (0 for no requirement), got {value!r}")
    if math.isnan(value) or math.isinf(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of {unit} >= 0 (0 for no requirement), got {value!r}")
    return float(value)


def _names(name: str, values, accepted: Tuple[str, ...], example: str) -> Tuple[str, ...]:
    """Lower-cased, de-duplicated names in the caller's order; each one of ``accepted``."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list such as {example}, got {values!r}"
                        + (f"; write [{values!r}]" if isinstance(values, str) else ""))
    out = []
    for value in values:
        if not isinstance(value, str):  # HardwareVendor members are strings too
            raise TypeError(f"{name} holds {value!r}; accepted values: {', '.join(accepted)}")
        key = value.value if isinstance(value, HardwareVendor) else value.strip().lower()
        if key not in accepted:
            raise ValueError(f"{name}: unknown value {value!r}; accepted values: {', '.join(accepted)}")
        if key not in out:
            out.append(key)
    return tuple(out)


def parse_requirements(memory_requirement_gb=0.0, compute_requirement_tflops=0.0,
                       preferred_vendors: Optional[Iterable[Union[str, HardwareVendor]]] = None,
                       required_precisions: Iterable[str] = ()) -> Requirements:
    memory = check_amount("memory_requirement_gb", memory_requirement_gb, "gigabytes")
    compute = check_amount("compute_requirement_tflops", compute_requirement_tflops, "TFLOP/s")
    if preferred_vendors is None:
        vendors = DEFAULT_VENDOR_ORDER
    else:
        names = _names("preferred_vendors", preferred_vendors, tuple(v.value for v in HardwareVendor),
                       "['nvidia', 'amd'] or [HardwareVendor.NVIDIA]")
        if not names:
            raise ValueError(f"preferred_vendors is empty, so no device could qualify: name vendors "
                             f"({_VENDOR_NAMES}) or pass None to accept every vendor")
        vendors = tuple(HardwareVendor(n) for n in names)
    precisions = _names("required_precisions", required_precisions, PRECISIONS, "['bf16']")
    return Requirements(memory, compute, vendors, precisions)
