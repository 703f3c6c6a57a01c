"""Registers the hal device with PyTorch, once, in the order PyTorch needs: the name first, then the
native module (guard, hooks, allocator, kernels), then the Python device module and generated methods."""
import sys
import warnings
from pathlib import Path

import torch

_LIB_DIR = Path(__file__).resolve().parent / "lib"
_registered = False


def register():
    global _registered
    if _registered:
        return
    if torch._C._get_privateuse1_backend_name() != "hal":
        torch.utils.rename_privateuse1_backend("hal")

    try:
        from torch_hal import _C
    except ImportError as error:
        raise ImportError(
            f"torch_hal's native module is missing or was built for another Python or PyTorch ({error}). "
            f"Build it for this one (Python {sys.version_info.major}.{sys.version_info.minor}, torch "
            f"{torch.__version__}) with `pip install --no-build-isolation -e .` in the torch_hal checkout."
        ) from error

    # Read before anything is registered, so that a bad value fails the import as the core's settings do.
    verbose = _C.env_flag("TORCH_HAL_VERBOSE", False)
    _C._init(str(_LIB_DIR))

    from torch_hal import device_module

    torch._register_device_module("hal", device_module)
    torch.utils.generate_methods_for_privateuse1_backend(
        for_tensor=True, for_module=True, for_storage=True, for_packed_sequence=True
    )
    _registered = True
    _report_broken_adapters(_C.adapters(), verbose)
    devices = [_C.get_device_properties(i) for i in range(_C.device_count())]
    _run_backward_on_calling_thread(devices)
    from torch_hal import compile, distributed, dlpack, exit_safety, multiprocessing_reductions, pytorch_gaps

    compile.install()
    exit_safety.install()
    multiprocessing_reductions.install()
    dlpack.install()
    distributed.install()
    pytorch_gaps.install()


def _run_backward_on_calling_thread(devices):
    """Autograd runs the backward of accelerator tensors on a worker thread per device, and the calling thread
    waits for it. That thread pays off where one process drives several GPUs (it overlaps their launches);
    otherwise it only costs:
      - on host-accessible devices, whose kernels are CPU kernels, a second OpenMP pool that fights the
        caller's for the cores (training steps measured 2-3x slower on 2 cores);
      - on one GPU, two thread handoffs every backward, which a host-bound step shows: compiled small models'
        training steps took 20-23% less time on the calling thread on the H100.
    So where at most one hal device is not host-accessible, the importing thread runs backward itself, as it
    does for CPU tensors. torch.autograd.set_multithreading_enabled(True) restores PyTorch's default."""
    if devices and sum(not d["host_accessible"] for d in devices) <= 1:
        torch._C._set_multithreading_enabled(False)


def _report_broken_adapters(adapter_dicts, verbose):
    # Absent adapters are quiet; an adapter the user asked for that cannot load is worth a warning.
    for a in adapter_dicts:
        if a["state"] == "broken":
            warnings.warn(f"torch_hal: adapter {a['path']} could not be loaded: {a['reason']}", RuntimeWarning,
                          stacklevel=3)
    if verbose:  # TORCH_HAL_VERBOSE=1: every adapter and its state, loaded or not
        for a in adapter_dicts:
            print(f"torch_hal: adapter {a['name']}: {a['state']} {a['reason']}")
