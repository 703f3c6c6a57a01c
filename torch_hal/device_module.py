"""``torch.hal``: the ``torch.cuda`` names that make sense for any device, for hal devices."""
import contextlib
from typing import Any, Optional, Union

import torch

from torch_hal import _C
from torch_hal.memory import (  # noqa: F401  (re-exported as torch.hal.*)
    empty_cache,
    empty_host_cache,
    host_memory_stats,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_summary,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)
from torch_hal.random import (  # noqa: F401
    default_generators,
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from torch_hal.streams import (  # noqa: F401
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)
from torch_hal.graphs import (  # noqa: F401  (torch.hal.HALGraph, torch.hal.graph, ..., as torch.cuda's)
    GraphCaptureError,
    HALGraph,
    check_not_capturing,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from torch_hal.device_index import device_index as _device_index
from torch_hal.hardware_adapter import best_device_index as _best_device_index
from torch_hal import memory  # noqa: F401  (torch.hal.memory._record_memory_history, as torch.cuda.memory)

_DeviceLike = Union[int, str, torch.device, None]


def is_available() -> bool:
    return _C.device_count() > 0


def device_count() -> int:
    return _C.device_count()


def current_device() -> int:
    return _C.current_device()


def set_device(device: _DeviceLike) -> None:
    """Makes ``device`` the current hal device of this thread (then ``torch.device("hal")`` means it).
    ``"auto"`` picks the best device, as ``HardwareAdapter(enable_hal=True).get_optimal_device_hal()`` with
    no requirements does. Raises IndexError for a device that does not exist, naming the devices that do."""
    if isinstance(device, str) and device == "auto":
        device = _best_device_index()
    _C.set_device(_device_index(device))


class device:
    """Context manager that changes the current hal device, like ``torch.cuda.device``."""

    def __init__(self, device: _DeviceLike):
        self.index = _device_index(device, optional=True)
        self.previous = -1

    def __enter__(self):
        self.previous = _C.current_device()
        if self.index is not None:
            _C.set_device(self.index)

    def __exit__(self, *exc: Any):
        if self.index is not None:
            _C.set_device(self.previous)
        return False


class _DeviceGuard:
    """The device guard of Inductor's generated code (``torch.cuda._DeviceGuard`` for hal): takes a device index
    only, and one C call on each side, since a compiled graph's wrapper enters one per call."""

    __slots__ = ("index", "previous")

    def __init__(self, index: int):
        self.index = index
        self.previous = -1

    def __enter__(self):
        self.previous = _C.exchange_device(self.index)

    def __exit__(self, *exc: Any):
        _C.exchange_device(self.previous)
        return False


def synchronize(device: _DeviceLike = None) -> None:
    """Waits for all work on every stream of the device (the current one by default)."""
    check_not_capturing("torch.hal.synchronize()")
    _C.synchronize(_device_index(device, optional=True) if device is not None else _C.current_device())


class _DeviceProperties:
    """What ``get_device_properties`` returns: the fields of ``torch.cuda``'s, plus vendor-neutral ones."""

    def __init__(self, fields: dict):
        self.__dict__.update(fields)

    def __repr__(self):
        return (f"_HalDeviceProperties(name='{self.name}', vendor='{self.vendor}', adapter='{self.adapter}', "
                f"total_memory={self.total_memory // (1 << 20)}MB, multi_processor_count="
                f"{self.multi_processor_count}, arch='{self.arch_name}')")


def get_device_properties(device: _DeviceLike = None) -> _DeviceProperties:
    return _DeviceProperties(_C.get_device_properties(_device_index(device)))


def get_device_name(device: _DeviceLike = None) -> str:
    return get_device_properties(device).name


def get_device_capability(device: _DeviceLike = None):
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return is_available() and get_device_properties().supports_bf16


def get_amp_supported_dtype():
    """Used by ``torch.autocast("hal")``."""
    return [torch.float16, torch.bfloat16]


def is_initialized() -> bool:
    return True


def init() -> None:
    """Devices are discovered at import; nothing is left to initialize."""


def _lazy_init() -> None:
    """Called by PyTorch before the first hal tensor is made. Its presence matters more than its body:
    without it, PyTorch 2.11 re-imports torch.hal on every factory call (about 1.5 us each)."""


def _is_in_bad_fork() -> bool:
    """True in a child forked after its parent used a hal device: hal raises there (use 'spawn')."""
    return _C.in_bad_fork()


def fallback_stats() -> dict:
    """How many times each aten op ran through the CPU fallback (copies to and from the device), by op."""
    return dict(_C.fallback_stats())


def reset_fallback_stats() -> None:
    _C.reset_fallback_stats()


def set_strict(strict: bool) -> None:
    """In strict mode an op that would run through the CPU fallback raises instead (TORCH_HAL_STRICT=1)."""
    _C.set_strict(bool(strict))


def is_strict() -> bool:
    return _C.is_strict()


@contextlib.contextmanager
def strict(enabled: bool = True):
    """``with torch.hal.strict():`` proves that the code inside runs without the CPU fallback."""
    previous = _C.is_strict()
    _C.set_strict(enabled)
    try:
        yield
    finally:
        _C.set_strict(previous)
