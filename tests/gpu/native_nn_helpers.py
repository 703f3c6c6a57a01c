"""Shared by the GPU suites of the nn, indexing and random kernels: the GPU device fixtures, tolerances
per dtype and CPU comparison. (Fixtures live here, imported by the test modules, rather than in a
tests/gpu/conftest.py: a second module named conftest would shadow tests/conftest.py, which other suites
import by name.)"""
import contextlib
import math

import pytest
import torch

import torch_hal  # noqa: F401  (registers hal)

FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
ALL_DTYPES = FLOAT_DTYPES + [torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool]

# Tolerances come from the dtype, never from the size of the problem (issue #39, "honest tests").
# EPS: the spacing of floating-point numbers at 1 (machine epsilon): 2^-10 float16, 2^-7 bfloat16.
EPS = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -23, torch.float64: 2.0 ** -52}
# rtol in ulps. float16/bfloat16 results are one rounding of a float32-accurate value on either side (the
# kernels accumulate in float32, the references are float32 or float64 results rounded to the dtype): at most
# one ulp apart, and an ulp is at most EPS * |value|, so 2 ulps. float32/float64 results come from different
# summation orders and math libraries (a few ulps per op, several ops per result): 84 ulps for float32
# (1.0e-5), 256 for float64 (5.7e-14).
ULPS = {torch.float16: 2, torch.bfloat16: 2, torch.float32: 84, torch.float64: 256}


def tol(dtype, k=1, magnitude=1.0):
    """rtol: a few ulps of `dtype`, whatever the problem. atol: for a result that sums `k` terms each at most
    `magnitude` in size, whose rounding errors add up like a random walk: rtol * sqrt(k) * magnitude, the
    rounding error of a typical such result, which a result near zero (cancellation) keeps. rtol stays far
    below 1, so a gradient of the wrong sign never passes unless it is smaller than atol / 2."""
    if dtype not in EPS:
        return dict(atol=0, rtol=0)
    rtol = ULPS[dtype] * EPS[dtype]
    return dict(atol=rtol * math.sqrt(max(k, 1)) * magnitude, rtol=rtol)


def assert_close(actual, expected, dtype=None, k=1, magnitude=1.0):
    """actual (any device) against the CPU's expected, element by element at tol(dtype, k, magnitude); for
    floating results whose reference stands above the absolute tolerance, also their direction: the cosine
    similarity of the two, which a sign error over a sizeable part of the tensor brings down, is at least
    1 - rtol (element-wise agreement within the tolerances keeps it within about 8 rtol^2 of 1)."""
    dtype = dtype or expected.dtype
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    t = tol(dtype, k, magnitude)
    actual = actual.cpu()
    torch.testing.assert_close(actual, expected, equal_nan=True, **t)
    if expected.is_floating_point() and expected.numel() > 1:
        finite = torch.isfinite(expected) & torch.isfinite(actual)
        a, e = actual[finite].double(), expected[finite].double()
        if e.norm() > t["atol"] * math.sqrt(e.numel()):
            cosine = (torch.dot(a, e) / (a.norm() * e.norm())).item()
            assert cosine >= 1 - t["rtol"], f"cosine similarity {cosine} < 1 - {t['rtol']}: a sign or direction error"


def norm_bounds(x, dims, mean=None, var=None, eps=1e-5, rms=False):
    """max |x_hat| and max 1/sqrt(var + eps) of a normalization of x over `dims` (batch statistics, or the
    given mean and var, e.g. running ones; `rms`: x / sqrt(mean(x^2) + eps)), from the CPU data in float64:
    the sizes of the terms that the kernels sum, which the tolerances are derived from."""
    x = x.double()
    if rms:
        mean, var = torch.zeros(()), x.pow(2).mean(dim=dims, keepdim=True)
    elif mean is None:
        mean, var = x.mean(dim=dims, keepdim=True), x.var(dim=dims, unbiased=False, keepdim=True)
    invstd = 1 / torch.sqrt(var.double() + eps)
    return ((x - mean.double()) * invstd).abs().max().item(), invstd.max().item()


def norm_tolerances(x_hat, invstd, w_max, b_max, count, dy_max=3.0):
    """(k, magnitude) of a normalization's output, input gradient, weight gradient and bias gradient.
    y = w * x_hat + b: one product and one addend. dx = w * invstd * (dy - mean(dy) - x_hat * mean(dy * x_hat))
    (batch statistics; with running ones the last two terms drop out): three terms, the largest
    w * invstd * x_hat^2 * dy. dw = sum(dy * x_hat) and db = sum(dy) over `count` terms."""
    return dict(y=(2, max(w_max * x_hat, b_max)),
                dx=(3, w_max * invstd * dy_max * max(1.0, x_hat) ** 2),
                dw=(count, dy_max * x_hat), db=(count, dy_max))


def make(shape, dtype, seed=0, low=-3, high=3):
    """Random CPU data of any dtype."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)
    lo = 0 if dtype == torch.uint8 else int(low * 10)
    return torch.randint(lo, int(high * 10), shape, generator=g).to(dtype)

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
