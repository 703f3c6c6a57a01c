"""A clean interpreter exit after backward ran on PyTorch's autograd thread of a hal device.

Every ``backward()`` stashes a Python object (its ``contextvars`` context) in the graph task's thread-local
state. When the backward ran on the device's autograd worker thread, that worker may drop the last
reference to the graph task a moment after the caller's ``backward()`` returned, and the drop needs the
GIL. If the interpreter is finalizing by then, taking the GIL ends the worker thread by forced unwinding
through a destructor, and the process aborts with "terminate called without an active exception" (seen in
up to 45% of runs under CPU load).

So at exit, while the interpreter is still whole, one more backward runs through the same worker, straight
through the engine and without a stashed Python object: the worker handles tasks in order, so once it has
run ours it has finished the previous graph task, its GIL-taking release included, and the release of ours
needs no GIL.
"""
import atexit
import warnings

import torch

from torch_hal import _C


def _worker_may_have_run() -> bool:
    """Whether a backward may have gone through a device's autograd worker. The importing thread runs its own
    backward unless multithreading was turned back on (_backend.py), but any other thread's backward of a GPU
    tensor goes through the worker all the same; on host-only processes other threads' backward does too, as
    it did before the importing thread ran its own, and was never seen to abort the exit."""
    if torch.autograd.is_multithreading_enabled():
        return True
    return any(not _C.get_device_properties(i)["host_accessible"] for i in range(_C.device_count()))


def _drain_autograd_device_threads() -> None:
    if not _C.device_used() or _C.in_bad_fork() or not _worker_may_have_run():
        return
    try:
        # Where the ops below run through the CPU fallback (no host access), its once-per-op warning would
        # be the last thing a clean exit prints: nothing the user ran asked for it. Multithreading is on for
        # the drain so that it goes through the worker even where this thread runs its own backward.
        with torch.enable_grad(), torch.autograd.set_multithreading_enabled(True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaf = torch.zeros(1, device=torch.device("hal", _C.current_device()), requires_grad=True)
            root = leaf * 1
            # (tensors, grad_tensors, keep_graph, create_graph, inputs, allow_unreachable, accumulate_grad)
            torch.autograd.Variable._execution_engine.run_backward(
                (root,), (torch.ones_like(root),), False, False, (), True, True
            )
    except Exception:  # a device in a broken state: exiting matters more than draining
        pass


def install() -> None:
    atexit.register(_drain_autograd_device_threads)
