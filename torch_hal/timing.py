"""Timing helpers shared by torch_hal.measure() and the benchmarks: warm up, batch calls until a batch is
long enough to time, then take the median of several timed batches. ``batch_size`` and ``timed_batch`` are
the two halves, for callers that time batches of their own (the cuda comparison's paired training
processes)."""
import statistics
import time
from typing import Callable, Tuple


def batch_size(fn: Callable[[], object], sync: Callable[[], None], min_time: float = 0.05) -> int:
    """Calls per timed batch: doubled until a batch takes ``min_time`` seconds (the doubling warms ``fn`` up)."""
    fn()
    sync()
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        if time.perf_counter() - start >= min_time or n >= 1 << 20:
            return n
        n *= 2


def timed_batch(fn: Callable[[], object], sync: Callable[[], None], n: int) -> float:
    """Seconds per call over ``n`` calls and the wait for the device work they queued."""
    start = time.perf_counter()
    for _ in range(n):
        fn()
    sync()
    return (time.perf_counter() - start) / n


def time_per_call(fn: Callable[[], object], sync: Callable[[], None], repeats: int = 7,
                  min_time: float = 0.05) -> float:
    """Seconds per call of ``fn`` (median of ``repeats`` batches); ``sync`` waits for queued device work."""
    n = batch_size(fn, sync, min_time)
    return statistics.median(timed_batch(fn, sync, n) for _ in range(repeats))


def time_pair(fn_a: Callable[[], object], sync_a: Callable[[], None], fn_b: Callable[[], object],
              sync_b: Callable[[], None], repeats: int = 9, min_time: float = 0.05) -> Tuple[float, float]:
    """Seconds per call of two functions timed in alternating batches, so that a busy moment of the machine
    lands on both rather than on one: the fair way to compare hal with CPU tensors on a shared machine."""
    n_a, n_b = batch_size(fn_a, sync_a, min_time), batch_size(fn_b, sync_b, min_time)
    a, b = [], []
    for _ in range(repeats):
        a.append(timed_batch(fn_a, sync_a, n_a))
        b.append(timed_batch(fn_b, sync_b, n_b))
    return statistics.median(a), statistics.median(b)
