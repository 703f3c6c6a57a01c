"""Python backends for the custom-device tests (imported by the subprocesses those tests start)."""
import threading

import torch

from torch_hal import CustomDeviceBackend, HardwareVendor
from torch_hal.custom_device import DeviceProperties, aligned_buffer


class RecordingBackend(CustomDeviceBackend):
    """Keeps its buffers, records every call, and moves bytes itself (copy overrides), so that tests can
    see the tensors in the backend's own memory and every transfer pass through it."""

    def __init__(self, name="py_recording", device_count=2, memory="256M"):
        super().__init__(name, HardwareVendor.CUSTOM_ASIC, device_count=device_count, memory_per_device=memory)
        self.lock = threading.Lock()
        self.buffers = {}  # id(buffer) -> (device_id, buffer)
        self.calls = {"initialize_device": 0, "copy_to_device": 0, "copy_from_device": 0, "copy_on_device": 0,
                      "free_memory": 0, "synchronize": 0}

    def _count(self, what):
        with self.lock:
            self.calls[what] += 1

    def initialize_device(self, device_id):
        self._count("initialize_device")

    def get_device_properties(self, device_id):
        return {"name": f"Recording ASIC {device_id}", "total_memory": self.memory_per_device,
                "arch_name": "rec-1", "compute_units": 4}

    def allocate_memory(self, size, device_id):
        buffer = aligned_buffer(size)
        with self.lock:
            self.buffers[id(buffer)] = (device_id, buffer)
        return buffer

    def free_memory(self, buffer, device_id):
        with self.lock:
            del self.buffers[id(buffer)]
        self._count("free_memory")

    def copy_to_device(self, copy, device_id):
        assert copy.dst_buffer is not None and copy.src_buffer is None
        copy.dst_buffer[copy.dst_offset:copy.dst_offset + copy.nbytes] = copy.src
        self._count("copy_to_device")

    def copy_from_device(self, copy, device_id):
        assert copy.src_buffer is not None and copy.dst_buffer is None
        copy.dst[:] = copy.src_buffer[copy.src_offset:copy.src_offset + copy.nbytes]
        self._count("copy_from_device")

    def copy_on_device(self, copy, device_id):
        super().copy_on_device(copy, device_id)
        self._count("copy_on_device")

    def get_memory_info(self, device_id):
        with self.lock:
            used = sum(len(b) for d, b in self.buffers.values() if d == device_id)
        return self.memory_per_device - used, self.memory_per_device

    def synchronize(self, device_id):
        self._count("synchronize")

    def holds(self, tensor: torch.Tensor) -> bool:
        """Whether the bytes of the CPU tensor `tensor` are in one of this backend's buffers."""
        data = tensor.contiguous().view(torch.uint8).numpy().tobytes()
        with self.lock:
            return any(data in bytes(b) for _, b in self.buffers.values())


class FailingBackend(CustomDeviceBackend):
    """Raises from the method named `fail_in` (a ValueError, or the exception given)."""

    def __init__(self, name, fail_in, error=None):
        super().__init__(name, memory_per_device="64M")
        self.fail_in, self.error = fail_in, error or ValueError(f"{fail_in} is broken on purpose")

    def _maybe_fail(self, method):
        if method == self.fail_in:
            raise self.error

    def get_device_count(self):
        self._maybe_fail("get_device_count")
        return 1

    def get_device_properties(self, device_id):
        self._maybe_fail("get_device_properties")
        return DeviceProperties(name="failing", total_memory=self.memory_per_device)

    def allocate_memory(self, size, device_id):
        self._maybe_fail("allocate_memory")
        return super().allocate_memory(size, device_id)

    def copy_to_device(self, copy, device_id):
        self._maybe_fail("copy_to_device")
        super().copy_to_device(copy, device_id)
