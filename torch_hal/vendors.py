"""The vendors a hal device can come from."""
from enum import Enum


class HardwareVendor(str, Enum):
    """A string Enum: ``HardwareVendor.NVIDIA == "nvidia"``, and ``str()`` gives the plain value."""

    NVIDIA = "nvidia"
    AMD = "amd"
    INTEL = "intel"
    CUSTOM_ASIC = "custom_asic"
    HOST = "host"

    def __str__(self) -> str:
        return self.value
