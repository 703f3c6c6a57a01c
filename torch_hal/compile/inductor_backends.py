"""Inductor's code generation for hal, chosen by the adapter of the device a graph runs on.

  - host-accessible memory (the host reference device): Inductor's C++/OpenMP CPU code, run in place on the
    hal memory (host_graph.py rewrites the graph, host_wrapper.py allocates its buffers in hal memory);
  - NVIDIA and AMD GPUs where triton is installed: Triton kernels on the device's memory and current stream
    (triton_graph.py);
  - any other device: an error that says so and names backend="aot_eager", which runs every hal device.

Inductor registers code generation per device type, and every hal device is of type "hal", so each of the
registered pieces looks at the hal device index of the graph it is asked about.
"""
import torch
from torch._inductor.codegen.common import register_backend_for_device, register_device_op_overrides
from torch._inductor.custom_graph_pass import CustomGraphModulePass

from torch_hal import _C
from torch_hal.compile.device_op_overrides import HalDeviceOpOverrides

HOST, TRITON = "host", "triton"
_INDICES_KEY = "torch_hal_device_indices"  # what HalGraphPass records in the graph module's meta


def path_for_device(index: int) -> str:
    """Which code generation torch.compile uses for hal:index; raises where there is none."""
    props = _C.get_device_properties(index)
    if props["host_accessible"]:
        return HOST
    if props["vendor"] in ("nvidia", "amd"):
        from torch_hal.compile.triton_graph import triton_path_unavailable_reason

        reason = triton_path_unavailable_reason(index)
        if reason is None:
            return TRITON
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


class HalGraphPass(CustomGraphModulePass):
    """Inductor's device_custom_pass for hal: host graphs become CPU graphs over hal memory; graphs for the
    GPU adapters are left to Triton; for other devices it raises, naming aot_eager."""

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        indices = graph_hal_indices(gm)
        paths = {index: path_for_device(index) for index in indices}
        if len(set(paths.values())) > 1:
            raise RuntimeError(f"torch.compile: one graph uses hal devices of different kinds ({paths}); move its "
                               "tensors to one kind of device, or compile with backend=\"aot_eager\"")
        gm.meta[_INDICES_KEY] = sorted(indices)
        if HOST in paths.values():
            from torch_hal.compile.host_graph import rewrite_for_host

            rewrite_for_host(gm)

    def uuid(self):
        from torch_hal.compile.host_graph import source_digest

        return source_digest()


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
    return path_for_device(indices[0]) if indices else HOST


class HalWrapperCodegen:
    """Inductor creates the wrapper of a graph through this: the host wrapper or Triton's, by the graph's path."""

    supports_caching = True

    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        from torch._inductor.codegen.wrapper import PythonWrapperCodegen

        if is_subgraph:  # written into its parent's module, whose header hal's wrapper wrote
            return PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures)
        if graph_path() == HOST:
            from torch_hal.compile.host_wrapper import HostWrapperCodegen as cls
        else:
            from torch_hal.compile.triton_wrapper import TritonWrapperCodegen as cls
        return cls()


def hal_scheduling(scheduler):
    """Inductor's constructor of kernel scheduling for hal (imported when first used: the scheduler module is
    not loaded yet when this registers)."""
    from torch_hal.compile.scheduling import HalScheduling

    return HalScheduling(scheduler)


_registered = False


def register() -> None:
    global _registered
    if _registered:
        return
    _registered = True
    register_device_op_overrides("hal", HalDeviceOpOverrides())
    # Inductor takes GPU decisions for hal from the start of a compilation where hal is a Triton GPU.
    if any(_C.get_device_properties(i)["vendor"] in ("nvidia", "amd") for i in range(_C.device_count())):
        from torch_hal.compile import triton_graph

        if any(triton_graph.triton_path_unavailable_reason(i) is None for i in range(_C.device_count())):
            triton_graph.install()
    register_backend_for_device("hal", hal_scheduling, HalWrapperCodegen, device_custom_pass=HalGraphPass())
    from torch_hal.compile.host_graph import cpu_inputs_for_lowering
    from torch_hal.compile.lazy_registration import after_import

    after_import("torch._inductor.graph", cpu_inputs_for_lowering)
