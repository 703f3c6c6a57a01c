"""The memory format of a hal convolution's output, as compiled graphs predict it.

PyTorch's fake convolution (torch/_subclasses/fake_impls.py) asks torch._C._conv_determine_backend_memory_format
which layout a device's convolution returns; every PrivateUse1 device gets the "Overrideable" backend, for which
PyTorch 2.11 answers contiguous (channels-last is reserved to XPU there; 2.13 answers as hal does). hal's convolutions return what torch.cuda's
cuDNN path returns, channels-last when the input or the weight is (csrc/torch/ops/convolution_ops.cpp,
cudnn_conv_suggest_memory_format's rule), so a compiled graph whose convolutions see channels-last tensors (as
Inductor's layout optimization makes them) would check the real output against the wrong strides. This gives
the fake convolution hal's answer for hal tensors, and PyTorch's own for everything else.
"""
import torch
from torch._prims_common import suggest_memory_format

_CHANNELS_LAST = {4: torch.channels_last, 5: torch.channels_last_3d}


def hal_conv_memory_format(input: torch.Tensor, weight: torch.Tensor) -> torch.memory_format:
    """The format of hal's convolution output for these operands (the rule of convolution_ops.cpp)."""
    channels_last = _CHANNELS_LAST.get(input.dim())
    if channels_last is not None and weight.dim() == input.dim() and (
            suggest_memory_format(input) == channels_last or suggest_memory_format(weight) == channels_last):
        return channels_last
    return torch.contiguous_format


def install(_module=None) -> None:
    original = torch._C._conv_determine_backend_memory_format
    if getattr(original, "_torch_hal", False):
        return

    def determine_backend_memory_format(input, weight, backend):
        if input.device.type == "hal":
            return hal_conv_memory_format(input, weight)
        return original(input, weight, backend)

    determine_backend_memory_format._torch_hal = True
    torch._C._conv_determine_backend_memory_format = determine_backend_memory_format
