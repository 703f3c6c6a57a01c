"""transformers' Trainer on hal: it runs on accelerate (torch_hal.integrations.accelerate gives it the hal device,
autocast("hal") and GradScaler("hal")); only its bf16 check needs more.

``TrainingArguments(bf16=True)`` raises "Your setup doesn't support bf16/gpu" unless
``is_torch_bf16_gpu_available()`` is true, and that function knows only CUDA, XPU, HPU, NPU, MPS, MUSA, MLU,
Neuron and TPU. install() replaces the name in ``transformers.training_args`` (where the check calls it) with
one that also answers ``torch.hal.is_bf16_supported()`` when accelerate's device is hal.
"""
import torch

from torch_hal.integrations import warn_untested


def install(name: str = "transformers") -> None:
    import transformers
    import transformers.training_args as training_args

    from torch_hal.integrations.accelerate import _state_device_is_hal

    warn_untested("transformers", transformers.__version__)
    original = getattr(training_args, "is_torch_bf16_gpu_available", None)
    if original is None:
        raise RuntimeError(f"transformers {transformers.__version__} has no training_args."
                           f"is_torch_bf16_gpu_available; TrainingArguments(bf16=True) may refuse hal")
    if getattr(original, "_torch_hal", False):
        return

    def is_torch_bf16_gpu_available() -> bool:
        if _state_device_is_hal():
            return torch.hal.is_bf16_supported()
        return original()

    is_torch_bf16_gpu_available._torch_hal = True
    training_args.is_torch_bf16_gpu_available = is_torch_bf16_gpu_available
