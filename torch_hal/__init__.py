"""torch_hal: one PyTorch device, ``hal``, for accelerators of every vendor.

``import torch_hal`` (or just ``import torch``, through PyTorch's backend autoload) registers PyTorch's
PrivateUse1 device as ``hal``: ``torch.ones(3, device="hal")``, ``x.to("hal:0")``, ``model.hal()``,
``torch.hal.synchronize()``, ``torch.accelerator`` and ``torch.autocast("hal")`` then work. ``hal:N`` is any
device of any loaded adapter; :func:`adapters` tells which adapters were found and why any is unavailable.
"""
from torch_hal._backend import register as _register

_register()

from torch_hal import device_module as hal  # noqa: E402  (the module that is torch.hal)
from torch_hal._adapters import AdapterInfo, adapters, load_adapter  # noqa: E402
from torch_hal.custom_device import CustomDeviceBackend, PrivateUse1Config, register_custom_device  # noqa: E402
from torch_hal.hardware_adapter import HardwareAdapter  # noqa: E402
from torch_hal.measure import measure  # noqa: E402
from torch_hal.vendors import HardwareVendor  # noqa: E402

__version__ = "0.1.0"
__all__ = ["hal", "adapters", "AdapterInfo", "load_adapter", "HardwareAdapter", "HardwareVendor", "measure",
           "register_custom_device", "CustomDeviceBackend", "PrivateUse1Config", "__version__"]
