"""logcumsumexp (real and complex), cummax / cummin (values and indices) and searchsorted / bucketize on a GPU: the library's scan
family (scan_rules.cuh) and search family (search_rules.cuh), against PyTorch's CPU results in strict mode (any
op reaching the CPU fallback fails), over dtypes, dims, strided and 0-dim inputs, ties and NaN, and the block-
per-line scan of long contiguous lines (whose tree of partial results the tolerance of logcumsumexp allows
for: the dtype's, grown by the square root of the line's length, as cumsum's)."""
import math

import pytest
import torch

from test_native_elementwise import make, tol
from test_native_training_ops import SCAN_SHAPES_DIMS, run_scan

NAN = float("nan")


@pytest.mark.parametrize("shape,dim", SCAN_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_logcumsumexp(gpu_device, dtype, shape, dim):
    run_scan(lambda u: torch.logcumsumexp(u, dim), make(shape, dtype, -5, 5), dim, gpu_device)


def test_logcumsumexp_infinities_and_nan(gpu_device):
    x = torch.tensor([[-math.inf, -math.inf, 0.0, math.inf, math.inf, 1.0],
                      [1.0, NAN, 2.0, -math.inf, 3.0, 4.0]])
    with torch.hal.strict():
        actual = torch.logcumsumexp(x.to(gpu_device), 1).cpu()
    torch.testing.assert_close(actual, torch.logcumsumexp(x, 1), equal_nan=True)


@pytest.mark.parametrize("shape,dim", [((), 0), ((0,), 0), ((7, 13), 0), ((7, 13), 1), ((3, 5, 7), 1),
                                       ((2, 3, 300), 2), ((300, 2, 3), 0)])
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_logcumsumexp_replays_the_cpu_order(gpu_device, dtype, shape, dim):
    """Complex logcumsumexp (the scan family's complex_pairs): parts in [-9, 9], so the running imaginary parts
    leave (-pi, pi] as the CPU's step-by-step log-add-exp leaves them; transposed and out= forms too."""
    real = dtype.to_real()
    x = torch.complex(make(shape, real, -9, 9, 0), make(shape, real, -9, 9, 1))
    with torch.hal.strict():
        xd = x.to(gpu_device)
        actual = torch.logcumsumexp(xd, dim)
        out = torch.empty(0, dtype=dtype, device=gpu_device)
        torch.logcumsumexp(xd, dim, out=out)
        transposed = torch.logcumsumexp(xd.mT, 0) if x.dim() >= 2 else None
        torch.hal.synchronize(gpu_device)
    tolerance = dict(rtol=tol(real)[0], atol=tol(real)[1], equal_nan=True)
    torch.testing.assert_close(actual.cpu(), torch.logcumsumexp(x, dim), **tolerance)
    torch.testing.assert_close(out.cpu(), torch.logcumsumexp(x, dim), **tolerance)
    if transposed is not None:
        torch.testing.assert_close(transposed.cpu(), torch.logcumsumexp(x.mT, 0), **tolerance)


def test_complex_logcumsumexp_infinities_and_nan(gpu_device):
    inf = math.inf
    x = torch.tensor([[complex(-inf, 0), complex(-inf, 2), complex(0, 1), complex(3, -1), complex(inf, 0.5)],
                      [complex(1, 1), complex(NAN, 0), complex(2, 0), complex(-inf, 0), complex(3, 3)]],
                     dtype=torch.complex128)
    with torch.hal.strict():
        actual = torch.logcumsumexp(x.to(gpu_device), 1).cpu()
    torch.testing.assert_close(actual, torch.logcumsumexp(x, 1), equal_nan=True)


def check_extremum(fn, x, dim, device):
    with torch.hal.strict():
        values, indices = fn(x.to(device), dim)
        torch.hal.synchronize(device)
    want_values, want_indices = fn(x, dim)
    assert values.dtype == x.dtype and indices.dtype == torch.int64
    torch.testing.assert_close(values.cpu(), want_values, equal_nan=True, rtol=0, atol=0)
    assert torch.equal(indices.cpu(), want_indices), (fn.__name__, x.dtype, tuple(x.shape), dim)


@pytest.mark.parametrize("shape,dim", SCAN_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64,
                                   torch.int32, torch.uint8, torch.bool])
def test_cummax_and_cummin_values_and_indices(gpu_device, dtype, shape, dim):
    # Few distinct values, so that ties (the last equal element wins) are everywhere.
    x = make(shape, dtype, -3, 3)
    if dtype.is_floating_point:
        x = x.round()
    for fn in (torch.cummax, torch.cummin):
        check_extremum(fn, x, dim, gpu_device)


def test_cummax_nan_stays_with_the_last_nan_index(gpu_device):
    x = torch.tensor([[1.0, NAN, 5.0, NAN, 7.0], [-math.inf, -math.inf, 2.0, 2.0, NAN]])
    long_line = make((3, 5000), torch.float32, -3, 3).round()  # the block-per-line scan, chunk to chunk
    long_line[1, 2345] = NAN
    for fn in (torch.cummax, torch.cummin):
        check_extremum(fn, x, 1, gpu_device)
        check_extremum(fn, long_line, 1, gpu_device)
        check_extremum(fn, long_line.t(), 0, gpu_device)
    y = make((4, 6), torch.float32).requires_grad_()
    with torch.hal.strict():  # the gradient scatters to the indices: native too
        grad = torch.autograd.grad(torch.cummax(y.to(gpu_device), 1).values.sum(), y)[0]
    assert torch.equal(grad, torch.autograd.grad(torch.cummax(y, 1).values.sum(), y)[0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int32])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize(gpu_device, dtype, right):
    g = torch.Generator().manual_seed(0)
    sorted_rows = torch.randint(-20, 20, (3, 4, 50), generator=g).sort(-1).values.to(dtype)
    values = torch.randint(-25, 25, (3, 4, 30), generator=g).to(dtype)
    boundaries = torch.randint(-20, 20, (64,), generator=g).sort().values.to(dtype)
    cases = [
        lambda s, v, b: torch.searchsorted(s, v, right=right),
        lambda s, v, b: torch.searchsorted(s, v, side="right" if right else "left", out_int32=True),
        lambda s, v, b: torch.searchsorted(b, v, right=right),                         # 1-D for every row
        lambda s, v, b: torch.searchsorted(s.transpose(0, 1), v.transpose(0, 1), right=right),  # strided
        lambda s, v, b: torch.searchsorted(b, v[0, 0, 3], right=right),                # 0-dim value
        lambda s, v, b: torch.searchsorted(b, 3, right=right),                         # a number
        lambda s, v, b: torch.bucketize(v, b, right=right),
        lambda s, v, b: torch.bucketize(v, b, out_int32=True, right=right),
    ]
    for i, fn in enumerate(cases):
        with torch.hal.strict():
            actual = fn(sorted_rows.to(gpu_device), values.to(gpu_device), boundaries.to(gpu_device))
        expected = fn(sorted_rows, values, boundaries)
        assert actual.dtype == expected.dtype and torch.equal(actual.cpu(), expected), (i, dtype, right)


def test_searchsorted_sorter_nan_and_errors(gpu_device):
    g = torch.Generator().manual_seed(1)
    unsorted = torch.randn(5, 40, generator=g)
    sorter = unsorted.argsort(-1)
    values = torch.cat([torch.randn(5, 9, generator=g), torch.full((5, 1), NAN)], 1)
    for right in (False, True):
        with torch.hal.strict():
            actual = torch.searchsorted(unsorted.to(gpu_device), values.to(gpu_device), sorter=sorter.to(gpu_device),
                                        right=right)
        assert torch.equal(actual.cpu(), torch.searchsorted(unsorted, values, sorter=sorter, right=right))
    with torch.hal.strict():
        out = torch.empty(0, dtype=torch.int64, device=gpu_device)
        torch.searchsorted(unsorted.sort().values.to(gpu_device), values.to(gpu_device), out=out)
    assert torch.equal(out.cpu(), torch.searchsorted(unsorted.sort().values, values))
    with pytest.raises(RuntimeError, match="boundaries tensor should be 1 dimension or the first N-1"):
        torch.searchsorted(torch.zeros(2, 3, device=gpu_device), torch.zeros(3, 3, device=gpu_device))
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        torch.bucketize(torch.zeros(3, device=gpu_device), torch.zeros(2, 3, device=gpu_device))
