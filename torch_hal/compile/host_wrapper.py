"""The Python wrapper that Inductor generates for a host graph (host_graph.py): PythonWrapperCodegen, with

  - the graph's hal inputs taken as CPU views of their bytes in one call at the top (_C.compile_host_views),
    since Inductor lowered them as CPU tensors;
  - the graph's outputs that were hal tensors handed back as hal tensors in one call at its return
    (_C.compile_host_outputs), except the activations a training forward saves for its backward, which stay
    CPU tensors over the same memory;
  - the CPU buffers that become those outputs, saved activations included (and the buffers whose memory
    Inductor reuses for them), allocated in the hal device's memory, so they leave without being copied and
    the device's memory statistics count what the compiled code hands back, as they count what eager code
    holds. Temporaries, which live within one call, come from the CPU allocator: hal's caching allocator costs
    about a microsecond more per buffer, and a call makes one per intermediate."""
from torch._inductor import ir
from torch._inductor.codegen.wrapper import PythonWrapperCodegen, ReuseLine
from torch._inductor.virtualized import V

from torch_hal import _C
from torch_hal.compile.host_graph import host_input_names, host_output_devices, host_returned_devices
from torch_hal.compile.inductor_backends import graph_device_indices


def _graph_device_index() -> int:
    indices = graph_device_indices()
    return indices[0] if indices else _C.current_device()


class HostWrapperCodegen(PythonWrapperCodegen):
    def write_args(self, input_names):
        super().write_args(input_names)
        viewed = [name for name in host_input_names(V.graph.module) if name in input_names]
        if viewed:
            lhs = ", ".join(viewed) + ("," if len(viewed) == 1 else "")
            self.prefix.writeline(f"{lhs} = _hal_views({', '.join(viewed)})")

    def make_allocation(self, name, device, *args, **kwargs):
        line = super().make_allocation(name, device, *args, **kwargs)
        if device.type == "cpu" and name not in self._buffers_in_hal_memory():
            line = line.replace(" = empty_strided_cpu(", " = empty_strided_cpu_temporary(", 1)
        return line

    def generate_return(self, output_refs):
        devices = host_returned_devices(V.graph.module)
        if not any(device >= 0 for device in devices):
            return super().generate_return(output_refs)
        self.wrapper_call.writeline(f"return _hal_outputs(({', '.join(output_refs)}, ), {tuple(devices)!r})")

    def _buffers_in_hal_memory(self) -> set:
        """The buffers of the graph's outputs that leave as hal tensors, and every buffer whose memory planning
        hands its memory on to one of them (ReuseLine: the old buffer's allocation becomes the new one's). Asked
        while the planned lines are written, so the reuses are final; computed once per graph."""
        if getattr(self, "_hal_memory", None) is None:
            hal = set()
            for node, device in zip(V.graph.graph_outputs, host_output_devices(V.graph.module)):
                if device >= 0 and isinstance(node, ir.IRNode):
                    try:
                        hal.add(node.get_name())  # a view's is its base buffer's
                    except (AttributeError, NotImplementedError):  # no buffer: a constant, a size
                        pass
            reuses = [(line.reused_as.get_name(), line.node.get_name()) for line in self.lines
                      if isinstance(line, ReuseLine)]
            grew = True
            while grew:
                grew = False
                for new, old in reuses:
                    if new in hal and old not in hal:
                        hal.add(old)
                        grew = True
            self._hal_memory = hal
        return self._hal_memory

    def write_header(self) -> None:
        super().write_header()
        self.header.splice(
            f"""
                from torch_hal._C import compile_host_outputs as _hal_outputs, compile_host_views as _hal_views
                from torch_hal._C import host_buffer_allocator as _hal_buffer_allocator
                empty_strided_cpu_temporary = empty_strided_cpu
                empty_strided_cpu = _hal_buffer_allocator({_graph_device_index()})
            """,
            strip=True,
        )
