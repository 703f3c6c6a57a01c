"""The Python wrapper that Inductor generates for a host graph (host_graph.py): PythonWrapperCodegen, with

  - the graph's hal inputs taken as CPU views of their bytes in one call at the top (_C.compile_host_views),
    since Inductor lowered them as CPU tensors;
  - the CPU buffers of the compiled code allocated in the hal device's memory. Outputs are such buffers, so
    torch_hal::hal_view returns them as hal tensors without copying them, and the device's memory statistics
    count what the compiled code holds, as they count what eager code holds."""
from torch._inductor.codegen.wrapper import PythonWrapperCodegen

from torch_hal import _C
from torch_hal.compile.host_graph import host_input_names
from torch_hal.compile.inductor_backends import graph_device_indices


def _graph_device_index() -> int:
    indices = graph_device_indices()
    return indices[0] if indices else _C.current_device()


class HostWrapperCodegen(PythonWrapperCodegen):
    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        if is_subgraph:
            return PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures)
        return HostWrapperCodegen()

    def write_args(self, input_names):
        super().write_args(input_names)
        from torch._inductor.virtualized import V

        viewed = [name for name in host_input_names(V.graph.module) if name in input_names]
        if viewed:
            lhs = ", ".join(viewed) + ("," if len(viewed) == 1 else "")
            self.prefix.writeline(f"{lhs} = _hal_views({', '.join(viewed)})")

    def write_header(self) -> None:
        super().write_header()
        self.header.splice(
            f"""
                from torch_hal._C import compile_host_buffer as _hal_buffer, compile_host_views as _hal_views
                def empty_strided_cpu(size, stride, dtype):
                    return _hal_buffer(size, stride, dtype, {_graph_device_index()})
            """,
            strip=True,
        )
