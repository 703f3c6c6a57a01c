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

import torch

from torch_hal import _C

BACKEND_NAME = "hal"
_installed = False


def is_available() -> bool:
    """True when this PyTorch has torch.distributed with gloo, which the backend builds on."""
    return torch.distributed.is_available() and torch.distributed.is_gloo_available()


def engine_of(device) -> str:
    """The engine that runs the collectives of hal tensors on ``device`` (``"hal:0"``, 0, a torch.device)."""
    from torch_hal.device_index import device_index

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
    _installed = True
