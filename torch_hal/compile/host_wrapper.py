"""The Python wrapper that Inductor generates for a host graph (host_graph.py): PythonWrapperCodegen, with the
CPU buffers of the compiled code allocated in the hal device's memory. Outputs are such buffers, so
torch_hal::hal_view returns them as hal tensors without copying them, and the device's memory statistics
count what the compiled code holds, as they count what eager code holds."""
from torch._inductor.codegen.wrapper import PythonWrapperCodegen

from torch_hal import _C
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

    def write_header(self) -> None:
        super().write_header()
        self.header.splice(
            f"""
                from torch_hal._C import compile_host_buffer as _hal_buffer
                def empty_strided_cpu(size, stride, dtype):
                    return _hal_buffer(size, stride, dtype, {_graph_device_index()})
            """,
            strip=True,
        )
