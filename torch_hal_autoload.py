"""PyTorch's ``torch.backends`` autoload entry point for torch_hal.

It lives outside the package on purpose: if torch_hal cannot load (a build for another torch, say),
``import torch`` still works and says why with a warning; ``import torch_hal`` then raises the error itself.

With a CUDA or ROCm build of PyTorch, plain ``import torch`` does not register hal: a registered hal device
becomes PyTorch's accelerator, and PyTorch's autograd engine then refuses backward passes over cuda tensors
in that process (pytorch/pytorch#161129). Installing torch_hal must not break existing torch.cuda code,
so there hal is opt-in through ``import torch_hal``.
"""
import warnings


def load():
    import torch

    if torch.version.cuda is not None or torch.version.hip is not None:
        return
    try:
        import torch_hal  # noqa: F401  (the import registers the hal device)
    except ValueError as error:  # a bad TORCH_HAL_* / PYTORCH_HAL_ALLOC_CONF setting, named in the message
        warnings.warn(f"torch_hal is not registered: {error}. Fix or unset that setting, or set "
                      "TORCH_DEVICE_BACKEND_AUTOLOAD=0 to skip torch_hal.", RuntimeWarning)
    except Exception as error:  # noqa: BLE001  (any failure must not break `import torch`)
        reason = str(error).rstrip(".")
        # torch_hal's own ImportError already says how to rebuild; other errors get the advice here.
        fix = "" if "pip install" in reason else "Rebuild it with `pip install --no-build-isolation -e .`, or set "
        warnings.warn(f"torch_hal could not be loaded, so the hal device is not registered: {reason}. "
                      f"{fix or 'Or set '}TORCH_DEVICE_BACKEND_AUTOLOAD=0 to skip it.", RuntimeWarning)
