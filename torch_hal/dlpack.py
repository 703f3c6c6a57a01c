"""DLPack for hal tensors, both ways.

A hal tensor's memory belongs to a vendor's runtime, and other libraries know those runtimes, not hal. So a
hal tensor is exported as the vendor's own DLPack device: NVIDIA memory as kDLCUDA (CuPy, JAX, cuda
tensors take it), AMD as kDLROCM, Intel as kDLOneAPI, the host device's memory as kDLCPU (NumPy takes it);
devices without a DLPack type of their own (plugins, Python backends, a host device without host access)
use kDLExtDev with the hal index, which ATen maps to hal. Importing reverses it: `torch.from_dlpack(x,
device="hal:N")` aliases x's memory when it lives where hal:N's memory does, and copies otherwise; and
`torch.from_dlpack(hal_tensor)` stays on hal, as it stays on cuda for a cuda tensor.

PyTorch's Tensor.__dlpack__/__dlpack_device__ know only built-in devices by name, so install() wraps them
(and torch.from_dlpack) for hal tensors; every other tensor goes through PyTorch's code unchanged.
"""
import functools

import torch
import torch.utils.dlpack
from torch.utils.dlpack import DLDeviceType

from torch_hal import _C

_VENDOR_DEVICE_TYPES = {
    "nvidia": DLDeviceType.kDLCUDA,
    "amd": DLDeviceType.kDLROCM,
    "intel": DLDeviceType.kDLOneAPI,
}
_STREAM_DEVICE_TYPES = (DLDeviceType.kDLCUDA, DLDeviceType.kDLROCM)

_original_dlpack = torch.Tensor.__dlpack__
_original_dlpack_device = torch.Tensor.__dlpack_device__
_original_from_dlpack = torch.utils.dlpack.from_dlpack


def native_dlpack_device(index: int):
    """(DLDeviceType, device id) under which hal:index's memory is known outside torch_hal."""
    props = _C.get_device_properties(index)
    vendor_type = _VENDOR_DEVICE_TYPES.get(props["vendor"])
    if vendor_type is not None:
        return vendor_type, props["local_index"]
    if props["vendor"] == "host" and props["host_accessible"]:
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLExtDev, index


def _hal_index(device: torch.device) -> int:
    return device.index if device.index is not None else _C.current_device()


def _same_device(a, b) -> bool:
    return int(a[0]) == int(b[0]) and int(a[1]) == int(b[1])


def _dlpack_device(self):
    if self.device.type != "hal":
        return _original_dlpack_device(self)
    kind, device_id = native_dlpack_device(_hal_index(self.device))
    return DLDeviceType(kind), device_id


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self.device.type != "hal":
        return _original_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
    # What DLPack cannot carry is refused, as PyTorch refuses it for its own devices.
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if self.is_conj():
        raise BufferError("Can't export tensors with the conjugate bit set")
    if self.layout != torch.strided:
        raise BufferError("Can't export tensors with layout other than torch.strided")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    index = _hal_index(self.device)
    own = native_dlpack_device(index)
    if dl_device is not None and not _same_device(dl_device, own):
        if int(dl_device[0]) != DLDeviceType.kDLCPU:
            raise BufferError(f"hal:{index} exports to DLPack device {tuple(map(int, own))} or, as a copy, to the "
                              f"CPU; not to {tuple(map(int, dl_device))}")
        if copy is False:
            raise BufferError(f"hal:{index}'s memory is not CPU memory: exporting it to the CPU needs a copy "
                              "(copy=None or copy=True)")
        return _original_dlpack(self.cpu(), max_version=max_version)
    source = self.clone() if copy else self
    if stream != -1:
        # The consumer reads on its own stream (or, for CPU consumers, right away): hal's queued work on
        # this tensor must be done first. Waiting for the current stream is correct for every vendor.
        torch.hal.current_stream(index).synchronize()
    if max_version is None or max_version[0] < 1:
        capsule = torch._C._to_dlpack(source)
    else:
        capsule = torch._C._to_dlpack_versioned(source)
    if not _same_device(own, (DLDeviceType.kDLExtDev, index)):
        _C.retarget_dlpack(capsule, int(own[0]), int(own[1]))
    return capsule


def _capsule_from(ext_tensor, own, index):
    """A capsule of ext_tensor's memory, made ready for hal:index's current stream where streams apply."""
    kwargs = {"max_version": (1, 0)}
    if own[0] in _STREAM_DEVICE_TYPES:
        handle = _C.native_stream_handle(index, _C.current_stream_id(index))
        kwargs["stream"] = handle if handle != 0 else 1  # DLPack: 1 is CUDA's legacy default stream
    try:
        return ext_tensor.__dlpack__(**kwargs)
    except TypeError:  # a producer from before DLPack 1.0
        kwargs.pop("max_version")
        return ext_tensor.__dlpack__(**kwargs)


def import_dlpack(ext_tensor, index: int, copy=None):
    """ext_tensor (a DLPack producer or capsule) as a tensor on hal:index: an alias of its memory when that
    memory is hal:index's, a copy otherwise (refused when copy is False)."""
    own = native_dlpack_device(index)
    if hasattr(ext_tensor, "__dlpack_device__"):
        ext_device = ext_tensor.__dlpack_device__()
        aliasable = _same_device(ext_device, own) or _same_device(ext_device, (DLDeviceType.kDLExtDev, index))
        capsule = _capsule_from(ext_tensor, own, index) if aliasable else None
    else:
        capsule = ext_tensor
        ext_device = _C.dlpack_device(capsule)
        aliasable = _same_device(ext_device, own) or _same_device(ext_device, (DLDeviceType.kDLExtDev, index))
    if not aliasable:
        if copy is False:
            raise ValueError(f"cannot move a DLPack tensor from device {tuple(map(int, ext_device))} to hal:{index} "
                             "without copying. Set copy=None or copy=True.")
        return _original_from_dlpack(ext_tensor).to(f"hal:{index}")
    _C.retarget_dlpack(capsule, int(DLDeviceType.kDLExtDev), index)
    tensor = torch._C._from_dlpack(capsule)
    return tensor.clone() if copy else tensor


@functools.wraps(_original_from_dlpack)
def from_dlpack(ext_tensor, *, device=None, copy=None):
    target = torch.device(device) if device is not None else None
    if target is None and isinstance(ext_tensor, torch.Tensor) and ext_tensor.device.type == "hal":
        target = ext_tensor.device  # a hal tensor stays on hal (its DLPack device is the vendor's)
    if target is None or target.type != "hal":
        return _original_from_dlpack(ext_tensor, device=device, copy=copy)
    return import_dlpack(ext_tensor, _hal_index(target), copy=copy)


def install():
    torch.Tensor.__dlpack__ = _dlpack
    torch.Tensor.__dlpack_device__ = _dlpack_device
    torch.utils.dlpack.from_dlpack = from_dlpack
    torch.from_dlpack = from_dlpack
