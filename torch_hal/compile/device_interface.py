"""The hal device as torch._dynamo sees it (torch._dynamo.device_interface.DeviceInterface).

Dynamo and Inductor ask a device's interface for the device count, the current device and stream, events,
synchronization and properties: to guard on devices, to place device guards and stream switches in compiled
code, and to pick Inductor's code generation. Every answer is torch.hal's own.
"""
import torch
from torch._dynamo.device_interface import DeviceInterface, caching_worker_current_devices, \
    caching_worker_device_properties

from torch_hal import _C
from torch_hal import device_module as hal
from torch_hal.device_index import device_index


def _is_gpu(index: int) -> bool:
    return _C.get_device_properties(index)["vendor"] in ("nvidia", "amd")


class HalInterface(DeviceInterface):
    device = hal.device
    Event = torch.Event  # Dynamo captures only torch.Event / torch.Stream (sub)classes
    Stream = hal.Stream

    class Worker:
        """What compile workers (subprocesses that must not touch the device) ask: answers recorded in the
        parent before they fork."""

        @staticmethod
        def set_device(device: int) -> None:
            caching_worker_current_devices["hal"] = device

        @staticmethod
        def current_device() -> int:
            if "hal" in caching_worker_current_devices:
                return caching_worker_current_devices["hal"]
            return hal.current_device()

        @staticmethod
        def get_device_properties(device=None):
            if "hal" not in caching_worker_device_properties:
                caching_worker_device_properties["hal"] = [
                    hal.get_device_properties(i) for i in range(hal.device_count())]
            index = HalInterface.Worker.current_device() if device is None else device_index(device)
            return caching_worker_device_properties["hal"][index]

    current_device = staticmethod(hal.current_device)
    set_device = staticmethod(hal.set_device)
    device_count = staticmethod(hal.device_count)
    is_available = staticmethod(hal.is_available)
    stream = staticmethod(hal.stream)
    current_stream = staticmethod(hal.current_stream)
    set_stream = staticmethod(hal.set_stream)
    synchronize = staticmethod(hal.synchronize)
    get_device_properties = staticmethod(hal.get_device_properties)
    memory_allocated = staticmethod(hal.memory_allocated)
    is_bf16_supported = staticmethod(hal.is_bf16_supported)

    @staticmethod
    def _set_stream_by_id(stream_id: int, device_index: int, device_type: int) -> None:
        _C.set_current_stream(device_index, stream_id)

    # Makes hal:device current (a negative index changes nothing) and returns the device that was: the same C
    # call as the device guards of generated code (torch.hal._DeviceGuard).
    exchange_device = staticmethod(_C.exchange_device)
    maybe_exchange_device = staticmethod(_C.exchange_device)

    @staticmethod
    def get_raw_stream(device_idx: int) -> int:
        """The vendor runtime's handle of the current stream (a CUstream / hipStream_t), what Triton launches
        on; 0 for devices without one (the host device)."""
        return _C.current_raw_stream(device_idx)

    @staticmethod
    def get_compute_capability(device=None):
        props = hal.get_device_properties(device)
        if props.vendor == "nvidia":
            return props.major * 10 + props.minor
        return props.arch_name  # gfx90a for AMD (what Triton's HIP backend takes), x86_64 for the host

    @staticmethod
    def is_triton_capable(device=None) -> bool:
        index = device_index(device)
        props = _C.get_device_properties(index)
        return props["vendor"] == "amd" or (props["vendor"] == "nvidia" and props["major"] >= 7)

    @staticmethod
    def raise_if_triton_unavailable(device=None) -> None:
        if not HalInterface.is_triton_capable(device):
            props = hal.get_device_properties(device)
            raise RuntimeError(f"{props.name} ({props.vendor}, adapter {props.adapter}) cannot run Triton "
                               "kernels; torch.compile compiles for it only where its memory is host-accessible")
