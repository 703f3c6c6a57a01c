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
from torch_hal.compile import triton_graph
from torch_hal.compile.device_op_overrides import HalDeviceOpOverrides
from torch_hal.compile.graph_devices import (HOST_PATH, graph_hal_indices, graph_path, path_for_device,
                                            record_device_indices)
from torch_hal.compile.host_graph import cpu_inputs_for_lowering, rewrite_for_host, source_digest
from torch_hal.compile.lazy_registration import after_import


class HalGraphPass(CustomGraphModulePass):
    """Inductor's device_custom_pass for hal: host graphs become CPU graphs over hal memory; graphs for the
    GPU adapters are left to Triton; for other devices it raises, naming aot_eager."""

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        indices = graph_hal_indices(gm)
        paths = {index: path_for_device(index) for index in indices}
        if len(set(paths.values())) > 1:
            raise RuntimeError(f"torch.compile: one graph uses hal devices of different kinds ({paths}); move its "
                               "tensors to one kind of device, or compile with backend=\"aot_eager\"")
        record_device_indices(gm, indices)
        if HOST_PATH in paths.values():
            rewrite_for_host(gm)

    def uuid(self):
        return source_digest()


class HalWrapperCodegen:
    """Inductor creates the wrapper of a graph through this: the host wrapper or Triton's, by the graph's path."""

    supports_caching = True

    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        from torch._inductor.codegen.wrapper import PythonWrapperCodegen

        if is_subgraph:  # written into its parent's module, whose header hal's wrapper wrote
            return PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures)
        # Imported when first used, as PythonWrapperCodegen: both wrappers import Inductor's wrapper module,
        # which is not loaded yet when this registers.
        if graph_path() == HOST_PATH:
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
        if any(triton_graph.triton_path_unavailable_reason(i) is None for i in range(_C.device_count())):
            triton_graph.install()
    register_backend_for_device("hal", hal_scheduling, HalWrapperCodegen, device_custom_pass=HalGraphPass())
    after_import("torch._inductor.graph", cpu_inputs_for_lowering)
