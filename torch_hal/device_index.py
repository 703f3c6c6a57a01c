"""Turning what users pass as a device (0, "hal:1", torch.device("hal", 2), None) into an index."""
from typing import Optional, Union

import torch

from torch_hal import _C


def device_index(device: Union[int, str, torch.device, None], optional: bool = False) -> Optional[int]:
    if device is None:
        return None if optional else _C.current_device()
    if isinstance(device, str):
        device = torch.device(device)
    if isinstance(device, torch.device):
        if device.type != "hal":
            raise ValueError(f"expected a hal device, got '{device}'")
        return _C.current_device() if device.index is None else device.index
    if isinstance(device, bool) or not isinstance(device, int):
        raise TypeError(f"a device must be an int, a string such as 'hal:0' or a torch.device, got {device!r}")
    if device < 0:
        raise ValueError(f"hal:{device} is not a valid device: device indices start at 0; "
                         f"{_C.device_count()} hal device(s) available")
    return device
