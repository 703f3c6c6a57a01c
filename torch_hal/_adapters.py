"""What adapters were found, and loading one more at run time."""
from dataclasses import dataclass
from typing import List

from torch_hal import _C


@dataclass(frozen=True)
class AdapterInfo:
    name: str
    state: str  # "loaded", "unavailable" or "broken"
    reason: str  # why it is unavailable or broken, and the fix; empty when loaded
    path: str
    description: str
    abi_version: str
    device_count: int

    @property
    def available(self) -> bool:
        return self.state == "loaded" and self.device_count > 0


def adapters() -> List[AdapterInfo]:
    """Every adapter library found, loaded or not, in load order."""
    return [AdapterInfo(**a) for a in _C.adapters()]


def load_adapter(path: str) -> List[int]:
    """Loads an adapter library (a plugin) now and returns the indices of its new hal devices.

    Raises ValueError naming the file and the reason when the library is not a usable adapter; the devices
    that already exist keep working either way.
    """
    return list(_C.register_adapter_library(str(path)))
