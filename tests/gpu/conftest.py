"""GPU suites: they run only where some hal device is an NVIDIA GPU (its adapter's native kernels)."""
import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)


def _nvidia_index():
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


@pytest.fixture
def native(nvidia_device):
    """``with native():`` runs its body in strict mode and checks that the CPU fallback never ran."""
    import contextlib

    @contextlib.contextmanager
    def scope():
        torch.hal.reset_fallback_stats()
        with torch.hal.strict():
            yield
        assert torch.hal.fallback_stats() == {}, torch.hal.fallback_stats()

    return scope
