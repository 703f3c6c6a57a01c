"""What the two sides of a comparison must do alike, in one place for every benchmark: autograd's threading and the
peak memory each side takes from its device.

Autograd threading. PyTorch runs an accelerator's backward on a worker thread per device while the calling thread
waits; `import torch_hal` turns that off (torch.autograd.set_multithreading_enabled(False)) unless the process sees
two or more hal devices that are not host-accessible (torch_hal/_backend.py). A reference process that never imports
torch_hal keeps PyTorch's default, so without care the two sides would differ by two thread handoffs per backward
(20-23% of a compiled small model's step on the H100). So every benchmark runs its reference with the hal side's
setting ("same threading": the fair comparison), and, as a second figure, with PyTorch's default (multithreading on,
which is what a user of torch.cuda gets unless they change it). CPU tensors' backward runs on the calling thread
under either setting (autograd gives the CPU no worker thread), so for a CPU reference the two figures coincide and
the second is not measured.

Peak memory. Both sides are measured the same way, by two methods, and the report names them:
  - "device": the device-wide used memory (total - free of torch.hal.mem_get_info / torch.cuda.mem_get_info) after
    the measured work, minus the same before it (taken after the side's context exists, before its model is built).
    It counts every byte the side took from the device: its caching allocator's segments at their peak (neither
    side empties its cache in between) and what libraries take outside the allocator (cuBLAS/cuDNN workspaces and
    handles, kernel modules loaded on first use). This is the honest figure. The device is shared with the other
    sides' processes, which wait idle on their pipes (their memory does not change) while one side is measured.
  - "reserved": the caching allocator's peak reserved bytes (torch.hal.max_memory_reserved vs
    torch.cuda.max_memory_reserved) over the work, and its peak allocated bytes, for reference: what each
    allocator counts, which misses memory taken outside it.
CPU tensors have neither: their figures are None ("n/a").

This module imports torch, never torch_hal: a reference process that must not register hal (lockstep.py) uses it.
"""
import gc
from typing import Optional

THREADING = ("calling", "worker", "keep")
THREADING_HELP = ("autograd's backward threading of this side: calling (torch.autograd.set_multithreading_enabled("
                  "False), what torch_hal sets), worker (PyTorch's default), keep (as the process has it)")


def set_autograd_threading(mode: str) -> str:
    """Sets this thread's autograd threading ("calling", "worker" or "keep") and returns what is now in force."""
    import torch
    if mode == "calling":
        torch.autograd.set_multithreading_enabled(False)
    elif mode == "worker":
        torch.autograd.set_multithreading_enabled(True)
    elif mode != "keep":
        raise ValueError(f"autograd threading {mode!r}: choose from {', '.join(THREADING)}")
    return autograd_threading()


def autograd_threading() -> str:
    """ "calling" where backward runs on the calling thread, "worker" where on PyTorch's per-device worker threads."""
    import torch
    return "worker" if torch.autograd.is_multithreading_enabled() else "calling"


def reference_threadings(hal_threading: str, reference_device: str) -> list:
    """The autograd threadings to run the reference with: the hal side's first (the fair comparison), then PyTorch's
    default ("worker") where that differs and the reference device has a worker thread (not CPU tensors)."""
    modes = [hal_threading]
    if hal_threading != "worker" and not reference_device.startswith("cpu"):
        modes.append("worker")
    return modes


def describe_threading(mode: str) -> str:
    return {"calling": "backward on the calling thread", "worker": "backward on autograd's device thread "
            "(PyTorch's default)"}.get(mode, mode)


def _device_module(device):
    import torch
    return {"hal": getattr(torch, "hal", None), "cuda": torch.cuda}.get(device.type)


class PeakMemory:
    """Peak memory of the work between ``start()`` and ``stop()`` on one device, by both methods (module docstring).
    Call ``start()`` before the model is built and ``stop()`` after its last measured step."""

    def __init__(self, device):
        self.device = device
        self.module = _device_module(device)
        self.before: Optional[int] = None

    def _sync(self):
        if self.module is not None:
            self.module.synchronize(self.device)

    def device_used(self) -> Optional[int]:
        if self.module is None:
            return None
        free, total = self.module.mem_get_info(self.device)
        return total - free

    def start(self):
        gc.collect()
        self._sync()
        if self.module is not None:
            self.module.empty_cache()  # what an earlier model of this process left cached is not this one's
            self.module.reset_peak_memory_stats(self.device)
        self.before = self.device_used()

    def stop(self) -> dict:
        self._sync()
        if self.module is None:
            return {"device_used_bytes": None, "peak_reserved_bytes": None, "peak_allocated_bytes": None}
        return {"device_used_bytes": self.device_used() - self.before,
                "peak_reserved_bytes": self.module.max_memory_reserved(self.device),
                "peak_allocated_bytes": self.module.max_memory_allocated(self.device)}


MEMORY_METHODS = ("device: device-wide used memory (total - free of mem_get_info) after the work minus before it, "
                  "the same on both sides, every byte taken from the device; reserved: the caching allocator's peak "
                  "reserved bytes (max_memory_reserved), which misses library workspaces outside the allocator")
