"""transformers' Trainer on hal: it runs on accelerate (torch_hal.integrations.accelerate gives it the hal device,
autocast("hal") and GradScaler("hal")); its device and its bf16 check need more.

``TrainingArguments.device`` (``_setup_devices``) takes accelerate's device only where CUDA is absent: on a machine
with an NVIDIA GPU it answers cuda:0 while accelerate has put the model on hal, and the Trainer then stops at its
first step ("Calculated loss must be on the original device: cuda:0 but device in use is hal:0"). install() makes
it answer accelerate's hal device, one device per process, as on a machine without CUDA.

``TrainingArguments(bf16=True)`` raises "Your setup doesn't support bf16/gpu" unless
``is_torch_bf16_gpu_available()`` is true, and that function knows only CUDA, XPU, HPU, NPU, MPS, MUSA, MLU,
Neuron and TPU. install() replaces the name in ``transformers.training_args`` (where the check calls it) with
one that also answers ``torch.hal.is_bf16_supported()`` when accelerate's device is hal.
"""
import functools

import torch

from torch_hal.integrations import warn_untested


def _use_accelerate_hal_device(training_args) -> None:
    cls = training_args.TrainingArguments
    original = cls.__dict__.get("_setup_devices")
    if not isinstance(original, functools.cached_property):
        raise RuntimeError("transformers' TrainingArguments._setup_devices is no longer a cached_property; "
                           "the Trainer may pick cuda:0 while the model is on hal")
    if getattr(original.func, "_torch_hal", False):
        return

    def _setup_devices(self):
        device = original.func(self)
        state = getattr(self, "distributed_state", None)
        state_device = getattr(state, "device", None)
        if state_device is not None and state_device.type == "hal" and device.type != "hal":
            self._n_gpu = 1  # one hal device per process, as accelerate runs it
            return state_device
        return device

    _setup_devices._torch_hal = True
    patched = functools.cached_property(_setup_devices)
    patched.__set_name__(cls, "_setup_devices")
    cls._setup_devices = patched


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
    _use_accelerate_hal_device(training_args)
