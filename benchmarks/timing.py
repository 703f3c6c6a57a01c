"""The timing helpers live in torch_hal.timing, since torch_hal.measure() uses them too; the benchmark
scripts in this folder keep importing them as ``timing``. The file is loaded on its own, without the
torch_hal package, so that a worker process that must not register hal (one that trains on cuda or on CPU
tensors, lockstep.py says why) can time with the same code."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "_torch_hal_timing", Path(__file__).resolve().parent.parent / "torch_hal" / "timing.py")
_timing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_timing)

batch_size, timed_batch = _timing.batch_size, _timing.timed_batch
time_pair, time_per_call = _timing.time_pair, _timing.time_per_call
