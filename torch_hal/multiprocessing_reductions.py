"""hal tensors on ``torch.multiprocessing`` queues and pipes.

PyTorch pickles a tensor for another process by sharing its storage: CPU storages through shared memory,
CUDA storages through CUDA IPC handles. A hal storage has neither, and the pickling happens in the queue's
feeder thread, so the failure ("_share_fd_: only available on CPU") was printed there and the tensor
silently dropped: the consumer waited forever.

Here a hal tensor crosses by value: its bytes go to a CPU tensor that PyTorch shares through shared
memory, and the receiving process puts them on the same hal device index. Unlike a CUDA tensor, the
receiver gets a copy, so in-place changes made by one process are not seen by the other.
"""
from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing.reductions as torch_reductions


def _rebuild_hal_tensor(host: torch.Tensor, device_index: int, requires_grad: bool, is_parameter: bool):
    import torch_hal  # noqa: F401  (a spawned receiver registers hal before it rebuilds)

    tensor = host.to(torch.device("hal", device_index))
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
    host = tensor.detach().cpu()
    return (_rebuild_hal_tensor,
            (host, tensor.device.index, tensor.requires_grad, isinstance(tensor, torch.nn.Parameter)))


def install() -> None:
    # The same classes torch.multiprocessing registers its own reduction for; ours hands non-hal tensors back.
    for cls in (torch.Tensor, torch.nn.Parameter, *torch._tensor_classes):
        ForkingPickler.register(cls, _reduce_tensor)
