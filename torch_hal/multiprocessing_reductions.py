"""hal tensors on ``torch.multiprocessing`` queues and pipes.

PyTorch pickles a tensor for another process by sharing its storage: CPU storages through shared memory,
CUDA storages through CUDA IPC handles. A hal storage has neither of PyTorch's own, and the pickling happens
in the queue's feeder thread, so without this module the failure ("_share_fd_: only available on CPU") was
printed there and the tensor silently dropped: the consumer waited forever.

Where the device's adapter can share memory (the adapter ABI's ipc functions: the host device through
memory files, NVIDIA and AMD GPUs through CUDA and HIP IPC), a hal tensor crosses as torch.cuda's does: the receiver maps
the sender's memory, so in-place changes made by one process are seen by the other. As with torch.cuda, the
sender must keep the tensor alive while receivers use it, and make its writes before sending (sending
synchronizes the device; later writes need the processes' own synchronization, a queue or an event).

Otherwise (an adapter without the ipc functions, such as Python backends and plugins that lack them, or
memory that cannot be shared) a hal tensor crosses by value: its bytes go to a CPU tensor that PyTorch
shares through shared memory, and the receiving process puts them on the same hal device index. Unlike a
CUDA tensor, the receiver then gets a copy, so in-place changes made by one process are not seen by the
other.
"""
import os
from multiprocessing.reduction import DupFd, ForkingPickler

import torch
import torch.multiprocessing.reductions as torch_reductions
from torch.multiprocessing.reductions import StorageWeakRef

# A receiving process rebuilds a tensor with a function of this module, which its unpickler imports by name:
# that imports the torch_hal package first, which registers hal, even in a spawned process that never imported it.
from torch_hal import _C

# The storages this process sent or received, weakly, by what names their memory: a storage that comes back
# (to its sender, or a second time to a receiver) is the same storage object, so tensors that shared a storage
# in the sender share one in the receiver, as torch.cuda's shared_cache arranges.
_storages: "dict[tuple, StorageWeakRef]" = {}


def _cached_storage(key):
    ref = _storages.get(key)
    return None if ref is None else torch.UntypedStorage._new_with_weak_ptr(ref.cdata)


def _cache_storage(key, storage) -> None:
    if len(_storages) > 1024:  # forget the dead ones from time to time
        for k in [k for k, ref in _storages.items() if ref.expired()]:
            del _storages[k]
    _storages[key] = StorageWeakRef(storage)


def _rebuild_shared_hal_tensor(key, fd, allocation_size, dtype, storage_offset, size, stride, requires_grad,
                               is_parameter):
    device, handle, offset, nbytes = key
    # Taken even when the storage is known: the sender's copy of the descriptor waits until it is collected.
    fd_number = fd.detach() if fd is not None else -1
    try:
        storage = _cached_storage(key)
        if storage is None:
            storage = _C.ipc_open(device, handle, fd_number, allocation_size, offset, nbytes).untyped_storage()
            _cache_storage(key, storage)
    finally:
        if fd_number >= 0:
            os.close(fd_number)  # the mapping holds the memory now
    tensor = torch.empty((0,), dtype=dtype, device=torch.device("hal", device)).set_(
        storage, storage_offset, size, stride)
    if is_parameter:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad)


def _share(tensor: torch.Tensor):
    """The reduction that shares `tensor`'s memory, or None where it cannot be shared."""
    storage = tensor.untyped_storage()
    if tensor.layout != torch.strided or storage.nbytes() == 0 or not _C.ipc_supported(tensor.device.index):
        return None
    try:
        exported = _C.ipc_export(tensor)
    except (NotImplementedError, ValueError):  # memory the adapter cannot name, or mapped from another process
        return None
    key = (exported["device"], exported["handle"], exported["offset"], exported["nbytes"])
    _cache_storage(key, storage)
    fd = DupFd(exported["fd"]) if exported["fd"] >= 0 else None
    return (_rebuild_shared_hal_tensor,
            (key, fd, exported["allocation_size"], tensor.dtype, tensor.storage_offset(), tuple(tensor.size()),
             tuple(tensor.stride()), tensor.requires_grad, isinstance(tensor, torch.nn.Parameter)))


def _rebuild_hal_tensor(cpu_copy: torch.Tensor, device_index: int, requires_grad: bool, is_parameter: bool):
    tensor = cpu_copy.to(torch.device("hal", device_index))
    if is_parameter:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad)


def _reduce_tensor(tensor: torch.Tensor):
    if tensor.device.type != "hal":
        return torch_reductions.reduce_tensor(tensor)
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not "
            "support crossing process boundaries.  If you just want to transfer the data, call detach() "
            "on the tensor before serializing (e.g., putting it on the queue).")
    shared = _share(tensor)
    if shared is not None:
        return shared
    cpu_copy = tensor.detach().cpu()
    return (_rebuild_hal_tensor,
            (cpu_copy, tensor.device.index, tensor.requires_grad, isinstance(tensor, torch.nn.Parameter)))


def install() -> None:
    # The same classes torch.multiprocessing registers its own reduction for; ours hands non-hal tensors back.
    for cls in (torch.Tensor, torch.nn.Parameter, *torch._tensor_classes):
        ForkingPickler.register(cls, _reduce_tensor)
