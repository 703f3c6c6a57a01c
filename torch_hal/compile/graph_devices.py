"""The hal devices of a graph torch.compile is compiling, and the code generation (path) each one takes:

  - HOST_PATH: host-accessible memory (the host reference device, or any device whose memory the CPU can
    address): Inductor's C++/OpenMP CPU code over the hal memory (host_graph.py, host_wrapper.py);
  - TRITON_PATH: NVIDIA and AMD GPUs where triton is installed (triton_graph.py, triton_wrapper.py);
  - any other device: an error that names backend="aot_eager".

The pieces of Inductor's code generation for hal (inductor_backends.py, scheduling.py, host_graph.py,
host_wrapper.py) all ask this module, which imports none of them.
"""
import torch

from torch_hal import _C
from torch_hal.compile.triton_graph import triton_path_unavailable_reason

HOST_PATH, TRITON_PATH = "host", "triton"  # the values name the paths in messages
_INDICES_KEY = "torch_hal_device_indices"  # what HalGraphPass records in the graph module's meta


def path_for_device(index: int) -> str:
    """Which code generation torch.compile uses for hal:index; raises where there is none."""
    props = _C.get_device_properties(index)
    if props["host_accessible"]:
        return HOST_PATH
    if props["vendor"] in ("nvidia", "amd"):
        reason = triton_path_unavailable_reason(index)
        if reason is None:
            return TRITON_PATH
    else:
        reason = (f"Inductor has no code generation for its adapter ({props['adapter']}, vendor {props['vendor']}): "
                  "it compiles for host-accessible devices (C++) and NVIDIA/AMD GPUs (Triton)")
    raise RuntimeError(f"torch.compile with Inductor cannot compile for hal:{index} ({props['name']}): {reason}. "
                       f"Compile with backend=\"aot_eager\" (torch.compile(model, backend=\"aot_eager\")), which runs "
                       "the same captured graphs on every hal device.")


def graph_hal_indices(gm: torch.fx.GraphModule):
    indices = set()
    for node in gm.graph.nodes:
        value = node.meta.get("val")
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, torch.Tensor) and v.device.type == "hal":
                indices.add(v.device.index if v.device.index is not None else _C.current_device())
    return indices


def record_device_indices(graph_module, indices) -> None:
    """Records a graph module's hal indices in its meta (HalGraphPass, for recorded_device_indices)."""
    graph_module.meta[_INDICES_KEY] = sorted(indices)


def recorded_device_indices(graph_module):
    """The hal indices HalGraphPass recorded for a graph module; None where it did not see it."""
    return getattr(graph_module, "meta", {}).get(_INDICES_KEY)


def graph_device_indices():
    """The hal indices of the graph Inductor is lowering, as HalGraphPass recorded them; None outside a graph."""
    from torch._inductor.virtualized import V

    try:
        module = V.graph.module
    except AttributeError:  # no graph being lowered: Inductor asking about the device type in general
        return None
    recorded = recorded_device_indices(module)
    if recorded is not None:
        return recorded
    inputs = getattr(V.graph, "graph_inputs", {}).values()  # a subgraph: its own inputs
    devices = [v.get_device() for v in inputs if hasattr(v, "get_device")]
    return sorted({d.index if d.index is not None else _C.current_device() for d in devices
                   if d is not None and d.type == "hal"})


def graph_path() -> str:
    """The path of the graph Inductor is generating code for (the host path outside any graph)."""
    indices = graph_device_indices()
    return path_for_device(indices[0]) if indices else HOST_PATH
