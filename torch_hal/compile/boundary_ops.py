"""Fake (shape-only) kernels of the operators at the boundary of a compiled host graph (host_graph.py); their
real kernels are the glue's (csrc/torch/compile/host_graph_ops.cpp).

cpu_view is a view across devices: its fake result shares its argument's fake storage, so that PyTorch's alias
analysis (Inductor's buffer reuse and reinplacing among others) knows it aliases it.
"""
import torch

from torch_hal import _C  # noqa: F401  (the native module defines the operator library torch_hal)

_CPU = torch.device("cpu")


@torch.library.register_fake("torch_hal::cpu_view")
def _cpu_view(self):
    out = torch.ops.aten.alias.default(self)
    out.fake_device = _CPU
    return out
