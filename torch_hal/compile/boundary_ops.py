"""Fake (shape-only) kernels of the operators at the boundary of a compiled host graph (host_graph.py); their
real kernels are the glue's (csrc/torch/compile/host_graph_ops.cpp).

cpu_view is a view across devices: its fake result shares its argument's fake storage, so that PyTorch's alias
analysis (Inductor's buffer reuse and reinplacing among others) knows it aliases it.
"""
import torch

import torch_hal  # noqa: F401  (the library torch_hal is defined by the native module)

_CPU = torch.device("cpu")


def _alias_on(value: torch.Tensor, device: torch.device) -> torch.Tensor:
    out = torch.ops.aten.alias.default(value)
    out.fake_device = device
    return out


@torch.library.register_fake("torch_hal::cpu_view")
def _cpu_view(self):
    return _alias_on(self, _CPU)

