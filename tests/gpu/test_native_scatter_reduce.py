"""SCATTER's multiply, amax and amin (a compare-and-swap loop for every dtype: atomic_combine.cuh) through
scatter_reduce, index_reduce and the legacy scatter(reduce="multiply"), and 0-dim operands of gather and scatter
(ATen treats them as 1-D of one element), against PyTorch's CPU ops in strict mode."""
import pytest
import torch

from native_nn_helpers import ALL_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)

ORDER_FREE = ["amax", "amin"]  # exact whatever the order the atomics land in


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_amax_amin(gpu_device, native, dtype, reduce, include_self):
    low, high = (0.5, 1.5) if reduce == "prod" else (-3, 3)  # products of 9 factors stay in every dtype's range
    x, src = make((4, 6), dtype, 0, low, high), make((4, 9), dtype, 1, low, high)
    index = torch.randint(0, 6, (4, 9), generator=torch.Generator().manual_seed(2))
    with native():
        got = x.to(gpu_device).scatter_reduce(1, index.to(gpu_device), src.to(gpu_device), reduce,
                                              include_self=include_self)
    want = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
    if reduce in ORDER_FREE or not dtype.is_floating_point:
        assert torch.equal(got.cpu(), want), (got.cpu(), want)
    else:  # up to 10 factors, each product rounded to the dtype in whatever order the atomics land
        assert_close(got, want, k=10, magnitude=float(want.abs().max()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_amax_and_amin_let_nan_win(gpu_device, native, dtype):
    x = torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
    src = torch.tensor([float("nan"), 5.0, -1.0, 0.5], dtype=dtype)
    index = torch.tensor([0, 0, 2, 1])
    for reduce in ("amax", "amin"):
        with native():
            got = x.to(gpu_device).scatter_reduce(0, index.to(gpu_device), src.to(gpu_device), reduce)
        torch.testing.assert_close(got.cpu(), x.scatter_reduce(0, index, src, reduce), equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.int16])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(gpu_device, native, dtype, reduce, include_self):
    low, high = (0.5, 1.5) if reduce == "prod" else (-3, 3)
    x, source = make((5, 3, 4), dtype, 3, low, high), make((5, 7, 4), dtype, 4, low, high)
    index = torch.tensor([0, 2, 2, 1, 0, 2, 0])
    with native():
        got = x.to(gpu_device).index_reduce(1, index.to(gpu_device), source.to(gpu_device), reduce,
                                            include_self=include_self)
    want = x.index_reduce(1, index, source, reduce, include_self=include_self)
    if reduce in ORDER_FREE or not dtype.is_floating_point:
        assert torch.equal(got.cpu(), want), (got.cpu(), want)
    else:
        assert_close(got, want, k=8, magnitude=float(want.abs().max()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_legacy_scatter_multiply_and_add(gpu_device, native, dtype):
    x, src = make((3, 5), dtype, 5, 0.5, 1.5), make((3, 5), dtype, 6, 0.5, 1.5)
    index = torch.tensor([[0, 1, 2, 0, 1], [4, 4, 4, 3, 3], [1, 0, 1, 0, 1]])
    with native():
        got = x.to(gpu_device).scatter(1, index.to(gpu_device), src.to(gpu_device), reduce="multiply")
        got_value = x.to(gpu_device).scatter(1, index.to(gpu_device), 2, reduce="multiply")
    assert_close(got, x.scatter(1, index, src, reduce="multiply"), k=3, magnitude=4.0)
    assert_close(got_value, x.scatter(1, index, 2, reduce="multiply"), k=3, magnitude=4.0)
    with pytest.raises(RuntimeError, match="add or multiply"):
        x.to(gpu_device).scatter(1, index.to(gpu_device), src.to(gpu_device), reduce="max")


def test_zero_dim_gather_and_scatter(gpu_device, native):
    x, i = torch.tensor(3.5), torch.tensor(0)
    with native():
        g = torch.gather(x.to(gpu_device), 0, i.to(gpu_device))
        s = torch.zeros((), device=gpu_device).scatter_(0, i.to(gpu_device), x.to(gpu_device))
        a = torch.ones(4, device=gpu_device).scatter_add(0, i.to(gpu_device), x.to(gpu_device))
        leaf = x.to(gpu_device).requires_grad_()
        m, where = leaf.max(0)
        m.backward()  # max.dim's backward scatters into a 0-dim gradient
    assert g.dim() == 0 and g.item() == 3.5
    assert s.dim() == 0 and s.item() == 3.5
    assert torch.equal(a.cpu(), torch.tensor([4.5, 1.0, 1.0, 1.0]))
    assert m.item() == 3.5 and where.item() == 0 and leaf.grad.item() == 1.0
