"""Indexing ops of complex64 and bool tensors and torch.hash_tensor on a GPU, against PyTorch's CPU results in
strict mode (any op reaching the CPU fallback fails). The parts the OpenCL test (tests/python/
test_opencl_indexing_compositions.py) cannot reach, needing atomics: complex accumulation over the real views
(index_add, scatter_add, scatter(reduce="add"), put_ / index_put_ with accumulate; complex_data_movement.h), bool
accumulation as the CPU's logical or through int32 sums (index_add, put_ and index_put_ with accumulate,
_unsafe_masked_index_put_accumulate, scatter_reduce "sum"), and hash_tensor of float16 / bfloat16 / float64."""
import pytest
import torch

from test_native_elementwise import check, make

GEN = torch.Generator().manual_seed(0)


def cplx(*shape):
    return torch.complex(torch.randn(shape, generator=GEN), torch.randn(shape, generator=GEN))


def flags(*shape):
    return torch.randint(0, 2, shape, generator=GEN).bool()


def on(device, *tensors):
    return [t.to(device) for t in tensors]


def same(actual, expected):
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert torch.equal(actual, expected)


# Duplicate positions: the sums' order differs from the CPU's, so complex accumulations compare with float32's
# tolerance (check's dtype argument); bool results are exact.
DUPLICATES = torch.tensor([3, 0, 3, 1, 0, 3])


def test_complex_index_add_forms(gpu_device):
    x, src = cplx(5, 4), cplx(5, 6)
    z, zs = cplx(1).reshape(()), cplx(1).reshape(())
    with torch.hal.strict():
        xd, srcd, idx, zd, zsd = on(gpu_device, x, src, DUPLICATES, z, zs)
        got = xd.index_add(1, idx, srcd)
        got_alpha = xd.index_add(1, idx, srcd, alpha=2 - 1j)
        got_conj = xd.index_add(1, idx, srcd.conj())
        inplace = xd.clone()
        inplace.index_add_(1, idx, srcd)
        out = torch.empty(0, dtype=torch.complex64, device=gpu_device)
        torch.index_add(xd, 1, idx, srcd, out=out)
        zero_dim = zd.index_add(0, idx[1:2], zsd)
    check(got, x.index_add(1, DUPLICATES, src), torch.float32)
    check(got_alpha, x.index_add(1, DUPLICATES, src, alpha=2 - 1j), torch.float32)
    check(got_conj, x.index_add(1, DUPLICATES, src.conj()), torch.float32)
    check(inplace, x.index_add(1, DUPLICATES, src), torch.float32)
    check(out, x.index_add(1, DUPLICATES, src), torch.float32)
    check(zero_dim, z.index_add(0, DUPLICATES[1:2], zs), torch.float32)


def test_complex_scatter_add_and_reduce_add(gpu_device):
    x, src = cplx(4, 5), cplx(6, 5)
    index = torch.randint(0, 4, (6, 5), generator=GEN)
    with torch.hal.strict():
        xd, srcd, idx = on(gpu_device, x, src, index)
        added = xd.scatter_add(0, idx, srcd)
        reduced = xd.scatter(0, idx, srcd, reduce="add")
        value = xd.scatter(0, idx, 1 + 2j, reduce="add")
        inplace = xd.clone()
        inplace.scatter_add_(0, idx, srcd.conj())
    check(added, x.scatter_add(0, index, src), torch.float32)
    check(reduced, x.scatter(0, index, src, reduce="add"), torch.float32)
    check(value, x.scatter(0, index, 1 + 2j, reduce="add"), torch.float32)
    check(inplace, x.scatter_add(0, index, src.conj()), torch.float32)


def test_complex_accumulating_put_and_index_put(gpu_device):
    x, vals = cplx(4, 5), cplx(6)
    flat = torch.tensor([0, 19, 0, -1, 7, 7])
    rows, cols = torch.tensor([0, 3, 0, 1, 0, 3]), torch.tensor([1, 2, 1, 4, 1, 2])
    with torch.hal.strict():
        xd, valsd, flatd, rowsd, colsd = on(gpu_device, x, vals, flat, rows, cols)
        put = xd.put(flatd, valsd, accumulate=True)
        index_put = xd.index_put((rowsd, colsd), valsd, accumulate=True)
        row_put = xd.index_put((rowsd,), cplx(5).to(gpu_device).expand(6, 5), accumulate=True)
    check(put, x.put(flat, vals, accumulate=True), torch.float32)
    check(index_put, x.index_put((rows, cols), vals, accumulate=True), torch.float32)
    assert row_put.shape == x.shape


@pytest.mark.parametrize("alpha", [True, False, 1])
def test_bool_index_add_is_a_logical_or(gpu_device, alpha):
    x, src = flags(5, 4), flags(5, 6)
    with torch.hal.strict():
        xd, srcd, idx = on(gpu_device, x, src, DUPLICATES)
        got = xd.index_add(1, idx, srcd, alpha=alpha)
        inplace = xd.clone()
        inplace.index_add_(1, idx, srcd, alpha=alpha)
        out = torch.empty(0, dtype=torch.bool, device=gpu_device)
        torch.index_add(xd, 1, idx, srcd, alpha=alpha, out=out)
        transposed = xd.t().clone().t()  # a column-major self
        transposed.index_add_(0, idx[:3], srcd[:3, :4], alpha=alpha)
    want = x.index_add(1, DUPLICATES, src, alpha=alpha)
    same(got, want)
    same(inplace, want)
    same(out, want)
    same(transposed, x.index_add(0, DUPLICATES[:3], src[:3, :4], alpha=alpha))


def test_bool_accumulating_index_put_put_and_masked_accumulate(gpu_device):
    x, vals = flags(4, 5), flags(6)
    rows, cols = torch.tensor([0, 3, 0, 1, 0, 3]), torch.tensor([1, 2, 1, 4, 1, 2])
    flat = torch.tensor([0, 19, 0, -1, 7, 7])
    mask = flags(4, 5)
    with torch.hal.strict():
        xd, valsd, rowsd, colsd, flatd, maskd = on(gpu_device, x, vals, rows, cols, flat, mask)
        index_put = xd.index_put((rowsd, colsd), valsd, accumulate=True)
        scalar_put = xd.index_put((rowsd, colsd), torch.tensor(True), accumulate=True)  # a CPU 0-dim value
        masked = xd.clone()
        masked.index_put_((maskd,), valsd[:1].expand(int(mask.sum())), accumulate=True)
        put = xd.put(flatd, valsd, accumulate=True)
        put_t = xd.t().clone()  # a non-contiguous self: put_ writes through an int32 copy
        put_t_view = put_t.t()
        put_t_view.put_(flatd, valsd, accumulate=True)
        unsafe = torch.ops.aten._unsafe_masked_index_put_accumulate(
            xd, maskd[:2, :3], [rowsd[:2].view(2, 1), colsd[:3].view(1, 3)], valsd[:6].view(2, 3))
    same(index_put, x.index_put((rows, cols), vals, accumulate=True))
    same(scalar_put, x.index_put((rows, cols), torch.tensor(True), accumulate=True))
    same(masked, x.index_put((mask,), vals[:1].expand(int(mask.sum())), accumulate=True))
    same(put, x.put(flat, vals, accumulate=True))
    same(put_t_view, x.put(flat, vals, accumulate=True))
    same(unsafe, torch.ops.aten._unsafe_masked_index_put_accumulate(
        x, mask[:2, :3], [rows[:2].view(2, 1), cols[:3].view(1, 3)], vals[:6].view(2, 3)))


@pytest.mark.parametrize("include_self", [True, False])
def test_bool_scatter_reduce_sum_is_a_logical_or(gpu_device, include_self):
    x, src = flags(4, 5), flags(6, 5)
    index = torch.randint(0, 4, (6, 5), generator=GEN)
    with torch.hal.strict():
        xd, srcd, idx = on(gpu_device, x, src, index)
        got = xd.scatter_reduce(0, idx, srcd, "sum", include_self=include_self)
        inplace = xd.clone()
        inplace.scatter_reduce_(0, idx, srcd, "sum", include_self=include_self)
        out = torch.empty(0, dtype=torch.bool, device=gpu_device)
        torch.scatter_reduce(xd, 0, idx, srcd, "sum", include_self=include_self, out=out)
    want = x.scatter_reduce(0, index, src, "sum", include_self=include_self)
    same(got, want)
    same(inplace, want)
    same(out, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64,
                                   torch.int32, torch.int8, torch.uint8, torch.bool])
def test_hash_tensor_equals_the_cpu_exactly(gpu_device, dtype):
    x = make((6, 7, 5), dtype, -1000, 1000)
    if dtype.is_floating_point:
        x[0, 0, 1], x[0, 0, 2] = -float("inf"), -0.0
    cases = [((), False), ((1,), False), ((0, 2), True), ((-1,), True), ((2, 0, 1), False)]
    for t in (x, x.transpose(0, 2), x[:, 1:, ::2]):
        with torch.hal.strict():
            got = [torch.hash_tensor(t.to(gpu_device), dim, keepdim=keepdim) for dim, keepdim in cases]
        for g, (dim, keepdim) in zip(got, cases):
            same(g, torch.hash_tensor(t, dim, keepdim=keepdim))
    big = make(((1 << 20) + 3,), dtype, -1000, 1000)  # many halvings, odd lengths
    with torch.hal.strict():
        got = torch.hash_tensor(big.to(gpu_device))
    same(got, torch.hash_tensor(big))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_hash_tensor_of_nan_widens_as_on_the_cpu(gpu_device, dtype, request):
    # The CPU widens a quiet NaN to double keeping its payload (0x7ff8... for the default NaN); a device conversion
    # that made every NaN one canonical pattern would hash differently.
    if dtype == torch.float16 and torch.hal.get_device_properties(gpu_device).vendor in ("nvidia", "amd"):
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "measured on the H200: the GPU's float16 widening does not keep -NaN's bits as the CPU's does, so "
            "hash_tensor of a negative float16 NaN differs (a known gap, see the issue 39 note)")))
    x = torch.tensor([float("nan"), -float("nan"), 1.0], dtype=dtype)
    with torch.hal.strict():
        got = [torch.hash_tensor(x[i:i + 1].to(gpu_device)) for i in range(2)]
    for i, g in enumerate(got):
        same(g, torch.hash_tensor(x[i:i + 1]))
