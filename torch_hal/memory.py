"""Memory of hal devices: the caching allocator's statistics and controls, named as in torch.cuda."""
import collections
from typing import Any, Dict, Union

import torch

from torch_hal import _C
from torch_hal.device_index import device_index
from torch_hal.memory_history import _dump_snapshot, _record_memory_history, _snapshot, memory_snapshot  # noqa: F401

_DeviceLike = Union[int, str, torch.device, None]


def memory_stats(device: _DeviceLike = None) -> Dict[str, Any]:
    stats = _C.memory_stats(device_index(device))
    return collections.OrderedDict(sorted(stats.items()))


def memory_allocated(device: _DeviceLike = None) -> int:
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device: _DeviceLike = None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device: _DeviceLike = None) -> int:
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device: _DeviceLike = None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device: _DeviceLike = None) -> None:
    _C.reset_peak_memory_stats(device_index(device))


def reset_max_memory_allocated(device: _DeviceLike = None) -> None:
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: _DeviceLike = None) -> None:
    _C.reset_accumulated_memory_stats(device_index(device))


def empty_cache() -> None:
    """Returns every cached, unused block of every hal device to its adapter."""
    _C.empty_cache()


def host_memory_stats() -> Dict[str, Any]:
    """Statistics of the pinned host memory cache, with torch.cuda.host_memory_stats()'s keys."""
    return collections.OrderedDict(sorted(_C.host_memory_stats().items()))


def empty_host_cache() -> None:
    """Returns cached pinned host blocks to their adapters, once the copies that used them completed."""
    _C.empty_host_cache()


def reset_peak_host_memory_stats() -> None:
    _C.reset_peak_host_memory_stats()


def reset_accumulated_host_memory_stats() -> None:
    _C.reset_accumulated_host_memory_stats()


def set_per_process_memory_fraction(fraction: float, device: _DeviceLike = None) -> None:
    _C.set_memory_fraction(float(fraction), device_index(device))


def mem_get_info(device: _DeviceLike = None):
    """(free, total) bytes of the device as its adapter reports them."""
    return tuple(_C.mem_get_info(device_index(device)))


def _format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def memory_summary(device: _DeviceLike = None, abbreviated: bool = False) -> str:
    """A readable table of the allocator statistics, in the spirit of torch.cuda.memory_summary()."""
    index = device_index(device)
    stats = memory_stats(index)
    rows = [("Allocated memory", "allocated_bytes", True), ("Active memory", "active_bytes", True),
            ("Requested memory", "requested_bytes", True), ("Reserved memory", "reserved_bytes", True),
            ("Non-releasable memory", "inactive_split_bytes", True), ("Allocations", "allocation", False),
            ("Active allocs", "active", False), ("Reserved segments", "segment", False)]
    fmt = _format_bytes
    lines = [f"hal:{index} memory summary ({_C.get_device_properties(index)['name']})",
             f"{'Metric':<24}{'Current':>14}{'Peak':>14}{'Tot Alloc':>14}{'Tot Freed':>14}"]
    for title, key, is_bytes in rows:
        vals = [stats.get(f"{key}.all.{k}", 0) for k in ("current", "peak", "allocated", "freed")]
        shown = [fmt(v) if is_bytes else str(v) for v in vals]
        lines.append(f"{title:<24}" + "".join(f"{s:>14}" for s in shown))
    lines.append(f"OOMs: {stats.get('num_ooms', 0)}   alloc retries: {stats.get('num_alloc_retries', 0)}")
    return "\n".join(lines)
