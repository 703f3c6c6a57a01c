"""``torch_hal.measure(device)``: a device's throughput and bandwidth, timed, not looked up.

Adapters report peak TFLOP/s and memory bandwidth from the architecture and clocks; this confirms them with
a timed matmul (fp32, and bf16 where the device has it) and a device-to-device copy. The host reference
device reports no peaks (its speed is the CPU's), so there the measurement is the only figure. Results are
cached per device for the life of the process: the first call takes about a second, later ones nothing.
"""
import threading
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Union

import torch

from torch_hal import _C
from torch_hal.timing import time_per_call

COPY_BYTES = 64 << 20  # twice that is resident while copying; larger than the L2 cache of current GPUs
MIN_MATMUL_SECONDS = 0.02  # matmuls shorter than this are dominated by launch, dispatch or scheduling
MAX_MATMUL_SIZE = 4096


@dataclass(frozen=True)
class Measurement:
    device: str
    fp32_tflops: float
    bf16_tflops: Optional[float]  # None where the device has no bf16, or its bf16 matmul failed
    copy_gbps: float  # device-to-device copy: bytes read plus bytes written, per second (as bandwidthTest)
    matmul_size: int  # n of the fastest n x n fp32 matmul timed
    copy_bytes: int
    bf16_error: str = ""  # why the bf16 matmul of a device that claims bf16 failed; empty when it ran


_cache: Dict[str, Measurement] = {}
_lock = threading.Lock()


def _resolve(device: Union[int, str, torch.device, None]) -> torch.device:
    if device is None:
        return torch.device("hal", _C.current_device())
    if isinstance(device, bool) or not isinstance(device, (int, str, torch.device)):
        raise TypeError(f"measure() takes a hal index, a string such as 'hal:0', 'cuda:0' or 'cpu', or a "
                        f"torch.device; got {device!r}")
    if isinstance(device, int):
        device = torch.device("hal", device)
    device = torch.device(device)
    if device.type == "hal":
        index = _C.current_device() if device.index is None else device.index
        if not 0 <= index < _C.device_count():
            raise IndexError(f"measure(): hal:{index} does not exist; hal devices are hal:0..hal:"
                             f"{_C.device_count() - 1}")
        return torch.device("hal", index)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"measure(): {device} was asked for, but torch.cuda is not available here")
        return torch.device("cuda", torch.cuda.current_device() if device.index is None else device.index)
    if device.type == "cpu":
        return device
    raise ValueError(f"measure() times hal, cuda and cpu devices; got '{device}'")


def _synchronizer(device: torch.device) -> Callable[[], None]:
    if device.type == "hal":
        return lambda: _C.synchronize(device.index)
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None


def _has_bf16(device: torch.device) -> bool:
    if device.type == "hal":
        return _C.get_device_properties(device.index)["supports_bf16"]
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return True


def _matmul_tflops(device: torch.device, dtype: torch.dtype, sync: Callable[[], None]):
    """The best TFLOP/s of n x n matmuls, n doubled from 256 until one matmul lasts long enough to be
    compute-bound (a fixed n would either starve a GPU or take seconds on a CPU). The best size wins, not
    the last: on a loaded CPU a small matmul can lose a whole scheduler slice to another process."""
    best, best_n, n = 0.0, 0, 256
    while True:
        a = torch.randn(n, n, device=device, dtype=dtype)
        b = torch.randn(n, n, device=device, dtype=dtype)
        seconds = time_per_call(lambda: torch.mm(a, b), sync, repeats=3, min_time=0.02)
        if 2 * n**3 / seconds / 1e12 > best:
            best, best_n = 2 * n**3 / seconds / 1e12, n
        if seconds >= MIN_MATMUL_SECONDS or n >= MAX_MATMUL_SIZE:
            return best, best_n
        n *= 2


def _copy_gbps(device: torch.device, sync: Callable[[], None]) -> float:
    src = torch.ones(COPY_BYTES // 4, device=device)
    dst = torch.empty_like(src)
    seconds = time_per_call(lambda: dst.copy_(src), sync, repeats=3, min_time=0.02)
    return 2 * COPY_BYTES / seconds / 1e9


def measure(device: Union[int, str, torch.device, None] = None, refresh: bool = False) -> Measurement:
    """Measured fp32 (and bf16) matmul TFLOP/s and copy GB/s of ``device`` (a hal index, 'hal:N', 'cuda:N'
    or 'cpu'; the current hal device by default). Cached per device; ``refresh=True`` measures again."""
    device = _resolve(device)
    key = str(device)
    with _lock:  # one measurement at a time: two at once would each see half the device
        if refresh or key not in _cache:
            sync = _synchronizer(device)
            fp32, n = _matmul_tflops(device, torch.float32, sync)
            bf16, bf16_error = None, ""
            if _has_bf16(device):
                # A device that claims bf16 and fails its matmul is a finding to report, not a reason to
                # lose the fp32 and copy figures: the error is kept with the measurement.
                try:
                    bf16 = _matmul_tflops(device, torch.bfloat16, sync)[0]
                except RuntimeError as error:
                    bf16_error = str(error).splitlines()[0].strip()
            _cache[key] = Measurement(key, fp32, bf16, _copy_gbps(device, sync), n, COPY_BYTES, bf16_error)
        return _cache[key]
