"""Which path each aten op takes on a hal device, found before anything runs.

The answer combines three sources, none of them a list kept here:
  - PyTorch's dispatcher: every aten op, and which kernels it has (CPU, composite, PrivateUse1);
  - torch_hal's kernel table (``_C.kernel_table()``, filled by the C++ registrations themselves): the route
    of each hal kernel and the adapter ops it launches;
  - the device's adapter: whether it launches native ops at all, and ``op_supported`` per op and dtype.

It mirrors the order in which an op runs (DESIGN.md, "Operators"): the adapter's kernel where the adapter
has it; else ATen's CPU kernel in place where the device's memory is host-accessible; else the counted CPU
fallback. Ops that decompose into other ops before reaching the device, and the device's own work
(allocation, views, copies), are categories of their own.
"""
import dataclasses
import fnmatch
from typing import Dict, Iterable, List, Optional

import torch

from torch_hal import _C, pytorch_gaps
from torch_hal.device_index import device_index

# Categories in the order a report lists them, with what each means for a user.
CATEGORIES = {
    "native": "the adapter's own kernel (for the dtypes listed; other dtypes take the next path)",
    "runtime": "the device's own work: allocation, views, copies, metadata",
    "composite": "made of other aten ops, each of which takes its own path",
    "cpu_in_place": "ATen's CPU kernel, run in place on the device's host-accessible memory (no copies)",
    "cpu_fallback": "copied to the CPU and back (counted in torch.hal.fallback_stats(), refused in strict mode)",
    "unsupported": "no kernel on hal nor on the CPU: raises NotImplementedError on this device",
}

# The dtypes the adapter ABI can describe (native_launch.cpp's hal_dtype_of), asked about in this order.
ABI_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int16,
              torch.int8, torch.uint8, torch.bool)

# PyTorch's composite keys, in the order the dispatcher prefers them for a backend without its own kernel.
_COMPOSITE_KEYS = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


@dataclasses.dataclass
class OpCoverage:
    name: str                      # "add.Tensor"
    category: str                  # a key of CATEGORIES
    route: str                     # how torch_hal registered it ("adapter_first", ...), or "dispatcher"
    hal_ops: List[str]             # the adapter ops its hal kernel launches ("HAL_OP_ADD")
    dtypes: List[str]              # native: the dtypes the adapter accepts for all of hal_ops
    otherwise: Optional[str] = None  # native: the category of the other dtypes


@dataclasses.dataclass
class CoverageReport:
    device: str
    adapter: str
    device_name: str
    host_accessible: bool
    native_kernels: str            # the adapter's answer: "no_native_kernels", "decided_at_launch", "op_supported"
    torch_version: str
    ops: List[OpCoverage]

    def counts(self) -> Dict[str, int]:
        counts = {category: 0 for category in CATEGORIES}
        for op in self.ops:
            counts[op.category] += 1
        return counts

    def select(self, op_patterns: Iterable[str] = (), categories: Iterable[str] = ()) -> "CoverageReport":
        """The same report restricted to ops matching any pattern and in any of the categories given."""
        patterns, wanted = list(op_patterns), set(categories)
        ops = [op for op in self.ops
               if (not patterns or any(_matches(op.name, p) for p in patterns))
               and (not wanted or op.category in wanted)]
        return dataclasses.replace(self, ops=ops)


def _matches(name: str, pattern: str) -> bool:
    """'add' matches add, add.Tensor and add.out (not add_ or addmm); 'add*' is a glob; 'add.out' is exact;
    'aten::add.out' too (as torch.hal.fallback_stats() names ops)."""
    pattern = pattern[len("aten::"):] if pattern.startswith("aten::") else pattern
    base = name.split(".", 1)[0]
    return name == pattern or base == pattern or fnmatch.fnmatchcase(name, pattern)


def _has_kernel(qualified: str, key: str) -> bool:
    return torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)


class _AdapterQuestions:
    """The adapter's answers for one device, asked once per (op, dtype)."""

    def __init__(self, index: int):
        self.index = index
        self._answers: Dict[tuple, str] = {}
        # Whether the adapter launches native ops at all, and has op_supported to ask: the answer for op id 0
        # (no op) is "no_native_kernels" or "decided_at_launch" for every op, or "not_supported" from
        # op_supported itself.
        self.mode = self.answer(0, torch.float32)

    def answer(self, op: int, dtype: torch.dtype) -> str:
        key = (op, dtype)
        if key not in self._answers:
            self._answers[key] = _C.adapter_op_support(self.index, op, dtype)
        return self._answers[key]

    def dtypes_for_all(self, ops: List[int]) -> List[torch.dtype]:
        """The dtypes for which the adapter has every one of `ops` (all dtypes when it decides at launch)."""
        if self.mode == "decided_at_launch":
            return list(ABI_DTYPES)
        return [d for d in ABI_DTYPES if all(self.answer(op, d) == "supported" for op in ops)]


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def existing_device(device) -> int:
    """The index of a hal device that exists (device: an index, "hal:N" or a torch.device); ValueError or
    RuntimeError (from torch.device) otherwise."""
    index = device_index(device)
    if not 0 <= index < _C.device_count():
        raise ValueError(f"hal:{index} does not exist; {describe_devices()}")
    return index


def coverage(device="hal") -> CoverageReport:
    """The coverage map of a hal device (index, "hal:N" or torch.device)."""
    index = existing_device(device)
    props = _C.get_device_properties(index)
    adapter = _AdapterQuestions(index)
    cpu_path = "cpu_in_place" if props["host_accessible"] else "cpu_fallback"
    table = {record["name"]: record for record in _C.kernel_table()}

    ops = []
    for qualified in sorted(n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::")):
        name = qualified[len("aten::"):]
        record = table.get(name)
        if record is not None:
            ops.append(_registered_op(name, record, adapter, cpu_path))
        elif qualified in pytorch_gaps.UNSUPPORTED_OPS:
            # torch_hal's own PrivateUse1 kernel that raises a clear error (quantized, sparse, nested tensors).
            ops.append(OpCoverage(name, "unsupported", "pytorch_gaps", [], []))
        elif _has_kernel(qualified, "PrivateUse1"):
            # A PrivateUse1 kernel registered outside torch_hal's tables (by PyTorch or another extension):
            # it runs on the device by its own means.
            ops.append(OpCoverage(name, "runtime", "other_registration", [], []))
        elif any(_has_kernel(qualified, key) for key in _COMPOSITE_KEYS):
            ops.append(OpCoverage(name, "composite", "dispatcher", [], []))
        elif _has_kernel(qualified, "CPU"):
            ops.append(OpCoverage(name, cpu_path, "dispatcher", [], []))  # the boxed fallback of cpu_fallback.cpp
        else:
            ops.append(OpCoverage(name, "unsupported", "dispatcher", [], []))
    mode = "op_supported" if adapter.mode in ("supported", "not_supported") else adapter.mode
    return CoverageReport(device=f"hal:{index}", adapter=props["adapter"], device_name=props["name"],
                          host_accessible=props["host_accessible"], native_kernels=mode,
                          torch_version=torch.__version__, ops=ops)


def _registered_op(name: str, record: dict, adapter: _AdapterQuestions, cpu_path: str) -> OpCoverage:
    route, op_ids = record["route"], record["hal_ops"]
    hal_ops = [_C.hal_op_name(op) for op in op_ids]
    if route == "runtime":
        return OpCoverage(name, "runtime", route, hal_ops, [])
    if route == "composite":
        return OpCoverage(name, "composite", route, hal_ops, [])
    if route == "cpu_kernel":
        return OpCoverage(name, cpu_path, route, hal_ops, [])
    # adapter_first and foreach: the adapter's kernel where it has every op the kernel launches.
    without_adapter = "composite" if route == "foreach" else cpu_path  # foreach: one aten op per tensor
    if adapter.mode == "no_native_kernels":
        return OpCoverage(name, without_adapter, route, hal_ops, [])
    if not op_ids:  # launches nothing itself: made of other aten ops on devices with native kernels
        return OpCoverage(name, "composite", route, hal_ops, [])
    dtypes = adapter.dtypes_for_all(op_ids)
    if not dtypes:
        return OpCoverage(name, without_adapter, route, hal_ops, [])
    otherwise = None if len(dtypes) == len(ABI_DTYPES) else without_adapter
    return OpCoverage(name, "native", route, hal_ops, [_dtype_name(d) for d in dtypes], otherwise)


def describe_devices() -> str:
    """'devices: hal:0 (host: Host reference device)', for messages about a device that does not exist."""
    count = _C.device_count()
    if count == 0:
        return "no hal devices exist (python -m torch_hal info says why)"
    listed = []
    for i in range(count):
        props = _C.get_device_properties(i)
        listed.append(f"hal:{i} ({props['adapter']}: {props['name']})")
    return "devices: " + ", ".join(listed)
