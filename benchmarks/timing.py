"""The timing helpers live in torch_hal.timing, since torch_hal.measure() uses them too; the benchmark
scripts in this folder keep importing them as ``timing``."""
from torch_hal.timing import time_pair, time_per_call  # noqa: F401
