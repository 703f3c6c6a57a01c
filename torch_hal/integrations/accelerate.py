"""accelerate on hal: ``Accelerator()`` (and so transformers' ``Trainer``) on the hal device, with bf16 and fp16.

- The device: accelerate's own, device-generic override ``ACCELERATE_TORCH_DEVICE`` (read when its state is
  first made). install() sets it to ``hal`` unless the user set it; without it accelerate takes the CPU when no
  CUDA/XPU/MPS/... is present, silently.
- bf16: nothing to patch; accelerate runs ``torch.autocast(state.device.type)``, i.e. ``autocast("hal")``.
- fp16: ``Accelerator.__init__`` refuses any device outside a literal tuple (``("xpu", "cuda", ..., "mps")``),
  and ``utils.get_grad_scaler`` gives ``GradScaler("cuda")`` to a device it does not know (on a CPU-only PyTorch
  a disabled scaler: fp16 without loss scaling). install() adds ``"hal"`` to that tuple (the one constant of
  ``__init__``'s code that holds it, checked to be exactly that) and makes ``get_grad_scaler`` return
  ``torch.amp.GradScaler("hal")`` when accelerate's device is hal.
- Several processes (``accelerate launch --multi_gpu --num_processes N script.py``, which starts them with
  torchrun, or ``notebook_launcher``): each process has ``LOCAL_RANK``, but ``PartialState._prepare_backend``
  picks a backend and a distributed type only for the devices it lists (NCCL for CUDA, ...) and, for any other,
  answers "not distributed": every rank would train alone on hal:0, without a process group (and where CUDA is
  present too, it answers NCCL for what are hal tensors). install() makes it answer, when accelerate's device is
  hal and the user did not ask for the CPU nor pass a backend, the hal c10d backend and
  ``DistributedType.MULTI_GPU`` (accelerate's device-generic multi-device path: DDP with
  ``device_ids=[local rank]``, per-process data sharding and RNG sync through torch.distributed), and gives the
  process its own device, ``hal:<LOCAL_RANK % device count>`` (``torch.hal.set_device`` too), before accelerate
  calls ``init_process_group``. Without ``--multi_gpu`` and with no GPU, ``accelerate launch`` starts one process
  whatever ``--num_processes`` says (its plain launcher); ``--cpu`` would put the ranks on the CPU.
"""
import inspect
import os
import warnings

import torch

from torch_hal.integrations import warn_untested

_FP16_DEVICES = ("xpu", "cuda", "npu", "xla", "mlu", "musa", "hpu", "sdaa", "mps")  # accelerate 1.15.0's list


def _state_device_is_hal() -> bool:
    from accelerate.state import PartialState

    device = PartialState._shared_state.get("device") if PartialState._shared_state else None
    if device is not None:
        return device.type == "hal"
    return os.environ.get("ACCELERATE_TORCH_DEVICE", "").split(":")[0] == "hal"


def _allow_fp16_on_hal(accelerator_cls) -> bool:
    code = accelerator_cls.__init__.__code__
    matches = [i for i, c in enumerate(code.co_consts)
               if isinstance(c, tuple) and "cuda" in c and "xpu" in c and all(isinstance(s, str) for s in c)]
    if len(matches) != 1:
        return False
    i = matches[0]
    if "hal" in code.co_consts[i]:
        return True
    if set(code.co_consts[i]) != set(_FP16_DEVICES):
        # a list we have not seen: still only that check uses it, but say so
        warnings.warn(f"torch_hal.integrations.accelerate: accelerate's fp16 device list is now "
                      f"{code.co_consts[i]}; adding 'hal' to it", stacklevel=3)
    consts = code.co_consts[:i] + (code.co_consts[i] + ("hal",),) + code.co_consts[i + 1:]
    accelerator_cls.__init__.__code__ = code.replace(co_consts=consts)
    return True


def _distribute_on_hal(state_cls) -> bool:
    """PartialState._prepare_backend answers the hal c10d backend and MULTI_GPU for a launched process on hal."""
    from accelerate.utils import DistributedType

    original = state_cls.__dict__.get("_prepare_backend")
    if original is None or not callable(original):
        return False
    if list(inspect.signature(original).parameters) != ["self", "cpu", "sagemaker_dp", "backend"]:
        return False  # not the method accelerate 1.15.0 has: leave it alone
    if getattr(original, "_torch_hal", False):
        return True

    def _prepare_backend(self, cpu: bool = False, sagemaker_dp=False, backend=None):
        chosen, distributed_type = original(self, cpu, sagemaker_dp, backend)
        device = getattr(self, "device", None)  # ACCELERATE_TORCH_DEVICE, read just before this call
        # NO: no device accelerate knows; MULTI_GPU: CUDA is there too (its NCCL would get the hal tensors)
        if distributed_type in (DistributedType.NO, DistributedType.MULTI_GPU) and not cpu \
                and int(os.environ.get("LOCAL_RANK", -1)) != -1 and device is not None and device.type == "hal" \
                and torch.hal.device_count() > 0:
            if device.index is None:  # one device per process, as accelerate gives CUDA ranks
                self.device = torch.device("hal", int(os.environ["LOCAL_RANK"]) % torch.hal.device_count())
            torch.hal.set_device(self.device)
            return backend or "hal", DistributedType.MULTI_GPU
        return chosen, distributed_type

    _prepare_backend._torch_hal = True
    state_cls._prepare_backend = _prepare_backend
    return True


def install(name: str = "accelerate") -> None:
    import accelerate
    import accelerate.accelerator as accelerator_module
    from accelerate.state import PartialState

    warn_untested("accelerate", accelerate.__version__)

    requested = os.environ.get("ACCELERATE_TORCH_DEVICE")
    if requested is None:
        os.environ["ACCELERATE_TORCH_DEVICE"] = "hal"
    elif requested.split(":")[0] != "hal":
        warnings.warn(f"torch_hal.integrations: ACCELERATE_TORCH_DEVICE={requested!r} is set, so accelerate and "
                      f"transformers' Trainer use {requested}, not hal", stacklevel=3)
    if PartialState._shared_state and PartialState._shared_state.get("device") is not None \
            and PartialState._shared_state["device"].type != "hal" and requested is None:
        warnings.warn(f"torch_hal.integrations: accelerate's state was made before the opt-in, on "
                      f"{PartialState._shared_state['device']}; import torch_hal.integrations before creating "
                      f"Accelerator, PartialState or TrainingArguments", stacklevel=3)

    if not _allow_fp16_on_hal(accelerator_module.Accelerator):
        warnings.warn("torch_hal.integrations.accelerate: accelerate's fp16 device check was not found where "
                      "accelerate 1.15.0 has it; Accelerator(mixed_precision='fp16') will refuse hal "
                      "(bf16 is unaffected)", stacklevel=3)

    if not _distribute_on_hal(PartialState):
        warnings.warn("torch_hal.integrations.accelerate: accelerate's PartialState._prepare_backend is not the "
                      "one accelerate 1.15.0 has; with several processes (accelerate launch) each rank will train "
                      "alone on hal:0, without the hal c10d backend (one process is unaffected)", stacklevel=3)

    original = accelerator_module.get_grad_scaler
    if getattr(original, "_torch_hal", False):
        return

    def get_grad_scaler(distributed_type=None, **kwargs):
        # FSDP (v1) keeps its ShardedGradScaler, which takes a device argument of its own; everything else on hal
        # gets hal's scaler instead of the "cuda" one accelerate falls back to.
        if _state_device_is_hal() and str(distributed_type) != "FSDP":
            return torch.amp.GradScaler("hal", **kwargs)
        return original(distributed_type, **kwargs)

    get_grad_scaler._torch_hal = True
    accelerator_module.get_grad_scaler = get_grad_scaler
