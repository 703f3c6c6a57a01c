"""Hardware vendors, one Enum shared by device selection (hardware_adapter.py) and custom devices."""
from enum import Enum


class HardwareVendor(str, Enum):
    """A vendor by its lower-case key, the one hal device properties report: HardwareVendor("nvidia")."""

    NVIDIA = "nvidia"
    AMD = "amd"
    INTEL = "intel"
    CUSTOM_ASIC = "custom_asic"
    HOST = "host"

    def __str__(self) -> str:
        return self.value
