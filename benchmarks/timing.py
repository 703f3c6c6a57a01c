"""Timing helpers shared by the benchmarks: warm up, then the median of several timed repeats."""
import statistics
import time
from typing import Callable


def time_per_call(fn: Callable[[], object], sync: Callable[[], None], repeats: int = 7,
                  min_time: float = 0.05) -> float:
    """Seconds per call of ``fn``: calls are batched until a batch lasts ``min_time``, then the median
    of ``repeats`` batches is taken. ``sync`` waits for queued device work at the end of each batch."""
    fn()
    sync()
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        if time.perf_counter() - start >= min_time or n >= 1 << 20:
            break
        n *= 2
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        samples.append((time.perf_counter() - start) / n)
    return statistics.median(samples)
