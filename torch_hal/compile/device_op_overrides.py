"""The Python that Inductor writes into generated code for hal device operations (its DeviceOpOverrides):
device guards, set_device, synchronize and the raw stream Triton launches on. The ones a compiled graph runs on
every call are C calls (_C.current_raw_stream, torch.hal._DeviceGuard), as torch.cuda's are."""
from textwrap import dedent

from torch._inductor.codegen.common import DeviceOpOverrides


class HalDeviceOpOverrides(DeviceOpOverrides):
    def import_get_raw_stream_as(self, name: str) -> str:
        return dedent(f"""
            from torch_hal._C import current_raw_stream as {name}
            """)

    def set_device(self, device_idx: int) -> str:
        return f"torch.hal.set_device({device_idx})"

    def synchronize(self) -> str:
        return "torch.hal.synchronize()"

    def device_guard(self, device_idx: int) -> str:
        return f"torch.hal._DeviceGuard({device_idx})"
