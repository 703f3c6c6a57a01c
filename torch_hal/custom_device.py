"""Custom devices: a Python backend or a C ABI plugin library, added to torch_hal as more hal:N devices.

A Python backend subclasses :class:`CustomDeviceBackend`; torch_hal bridges it into the HAL core as an
adapter (csrc/torch/python_backend/), so its memory holds the tensors, copies go through its methods,
and every op runs through torch_hal's CPU fallback (a Python backend has no native kernels). A plugin is
a shared library exporting ``hal_adapter_query`` (vendor_adapters/example_asic/README.md).

    register_custom_device(MyBackend("my_asic", HardwareVendor.CUSTOM_ASIC), PrivateUse1Config())
    register_custom_device(config=PrivateUse1Config(backend_library="libexample_asic.so"))
"""
import ctypes
import os
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import List, Optional, Union

import torch

from torch_hal import _C
from torch_hal._adapters import load_adapter
from torch_hal.vendors import HardwareVendor

_PACKAGE_DIR = Path(__file__).resolve().parent
PLUGIN_DIR = _PACKAGE_DIR / "plugins"  # plugins built with torch_hal; never scanned at import
MAX_PYTHON_BACKENDS = _C.MAX_PYTHON_BACKENDS

_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_memory_size(value: Union[int, str]) -> int:
    """Bytes from an int or a string such as "512M", "8G", "1.5G" (binary multiples)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"memory size {value!r} must be a number of bytes or a string such as '512M'")
    if isinstance(value, int):
        size = value
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", value, re.IGNORECASE)
        if not match:
            raise ValueError(f"memory size {value!r} is not a size: use bytes or a K/M/G/T suffix, e.g. '512M'")
        size = int(float(match.group(1)) * _SIZE_UNITS[match.group(2).upper()])
    if size <= 0:
        raise ValueError(f"memory size {value!r} must be positive")
    return size


def aligned_buffer(size: int, alignment: int = 64) -> memoryview:
    """`size` writable bytes starting at an `alignment`-byte boundary: the default device memory of a
    Python backend (a view into a bytearray, which it keeps alive)."""
    raw = bytearray(size + alignment)
    address = ctypes.addressof(ctypes.c_char.from_buffer(raw))
    start = -address % alignment
    return memoryview(raw)[start:start + size]


@dataclass
class DeviceProperties:
    """What get_device_properties returns (a dict with these keys works too)."""

    name: str
    total_memory: int  # bytes; allocations beyond it are the device's out-of-memory
    vendor: str = HardwareVendor.CUSTOM_ASIC.value
    arch_name: str = ""
    uuid: str = ""
    compute_units: int = 1
    # True only where the CPU may compute on the buffers directly (plain host memory and no copy hooks):
    # ops then run as CPU kernels in place instead of through the copying fallback.
    host_accessible: bool = False
    supports_fp16: bool = False
    supports_bf16: bool = False
    supports_fp64: bool = False


@dataclass
class MemoryCopy:
    """One transfer handed to copy_to_device / copy_from_device / copy_on_device.

    `src` and `dst` are memoryviews of the `nbytes` bytes to move (valid only during the call). On a device
    side, `*_buffer` is the object allocate_memory returned and `*_offset` the position in it; on a host
    side they are None and 0."""

    src: memoryview
    dst: memoryview
    nbytes: int
    src_buffer: object = None
    src_offset: int = 0
    dst_buffer: object = None
    dst_offset: int = 0


class CustomDeviceBackend:
    """A device implemented in Python. Override what the device does differently; the defaults make a
    working device whose memory is host RAM that torch_hal treats as the device's own.

    Methods run while torch_hal holds internal locks: they must not use hal tensors themselves. What is not
    here (kernels) runs through torch_hal's CPU fallback, counted in torch.hal.fallback_stats().
    """

    def __init__(self, name: str, vendor: Union[HardwareVendor, str] = HardwareVendor.CUSTOM_ASIC, *,
                 device_count: int = 1, memory_per_device: Union[int, str] = "1G"):
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{0,62}", name):
            raise ValueError(f"backend name {name!r} must start with a letter and use only letters, digits, "
                             "'_', '.', '-' (at most 63 characters), e.g. 'my_asic'")
        self.name = name
        self.vendor = HardwareVendor(vendor)
        self.device_count = _positive_int(device_count, "device_count")
        self.memory_per_device = parse_memory_size(memory_per_device)

    # -- discovery --------------------------------------------------------------------------------
    def initialize_device(self, device_id: int) -> None:
        """Called once per device at registration, before anything else touches it."""

    def get_device_count(self) -> int:
        return self.device_count

    def get_device_properties(self, device_id: int) -> Union[DeviceProperties, dict]:
        return DeviceProperties(name=f"{self.name} device {device_id} (Python backend)",
                                total_memory=self.memory_per_device, vendor=self.vendor.value)

    def get_memory_info(self, device_id: int):
        """(free_bytes, total_bytes). Not overriding it lets torch_hal count what this backend allocated."""
        raise NotImplementedError  # never called unless overridden

    # -- memory -----------------------------------------------------------------------------------
    def allocate_memory(self, size: int, device_id: int):
        """A writable, contiguous, 16-byte-aligned buffer of at least `size` bytes: bytearray, memoryview,
        numpy array, ctypes array. torch_hal keeps it alive until free_memory. MemoryError means the device
        is out of memory (torch.OutOfMemoryError for the caller)."""
        return aligned_buffer(size)

    def free_memory(self, buffer, device_id: int) -> None:
        """`buffer` is no longer used (called soon after the memory is released, not always at once)."""

    # -- copies (each gets a MemoryCopy) ---------------------------------------------------------------
    def copy_to_device(self, copy: MemoryCopy, device_id: int) -> None:
        copy.dst[:] = copy.src

    def copy_from_device(self, copy: MemoryCopy, device_id: int) -> None:
        copy.dst[:] = copy.src

    def copy_on_device(self, copy: MemoryCopy, device_id: int) -> None:
        copy.dst[:] = copy.src

    def synchronize(self, device_id: int) -> None:
        """Wait for work the backend runs asynchronously (torch.hal.synchronize)."""

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.vendor})"


@dataclass(frozen=True)
class PrivateUse1Config:
    """How register_custom_device adds devices. PyTorch's PrivateUse1 device is torch_hal's ``hal``: custom
    devices join it as more hal:N, whatever their backend is called.

    backend_name:    the adapter name in torch_hal.adapters() (default: the Python backend's name)
    backend_library: a plugin adapter library to load instead of a Python backend: an absolute path, or a
                     file name looked up in torch_hal/plugins/ and the folders of TORCH_HAL_ADAPTER_PATH
    device_count:    Python backends: how many of its devices to use (default: get_device_count())
    memory:          Python backends: memory of each device, bytes or "512M" (default: its properties)
    """

    backend_name: Optional[str] = None
    backend_library: Optional[str] = None
    device_count: Optional[int] = None
    memory: Optional[Union[int, str]] = None


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}")
    return value


def find_backend_library(name: str) -> Path:
    """The plugin file `name` names: an existing path, or a bare file name in torch_hal/plugins/ or a
    folder of TORCH_HAL_ADAPTER_PATH. Raises FileNotFoundError listing where it looked."""
    path = Path(name).expanduser()
    if path.is_absolute() or len(path.parts) > 1:
        if not path.is_file():
            raise FileNotFoundError(f"backend_library {name!r}: no such file. Give the path of the adapter "
                                    "library (the .so built from the plugin's CMake project)")
        return path.resolve()
    folders = [PLUGIN_DIR] + [Path(f) for f in os.environ.get("TORCH_HAL_ADAPTER_PATH", "").split(":") if f]
    for folder in folders:
        if (folder / name).is_file():
            return (folder / name).resolve()
    raise FileNotFoundError(f"backend_library {name!r} is not in any of {[str(f) for f in folders]}: give an "
                            "absolute path, or add its folder to TORCH_HAL_ADAPTER_PATH")


def register_custom_device(backend: Optional[CustomDeviceBackend] = None,
                           config: Optional[PrivateUse1Config] = None) -> List[torch.device]:
    """Adds the devices of a Python backend, or of the plugin library config.backend_library names, as new
    hal:N devices (appended: existing indices never change) and returns them.

    A backend or library that cannot work raises (ValueError, FileNotFoundError, RuntimeError) naming it,
    the problem and the fix; the devices that exist keep working either way."""
    config = PrivateUse1Config() if config is None else config
    if not isinstance(config, PrivateUse1Config):
        raise TypeError(f"config must be a torch_hal.PrivateUse1Config, got {type(config).__name__}")
    if config.backend_library is not None:
        if backend is not None:
            raise ValueError("give either a CustomDeviceBackend or PrivateUse1Config.backend_library, not both")
        for field in ("backend_name", "device_count", "memory"):
            if getattr(config, field) is not None:
                raise ValueError(f"PrivateUse1Config.{field} applies to Python backends: a library adapter names "
                                 "itself and reports its own devices and memory (set them as its documentation "
                                 "says, e.g. EXAMPLE_ASIC_DEVICES / EXAMPLE_ASIC_MEMORY for libexample_asic.so)")
        indices = load_adapter(str(find_backend_library(config.backend_library)))
        return [torch.device("hal", i) for i in indices]
    if not isinstance(backend, CustomDeviceBackend):
        raise TypeError("register_custom_device needs a torch_hal.CustomDeviceBackend (or a PrivateUse1Config "
                        f"with backend_library), got {type(backend).__name__}")
    return [torch.device("hal", i) for i in _register_python_backend(backend, config)]


def _call(backend: CustomDeviceBackend, method: str, *args):
    """Calls a discovery method; its exception becomes one that names the backend and the method."""
    try:
        return getattr(backend, method)(*args)
    except Exception as error:
        call = f"{method}({', '.join(map(repr, args))})"
        raise RuntimeError(f"custom device backend '{backend.name}': {call} raised "
                           f"{type(error).__name__}: {error}") from error


_TEXT_PROPERTIES = ("name", "vendor", "arch_name", "uuid")
_FLAG_PROPERTIES = ("host_accessible", "supports_fp16", "supports_bf16", "supports_fp64")
_INT32_MAX = (1 << 31) - 1


def _check_property_values(backend: CustomDeviceBackend, device_id: int, props: DeviceProperties) -> None:
    """Types and ranges of what get_device_properties returned, checked here so that the error names the
    backend, the device and the field (the native conversion would only say that a cast failed)."""
    where = f"custom device backend '{backend.name}': get_device_properties({device_id})"
    for field in _TEXT_PROPERTIES:
        value = getattr(props, field)
        if not isinstance(value, str) or "\0" in value:
            raise TypeError(f"{where}: {field} is {value!r}; it must be a str without NUL characters")
    if not props.name.strip():
        raise ValueError(f"{where}: name is empty; give the device a name")
    for field in _FLAG_PROPERTIES:
        value = getattr(props, field)
        if not isinstance(value, bool):
            raise TypeError(f"{where}: {field} is {value!r}; it must be True or False")
    units = props.compute_units
    if isinstance(units, bool) or not isinstance(units, int) or not 1 <= units <= _INT32_MAX:
        raise ValueError(f"{where}: compute_units is {units!r}; it must be an int between 1 and {_INT32_MAX}")


def _memory_of(backend: CustomDeviceBackend, device_id: int, total_memory) -> int:
    """total_memory in bytes, at most what the native side holds (uint64)."""
    where = f"custom device backend '{backend.name}': get_device_properties({device_id})"
    try:
        size = parse_memory_size(total_memory)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{where}: total_memory: {error}") from None
    if size >= 1 << 64:
        raise ValueError(f"{where}: total_memory is {size} bytes, more than any device holds (2**64)")
    return size


def _properties_of(backend: CustomDeviceBackend, device_id: int, memory: Optional[int]) -> dict:
    props = _call(backend, "get_device_properties", device_id)
    known = {f.name for f in fields(DeviceProperties)}
    if isinstance(props, dict):
        unknown = set(props) - known
        if unknown:
            raise ValueError(f"custom device backend '{backend.name}': get_device_properties({device_id}) has "
                             f"unknown keys {sorted(unknown)}; the keys are {sorted(known)}")
        try:
            props = DeviceProperties(**props)
        except TypeError as error:
            raise ValueError(f"custom device backend '{backend.name}': get_device_properties({device_id}): "
                             f"{error}") from None
    if not isinstance(props, DeviceProperties):
        raise TypeError(f"custom device backend '{backend.name}': get_device_properties({device_id}) returned "
                        f"{type(props).__name__}; return a torch_hal.custom_device.DeviceProperties or a dict")
    _check_property_values(backend, device_id, props)
    result = asdict(props)
    result["total_memory"] = memory if memory is not None else _memory_of(backend, device_id, props.total_memory)
    result["vendor"] = str(HardwareVendor(props.vendor)) if props.vendor in {v.value for v in HardwareVendor} \
        else str(props.vendor).lower()
    return result


def _overrides(backend: CustomDeviceBackend, method: str) -> bool:
    return getattr(type(backend), method) is not getattr(CustomDeviceBackend, method)


def _register_python_backend(backend: CustomDeviceBackend, config: PrivateUse1Config) -> List[int]:
    name = backend.name if config.backend_name is None else config.backend_name
    count = _call(backend, "get_device_count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= _C.MAX_DEVICES:
        raise ValueError(f"custom device backend '{backend.name}': get_device_count() returned {count!r}; "
                         f"return the number of devices, an int between 1 and {_C.MAX_DEVICES} (the most hal "
                         "devices one process numbers)")
    if config.device_count is not None:
        if _positive_int(config.device_count, "PrivateUse1Config.device_count") > count:
            raise ValueError(f"PrivateUse1Config(device_count={config.device_count}) asks for more devices than "
                             f"backend '{backend.name}' has ({count})")
        count = config.device_count
    room = _C.MAX_DEVICES - _C.device_count()
    if count > room:
        raise ValueError(f"custom device backend '{backend.name}' has {count} devices, but only {room} more fit: "
                         f"torch_hal numbers at most {_C.MAX_DEVICES} hal devices and {_C.device_count()} exist. "
                         "Use PrivateUse1Config(device_count=...) to register fewer")
    memory = None if config.memory is None else parse_memory_size(config.memory)
    if memory is not None and memory >= 1 << 64:
        raise ValueError(f"PrivateUse1Config(memory={config.memory!r}) is more than any device holds (2**64 bytes)")
    for device_id in range(count):
        _call(backend, "initialize_device", device_id)
    properties = [_properties_of(backend, i, memory) for i in range(count)]
    hooks = {m: _overrides(backend, m) for m in
             ("copy_to_device", "copy_from_device", "copy_on_device", "get_memory_info", "synchronize")}
    if any(hooks[m] for m in ("copy_to_device", "copy_from_device", "copy_on_device")):
        for i, p in enumerate(properties):
            if p["host_accessible"]:
                raise ValueError(f"custom device backend '{backend.name}': device {i} is host_accessible, but the "
                                 "backend overrides copy methods: CPU kernels would read its buffers without them. "
                                 "Set host_accessible=False, or drop the copy overrides")
    description = f"Python backend {type(backend).__module__}.{type(backend).__qualname__} ({backend.vendor.value})"
    return list(_C._register_python_backend(backend, name, description, properties, hooks, MemoryCopy))
