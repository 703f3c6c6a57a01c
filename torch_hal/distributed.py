"""torch.distributed on hal devices: the ``"hal"`` c10d backend.

``import torch_hal`` registers it with ``torch.distributed.Backend.register_backend`` for the ``hal`` device,
so ``init_process_group()`` with no backend (hal is then PyTorch's accelerator), ``backend="hal"`` or
``backend="cpu:gloo,hal:hal"`` give hal tensors to it, and DDP, FSDP2 (``fully_shard``) and DTensor reach it
through PyTorch's own collectives. ``backend="hal"`` serves the group's CPU tensors too (through gloo).

Each hal device's collectives run on one engine, said once at ``init_process_group`` on rank 0 (and by
:func:`engine_of`): gloo on the device memory itself where the CPU can address it (the host reference
device: zero-copy), gloo on staged CPU copies for devices without collectives of their own.
"""
import sys
import warnings

import torch

from torch_hal import _C
from torch_hal.device_index import device_index

BACKEND_NAME = "hal"
_installed = False


def is_available() -> bool:
    """True when this PyTorch has torch.distributed with gloo, which the backend builds on."""
    return torch.distributed.is_available() and torch.distributed.is_gloo_available()


def engine_of(device) -> str:
    """The engine that runs the collectives of hal tensors on ``device`` (``"hal:0"``, 0, a torch.device)."""
    return _C.DistributedBackend.engine_of(device_index(device))


def _create_backend(dist_options, backend_options):
    """Backend.register_backend's creator (extended API): a hal backend over the group's ranks, with its own
    gloo backend (its own store prefix) for the host path."""
    import torch.distributed as dist

    store = dist_options.store
    rank, size = dist_options.group_rank, dist_options.group_size
    gloo = dist.ProcessGroupGloo(dist.PrefixStore("torch_hal/gloo/", store), rank, size, dist_options.timeout)
    backend = _C.DistributedBackend(store, rank, size, gloo, dist_options.timeout.total_seconds())
    if rank == 0 and not _announced_groups:
        _announce(size)
    _announced_groups.add(dist_options.group_id)
    return backend


_announced_groups = set()


def _announce(world_size: int) -> None:
    """Says which engine each hal device of this process uses (rank 0, first group only), as NCCL's
    NCCL_DEBUG=INFO line says which transport it picked."""
    engines = ", ".join(f"hal:{i} {engine_of(i)}" for i in range(torch.hal.device_count()))
    print(f"torch_hal.distributed: world size {world_size}; collectives of hal tensors: {engines}",
          file=sys.stderr, flush=True)


def _complete_group(pg) -> None:
    """A group whose hal tensors go to this backend but that has no CPU backend (init_process_group() with no
    backend makes only the accelerator's in PyTorch 2.13) gets the backend's own gloo for its CPU tensors, and
    "hal" as its default backend: PyTorch sets GLOO as the default of such a group without creating one, and
    DDP's construction then fails on the missing backend."""
    from torch.distributed import ProcessGroup

    try:
        ours = pg._get_backend(torch.device("hal"))
    except Exception:  # noqa: BLE001  (no hal backend in this group: nothing to complete)
        return
    if not isinstance(ours, _C.DistributedBackend):
        return
    try:
        pg._get_backend(torch.device("cpu"))
    except RuntimeError:
        name, desc = pg.group_name, pg.group_desc
        pg._register_backend(torch.device("cpu"), ProcessGroup.BackendType.GLOO, ours.host_backend)
        # The group's name lives in its backends: the one added must carry it too (DeviceMesh resolves it).
        pg._set_group_name(name)
        pg._set_group_desc(desc)
    pg._set_default_backend(ProcessGroup.BackendType.CUSTOM)


def _wrap_group_creation() -> None:
    """Runs _complete_group on every group torch.distributed creates (its one creation function)."""
    from torch.distributed import distributed_c10d

    create = getattr(distributed_c10d, "_new_process_group_helper", None)
    if create is None or getattr(create, "_torch_hal_wrapped", False):
        return

    def create_and_complete(*args, **kwargs):
        result = create(*args, **kwargs)
        pg = result[0] if isinstance(result, tuple) else result
        if pg is not None and not isinstance(pg, str):
            try:
                _complete_group(pg)
            except Exception as error:  # noqa: BLE001  (the group works for hal tensors without it)
                warnings.warn(f"torch_hal.distributed: could not give the new process group a CPU backend "
                              f"({type(error).__name__}: {error}); pass backend=\"cpu:gloo,hal:hal\" to "
                              f"init_process_group for CPU tensors", stacklevel=2)
        return result

    create_and_complete._torch_hal_wrapped = True
    distributed_c10d._new_process_group_helper = create_and_complete


def install() -> None:
    """Registers the backend (once); a PyTorch without torch.distributed or gloo leaves it out quietly."""
    global _installed
    if _installed or not is_available():
        return
    import torch.distributed as dist

    _C._init_distributed()
    if BACKEND_NAME.upper() not in dist.Backend._plugins:
        # "cpu" as well: backend="hal" then serves CPU tensors too (through gloo), as one backend for a
        # group that holds both, while init_process_group() with no backend keeps gloo for CPU tensors.
        dist.Backend.register_backend(BACKEND_NAME, _create_backend, extended_api=True, devices=["hal", "cpu"])
    _wrap_group_creation()
    _installed = True
