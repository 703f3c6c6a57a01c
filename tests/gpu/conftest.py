"""Fixtures for tests that need a GPU adapter: they skip unless some hal device is an NVIDIA GPU."""
import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)


def _nvidia_index():
    if not hasattr(torch, "hal"):
        return None
    for i in range(torch.hal.device_count()):
        if str(torch.hal.get_device_properties(i).vendor).lower() == "nvidia":
            return i
    return None


@pytest.fixture
def nvidia_device():
    index = _nvidia_index()
    if index is None:
        pytest.skip("no NVIDIA hal device")
    return torch.device("hal", index)
