"""The Python that Inductor writes into generated code for hal device operations (its DeviceOpOverrides):
device guards, set_device, synchronize and the raw stream Triton launches on."""
from textwrap import dedent

from torch._inductor.codegen.common import DeviceOpOverrides


class HalDeviceOpOverrides(DeviceOpOverrides):
    def import_get_raw_stream_as(self, name: str) -> str:
        return dedent(f"""
            from torch_hal.compile.device_interface import HalInterface as _HalInterface
            {name} = _HalInterface.get_raw_stream
            """)

    def set_device(self, device_idx: int) -> str:
        return f"torch.hal.set_device({device_idx})"

    def synchronize(self) -> str:
        return "torch.hal.synchronize()"

    def device_guard(self, device_idx: int) -> str:
        return f"torch.hal.device({device_idx})"
