"""The aten ops a training step runs on a hal device, and the path each takes there.

A TorchDispatchMode sees each op as it reaches the backends (after composite ops decomposed, before the kernel
runs); the ops with a hal tensor among their inputs or outputs are counted, by name and dtype. Which path such a
call takes is the coverage map's answer for that op and dtype (torch_hal.op_coverage, the map ``python -m
torch_hal coverage`` prints): "native" where the adapter's own kernel runs it. The calls that really went through
the CPU fallback are counted by torch.hal.fallback_stats(), which the runner reads around the steps.
"""
import collections
from typing import Dict

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from torch_hal import op_coverage


def _hal_dtype(values):
    for value in tree_leaves(values):
        if isinstance(value, torch.Tensor) and value.device.type == "hal":
            return value.dtype
    return None


class OpCounter(TorchDispatchMode):
    """``with OpCounter(): step()`` counts the calls of each (op, dtype) on hal tensors."""

    def __init__(self):
        super().__init__()
        self.calls: Dict[tuple, int] = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        dtype = _hal_dtype((args, kwargs)) or _hal_dtype(out)
        if dtype is not None:
            self.calls[(func.name(), dtype)] += 1
        return out


class PathOfOps:
    """The coverage map of one hal device, asked per counted call."""

    def __init__(self, device: torch.device):
        self.ops = {op.name: op for op in op_coverage.coverage(device).ops}

    def path(self, name: str, dtype: torch.dtype) -> str:
        """A category of op_coverage.CATEGORIES for a call of `name` ("aten::add.Tensor") at `dtype`; "other" for
        ops outside aten (torchvision::, prims)."""
        op = self.ops.get(name[len("aten::"):]) if name.startswith("aten::") else None
        if op is None:
            return "other"
        if op.category == "native" and op_coverage._dtype_name(dtype) not in op.dtypes:
            return op.otherwise or "native"
        return op.category

    def summarize(self, counter: OpCounter) -> Dict[str, int]:
        """Calls per path, and "total"."""
        paths = collections.Counter()
        for (name, dtype), count in counter.calls.items():
            paths[self.path(name, dtype)] += count
            paths["total"] += count
        return dict(paths)
