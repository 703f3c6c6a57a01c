"""The Python wrapper Inductor generates for a Triton graph on a hal GPU (triton_graph.py): PythonWrapperCodegen,
with each buffer allocated by _C.empty_strided_hal, one C call on the current device as torch.cuda's graphs
have empty_strided_cuda, rather than Inductor's line for other devices, torch.empty_strided(..., device="hal"),
which goes through Python's argument parser and the dispatcher: about 2 µs more a buffer, where a small model's
compiled step allocates dozens and is bound by its host time."""
from torch._inductor.codegen.wrapper import PythonWrapperCodegen

_DEVICE_ARGUMENT = ", device='hal', dtype="


class TritonWrapperCodegen(PythonWrapperCodegen):
    def make_allocation(self, name, device, *args, **kwargs):
        line = super().make_allocation(name, device, *args, **kwargs)
        generic = f"{name} = empty_strided("
        # Only the line written for devices without a fast path; any other form (tracked allocations in
        # Inductor's tests) stays as Inductor wrote it.
        if device.type == "hal" and line.startswith(generic) and _DEVICE_ARGUMENT in line:
            line = f"{name} = empty_strided_hal(" + line[len(generic):].replace(_DEVICE_ARGUMENT, ", ", 1)
        return line

    def write_header(self) -> None:
        super().write_header()
        self.header.splice("from torch_hal._C import empty_strided_hal")
