"""Shared by the GPU suites of the nn, indexing and random kernels: the GPU device fixtures, tolerances
per dtype and CPU comparison. (Fixtures live here, imported by the test modules, rather than in a
tests/gpu/conftest.py: a second module named conftest would shadow tests/conftest.py, which other suites
import by name.)"""
import contextlib

import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)

FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
ALL_DTYPES = FLOAT_DTYPES + [torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool]

_TOL = {
    torch.float16: dict(atol=2e-3, rtol=2e-3),
    torch.bfloat16: dict(atol=2e-2, rtol=2e-2),
    torch.float32: dict(atol=1e-5, rtol=1e-5),
    torch.float64: dict(atol=1e-10, rtol=1e-10),
}


def tol(dtype, scale=1.0):
    t = _TOL.get(dtype, dict(atol=0, rtol=0))
    return dict(atol=t["atol"] * scale, rtol=t["rtol"] * scale)


def assert_close(actual, expected, dtype=None, scale=1.0):
    dtype = dtype or expected.dtype
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True, **tol(dtype, scale))


def make(shape, dtype, seed=0, low=-3, high=3):
    """Random CPU data of any dtype."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)
    lo = 0 if dtype == torch.uint8 else low * 10
    return torch.randint(lo, high * 10, shape, generator=g).to(dtype)

@pytest.fixture
def native(gpu_device):
    """``with native():`` runs its body in strict mode and checks that the CPU fallback never ran."""
    @contextlib.contextmanager
    def scope():
        torch.hal.reset_fallback_stats()
        with torch.hal.strict():
            yield
        assert torch.hal.fallback_stats() == {}, torch.hal.fallback_stats()

    return scope
