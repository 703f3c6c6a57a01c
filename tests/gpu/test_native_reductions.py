"""Native reductions of the GPU kernel library against PyTorch's CPU results, in strict mode."""
import pytest
import torch

from test_native_elementwise import make, run_both

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
SHAPES_DIMS = [((), None), ((0,), None), ((7, 13), None), ((7, 13), 0), ((7, 13), 1), ((7, 13), (0, 1)),
               ((3, 5, 7), 1), ((3, 5, 7), (0, 2)), ((1 << 21,), None), ((4096, 256), 0), ((256, 4096), 1),
               ((3, 1 << 18), 0), ((1 << 18, 3), 1), ((0, 5), 1)]


@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32, torch.uint8, torch.bool])
def test_sum(gpu_device, dtype, shape, dim):
    x = make(shape, dtype, -1, 1)
    # Each dtype's own tolerance: a float16/bfloat16 sum of 2^21 values may differ from CPU's by the last
    # bit of the rounded result (another summation order), which is within it.
    run_both(lambda t: t.sum() if dim is None else t.sum(dim), x, device=gpu_device)
    run_both(lambda t: t.sum(dim if dim is not None else (), keepdim=True, dtype=torch.float64), x,
             device=gpu_device)


@pytest.mark.parametrize("shape,dim", [s for s in SHAPES_DIMS if 0 not in s[0]])
@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_var_std(gpu_device, dtype, shape, dim):
    x = make(shape, dtype)
    d = dim if dim is not None else None
    run_both(lambda t: t.mean(d) if d is not None else t.mean(), x, device=gpu_device)
    if x.numel() > 1:
        run_both(lambda t: t.var(d), x, device=gpu_device)
        run_both(lambda t: t.std(d, correction=0, keepdim=True), x, device=gpu_device)
        run_both(lambda t: torch.var_mean(t, d)[0], x, device=gpu_device)


@pytest.mark.parametrize("shape,dim", [s for s in SHAPES_DIMS if 0 not in s[0]])
@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32, torch.int8, torch.bool])
def test_extrema(gpu_device, dtype, shape, dim):
    x = make(shape, dtype, -100, 100)
    if dim is None:
        run_both(torch.amax, x, device=gpu_device)
        run_both(torch.max, x, device=gpu_device)
        run_both(torch.min, x, device=gpu_device)
        if dtype != torch.bool:
            run_both(torch.argmax, x, device=gpu_device)
            run_both(lambda t: torch.argmin(t, keepdim=True), x, device=gpu_device)
    else:
        run_both(lambda t: torch.amin(t, dim), x, device=gpu_device)
        if isinstance(dim, int) and dtype != torch.bool:
            run_both(lambda t: t.max(dim).values, x, device=gpu_device)
            run_both(lambda t: t.argmax(dim), x, device=gpu_device)
            run_both(lambda t: t.argmin(dim, keepdim=True), x, device=gpu_device)


def test_nan_and_ties(gpu_device):
    x = torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, 5.0, 1.0]])
    for fn in [lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t.argmax(1), lambda t: t.argmin(1),
               lambda t: t.max(1).indices, lambda t: t.sum(1), torch.max]:
        run_both(fn, x, device=gpu_device)


def test_prod_and_noncontiguous(gpu_device):
    x = make((6, 10), torch.float64, 0.5, 1.5)
    run_both(torch.prod, x, device=gpu_device)
    run_both(lambda t: t.prod(1), x, device=gpu_device)
    run_both(lambda t: t.t().sum(0), x, device=gpu_device)
    run_both(lambda t: t[:, ::3].sum(), x, device=gpu_device)
    run_both(lambda t: t.prod(0, dtype=torch.float32), x, device=gpu_device)
    run_both(lambda t: t.to(torch.int64).prod(1), x * 3, device=gpu_device)


def test_out_variants_and_errors(gpu_device):
    x = make((7, 13), torch.float32).to(gpu_device)
    out = torch.empty(0, device=gpu_device)
    with torch.hal.strict():
        torch.sum(x, 1, out=out)
        torch.hal.synchronize(gpu_device)
    torch.testing.assert_close(out.cpu(), x.cpu().sum(1))
    with pytest.raises(RuntimeError, match="non-zero size"):
        torch.empty(0, 3, device=gpu_device).amax(0)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.ones(3, dtype=torch.int64, device=gpu_device).var()
