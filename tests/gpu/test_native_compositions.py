"""Ops composed on hal from other native ops (csrc/torch/ops/data_movement_ops.cpp, comparison_reduction_ops.cpp,
range_ops.cpp, loss2d_ops.cpp, histc_ops.cpp, activation_composition_ops.cpp): flip, roll, narrow_copy, the pixel
and channel shuffles, eye, equal, nansum, aminmax, linspace, logspace, nll_loss2d, histc, threshold and hardtanh,
compared with the CPU over dtypes, layouts and corner cases, in strict mode."""
import pytest
import torch
import torch.nn.functional as F

from native_nn_helpers import ALL_DTYPES, FLOAT_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)

INT_DTYPES = [torch.int64, torch.int32, torch.int8, torch.uint8]
REAL_DTYPES = FLOAT_DTYPES + INT_DTYPES  # the ops that refuse bool on the CPU


def _layouts(x):
    """x as it is, transposed (non-contiguous) and sliced with a step (a storage offset and gaps)."""
    return {"contiguous": x, "transposed": x.transpose(0, -1), "strided": x[1::2]}


# ---- data movement ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dims", [(0,), (-1,), (0, 2), (1, 2, 0), ()])
def test_flip(gpu_device, native, dtype, dims):
    for name, x in _layouts(make((6, 5, 4), dtype)).items():
        with native():
            got = torch.flip(x.to(gpu_device), dims)
        assert_close(got, torch.flip(x, dims)), name


@pytest.mark.parametrize("dtype", [torch.float32, torch.bool])
def test_flip_corner_cases(gpu_device, native, dtype):
    x = make((3, 1, 4), dtype)
    with native():
        scalar = torch.flip(x[0, 0, 0].to(gpu_device), (0,))
        empty = torch.flip(x[:0].to(gpu_device), (0, 2))
        size_one = torch.flip(x.to(gpu_device), (1,))
        ud, lr = torch.flipud(x.to(gpu_device)), torch.fliplr(x.to(gpu_device))
    assert_close(scalar, x[0, 0, 0])
    assert empty.shape == (0, 1, 4)
    assert_close(size_one, x)
    assert_close(ud, torch.flipud(x))
    assert_close(lr, torch.fliplr(x))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        torch.flip(x.to(gpu_device), (0, -3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.flip(x.to(gpu_device), (3,))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shifts,dims", [(2, 0), (-3, -1), ((1, -7, 9), (0, 1, 2)), ((2, 3), (1, 1)), (-7, None),
                                         (5, 1), (0, 0)])
def test_roll(gpu_device, native, dtype, shifts, dims):
    for name, x in _layouts(make((6, 5, 4), dtype)).items():
        with native():
            got = torch.roll(x.to(gpu_device), shifts, dims)
        assert_close(got, torch.roll(x, shifts, dims)), name


def test_roll_corner_cases_and_gradient(gpu_device, native):
    x = make((4, 3), torch.float32)
    with native():
        empty = torch.roll(x[:, :0].to(gpu_device), 2, 0)
        scalar = torch.roll(x[0, 0].to(gpu_device), 3)
        leaf = x.to(gpu_device).requires_grad_()
        (torch.roll(leaf, (1, 2), (0, 1)) * torch.arange(12.0, device=gpu_device).view(4, 3)).sum().backward()
    assert empty.shape == (4, 0)
    assert_close(scalar, x[0, 0])
    ref = x.clone().requires_grad_()
    (torch.roll(ref, (1, 2), (0, 1)) * torch.arange(12.0).view(4, 3)).sum().backward()
    assert_close(leaf.grad, ref.grad)
    with pytest.raises(RuntimeError, match="must align"):
        torch.roll(x.to(gpu_device), (1, 2), (0,))
    with pytest.raises(IndexError):
        torch.roll(x[0, 0].to(gpu_device), 1, 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim,start,length", [(0, 1, 3), (1, -4, 2), (-1, 0, 0), (2, 4, 0)])
def test_narrow_copy(gpu_device, native, dtype, dim, start, length):
    for name, x in _layouts(make((6, 5, 4), dtype)).items():
        if x.shape[dim] < start + length or -x.shape[dim] > start:
            continue
        with native():
            got = torch.narrow_copy(x.to(gpu_device), dim, start, length)
        assert got.is_contiguous()
        assert_close(got, torch.narrow_copy(x, dim, start, length)), name
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        torch.narrow_copy(make((3,), dtype).to(gpu_device), 0, 2, 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(2, 12, 3, 5), (12, 3, 5), (2, 1, 12, 3, 5), (0, 12, 3, 5)])
def test_pixel_shuffle_round_trip(gpu_device, native, dtype, shape):
    x = make(shape, dtype)
    layouts = {"contiguous": x}
    if x.dim() == 4:
        layouts["channels_last"] = x.to(memory_format=torch.channels_last)
    for name, x in layouts.items():
        with native():
            up = F.pixel_shuffle(x.to(gpu_device), 2)
            down = F.pixel_unshuffle(up, 2)
            up_odd = F.pixel_unshuffle(F.pixel_shuffle(x.to(gpu_device), 1), 1)
        want = F.pixel_shuffle(x, 2)
        assert_close(up, want), name
        assert up.stride() == want.stride(), name  # channels-last stays channels-last, as on the CPU
        assert_close(down, x), name
        assert_close(up_odd, x), name


def test_pixel_shuffle_errors(gpu_device):
    x = make((2, 3, 4, 4), torch.float32).to(gpu_device)
    with pytest.raises(RuntimeError, match="divisible by the square"):
        F.pixel_shuffle(x, 2)
    with pytest.raises(RuntimeError, match="positive upscale_factor"):
        F.pixel_shuffle(x, 0)
    with pytest.raises(RuntimeError, match="height to be divisible"):
        F.pixel_unshuffle(x[:, :, :3], 2)
    with pytest.raises(RuntimeError, match="at least 3 dimensions"):
        F.pixel_shuffle(x[0, 0], 1)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape,groups", [((2, 12, 3, 5), 3), ((3, 8, 7), 4), ((2, 6, 2, 3, 2), 2), ((0, 6, 3), 2)])
def test_channel_shuffle(gpu_device, native, dtype, shape, groups):
    x = make(shape, dtype)
    layouts = {"contiguous": x, "strided": x[..., ::2]}
    if x.dim() == 4:
        layouts["channels_last"] = x.to(memory_format=torch.channels_last)
    for name, x in layouts.items():
        with native():
            got = F.channel_shuffle(x.to(gpu_device), groups)
        assert_close(got, F.channel_shuffle(x, groups)), name
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(make((2, 5, 3), dtype).to(gpu_device), 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n,m", [(4, None), (3, 5), (5, 3), (0, 3), (1, 1)])
def test_eye(gpu_device, native, dtype, n, m):
    with native():
        got = torch.eye(n, dtype=dtype, device=gpu_device) if m is None else torch.eye(n, m, dtype=dtype,
                                                                                      device=gpu_device)
        out = torch.empty((7, 2), dtype=dtype, device=gpu_device)  # resized by eye
        torch.eye(n, m if m is not None else n, out=out)
    want = torch.eye(n, dtype=dtype) if m is None else torch.eye(n, m, dtype=dtype)
    assert_close(got, want)
    assert_close(out, torch.eye(n, m if m is not None else n, dtype=dtype))
    with pytest.raises(RuntimeError, match="must be greater or equal to 0"):
        torch.eye(-1, device=gpu_device)


# ---- comparisons and reductions --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_equal(gpu_device, native, dtype):
    x = make((5, 7), dtype)
    other = make((5, 7), dtype, seed=1)
    changed = x.clone()
    changed[4, 6] = (not bool(x[4, 6])) if dtype == torch.bool else x[4, 6] + 1
    with native():
        dx = x.to(gpu_device)
        results = dict(same=torch.equal(dx, x.clone().to(gpu_device)),
                       strided=torch.equal(dx.t().contiguous().t(), dx),
                       changed=torch.equal(dx, changed.to(gpu_device)),
                       other=torch.equal(dx, other.to(gpu_device)),
                       shape=torch.equal(dx, dx[:4]),
                       empty=torch.equal(dx[:0], dx[:0]))
    assert results == dict(same=True, strided=True, changed=False, other=torch.equal(x, other), shape=False,
                           empty=True)
    if dtype.is_floating_point:
        nan = x.clone()
        nan[1, 1] = float("nan")
        with native():
            assert not torch.equal(nan.to(gpu_device), nan.to(gpu_device))  # a NaN equals nothing, as on the CPU


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 1), True), (-1, True)])
def test_nansum(gpu_device, native, dtype, dim, keepdim):
    x = make((6, 9), dtype)
    if dtype.is_floating_point:
        x[0, 0], x[3, 5], x[5, :] = float("nan"), float("nan"), float("nan")
    for name, x in {"contiguous": x, "transposed": x.t()}.items():
        with native():
            got = torch.nansum(x.to(gpu_device), dim=dim, keepdim=keepdim)
        assert_close(got, torch.nansum(x, dim=dim, keepdim=keepdim), k=x.numel(), magnitude=30.0), name


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nansum_dtype_and_out(gpu_device, native, dtype):
    x = make((4, 5), dtype)
    x[1, 1] = float("nan")
    with native():
        promoted = torch.nansum(x.to(gpu_device), 1, dtype=torch.float64)
        out = torch.empty(0, dtype=dtype, device=gpu_device)
        torch.nansum(x.to(gpu_device), 0, out=out)
    assert_close(promoted, torch.nansum(x, 1, dtype=torch.float64), k=5, magnitude=3.0)
    assert_close(out, torch.nansum(x, 0), k=4, magnitude=3.0)
    with pytest.raises(RuntimeError, match="complex"):
        torch.nansum(torch.ones(2, dtype=torch.complex64, device=gpu_device))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (-1, True)])
def test_aminmax(gpu_device, native, dtype, dim, keepdim):
    for name, x in _layouts(make((6, 5, 4), dtype)).items():
        with native():
            lo, hi = torch.aminmax(x.to(gpu_device), dim=dim, keepdim=keepdim)
        want_lo, want_hi = torch.aminmax(x, dim=dim, keepdim=keepdim)
        assert_close(lo, want_lo), name
        assert_close(hi, want_hi), name


def test_aminmax_corner_cases(gpu_device, native):
    x = make((0, 3), torch.float32)
    with native():
        lo, hi = torch.aminmax(x.to(gpu_device), dim=1)
        slo, shi = torch.aminmax(torch.tensor(2.5, device=gpu_device), dim=0)
        out = (torch.empty(0, device=gpu_device), torch.empty(0, device=gpu_device))
        torch.aminmax(make((3, 4), torch.float32).to(gpu_device), dim=1, out=out)
    assert lo.shape == hi.shape == (0,)
    assert (slo.item(), shi.item()) == (2.5, 2.5)
    assert_close(out[0], make((3, 4), torch.float32).amin(1))
    assert_close(out[1], make((3, 4), torch.float32).amax(1))
    with pytest.raises(RuntimeError, match="aminmax"):
        torch.aminmax(x.to(gpu_device))
    with pytest.raises(IndexError, match="non-zero size"):
        torch.aminmax(x.to(gpu_device), dim=0)


# ---- ranges ----------------------------------------------------------------------------------------------------

RANGE_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32]


@pytest.mark.parametrize("dtype", RANGE_DTYPES)
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 10, 15, 100, 1001])
@pytest.mark.parametrize("start,end", [(0, 1), (-3.5, 7.25), (10, -10), (3, 300)])
def test_linspace(gpu_device, native, dtype, steps, start, end):
    with native():
        got = torch.linspace(start, end, steps, dtype=dtype, device=gpu_device)
        out = torch.empty((3, 4), dtype=dtype, device=gpu_device).t()  # resized
        torch.linspace(start, end, steps, out=out)
    want = torch.linspace(start, end, steps, dtype=dtype)
    # Element for element the CPU's formula (ends exact); the CPU's vectorized path (long outputs) rounds its own
    # way, an ulp off for floating dtypes and, for integer dtypes, a truncation off by one.
    if dtype.is_floating_point:
        assert_close(got, want, magnitude=max(abs(start), abs(end)))
        assert_close(out, want, magnitude=max(abs(start), abs(end)))
    else:
        assert got.dtype == dtype and got.shape == want.shape
        assert (got.cpu() - want).abs().max().item() <= 1 if steps else True
    if steps:
        assert got[0].item() == want[0].item() and got[-1].item() == want[-1].item()


@pytest.mark.parametrize("dtype", RANGE_DTYPES)
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("start,end,base", [(0, 3, 10.0), (-2.5, 4, 2.0), (3, -3, 0.5)])
def test_logspace(gpu_device, native, dtype, steps, start, end, base):
    with native():
        got = torch.logspace(start, end, steps, base=base, dtype=dtype, device=gpu_device)
    want = torch.logspace(start, end, steps, base=base, dtype=dtype)
    if dtype.is_floating_point:
        torch.testing.assert_close(got.cpu(), want, rtol=4 * torch.finfo(dtype).eps, atol=0)
    else:  # the exponents and powers in double, truncated as the CPU truncates them
        assert torch.equal(got.cpu(), want)


def test_linspace_errors(gpu_device):
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.linspace(0, 1, -1, device=gpu_device)


# ---- losses and activations ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_nll_loss2d_and_backward(gpu_device, native, dtype, reduction, weighted, ignore_index):
    x = make((2, 5, 3, 4), dtype)
    target = torch.randint(0, 5, (2, 3, 4), generator=torch.Generator().manual_seed(1))
    weight = make((5,), dtype, seed=2, low=0.5, high=2) if weighted else None
    for name, x in {"contiguous": x, "channels_last": x.to(memory_format=torch.channels_last)}.items():
        leaf = x.to(gpu_device).requires_grad_()
        with native():
            loss = F.cross_entropy(leaf, target.to(gpu_device), weight=None if weight is None else
                                   weight.to(gpu_device), reduction=reduction, ignore_index=ignore_index)
            loss.backward(torch.ones_like(loss))
        ref = x.float().requires_grad_()
        want = F.cross_entropy(ref, target, weight=None if weight is None else weight.float(),
                               reduction=reduction, ignore_index=ignore_index)
        want.backward(torch.ones_like(want))
        assert_close(loss, want.to(dtype), k=24, magnitude=8.0), name
        assert_close(leaf.grad, ref.grad.to(dtype), k=24, magnitude=2.0), name


def test_nll_loss2d_all_ignored_and_errors(gpu_device, native):
    x = make((1, 3, 2, 2), torch.float32)
    target = torch.ones((1, 2, 2), dtype=torch.long)
    with native():
        got = F.nll_loss(x.to(gpu_device), target.to(gpu_device), ignore_index=1)
    assert_close(got, F.nll_loss(x, target, ignore_index=1))  # 0 / 0: NaN, as on the CPU
    with pytest.raises(RuntimeError, match="size mismatch"):
        torch.ops.aten.nll_loss2d_forward(x.to(gpu_device), target[:, :1].to(gpu_device), None, 1, -100)
    with pytest.raises(RuntimeError, match="weight tensor should be defined"):
        torch.ops.aten.nll_loss2d_forward(x.to(gpu_device), target.to(gpu_device), torch.ones(2, device=gpu_device),
                                          1, -100)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("bins,low,high", [(100, 0, 0), (7, -2, 5), (5, -1.5, 3.7), (4, 3, 3), (1, -10, 10)])
def test_histc_float(gpu_device, native, dtype, bins, low, high):
    # 200 elements: counts stay exact in float16 / bfloat16, which the CPU accumulates them in (hal counts in int64).
    x = make((10, 20), dtype, low=-4, high=4)
    if low != high:  # (a NaN makes the data's own range NaN, which both refuse)
        x[0, :3] = torch.tensor([low, high, float("nan")], dtype=dtype)  # both edges are counted, NaN is not
    for name, x in {"contiguous": x, "transposed": x.t()}.items():
        with native():
            got = torch.histc(x.to(gpu_device), bins, low, high)
        assert_close(got, torch.histc(x, bins, low, high)), name


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("bins,low,high", [(8, 0, 7), (100, 0, 0), (3, 1, 6), (6, 0, 12)])
def test_histc_integer_as_cuda(gpu_device, native, dtype, bins, low, high):
    # The CPU refuses integer inputs; CUDA's kernel bins them in integer arithmetic, which float64 reproduces for
    # these small integers (the router of mixtral / qwen2_moe counts expert indices this way).
    x = torch.randint(0, 13, (64, 2), generator=torch.Generator().manual_seed(3)).to(dtype)
    with native():
        got = torch.histc(x.to(gpu_device), bins, low, high)
    want = torch.histc(x.double(), bins, low, high)
    assert got.dtype == dtype
    assert torch.equal(got.cpu(), want.to(dtype))


def test_histc_corner_cases(gpu_device, native):
    x = make((10,), torch.float32)
    with native():
        empty = torch.histc(x[:0].to(gpu_device), 5)
        constant = torch.histc(x[:1].expand(6).to(gpu_device), 4)
        out = torch.empty(0, device=gpu_device)
        torch.histc(x.to(gpu_device), 6, out=out)
    assert_close(empty, torch.zeros(5))
    assert_close(constant, torch.histc(x[:1].expand(6), 4))
    assert_close(out, torch.histc(x, 6))
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        torch.histc(x.to(gpu_device), 4, 2, 1)
    with pytest.raises(RuntimeError, match="not finite"):
        torch.histc(x.to(gpu_device), 4, 0, float("inf"))
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(x.to(gpu_device), 0)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("threshold,value", [(0.5, -2), (-0.5, 7), (1, 0)])
def test_threshold(gpu_device, native, dtype, threshold, value):
    if dtype == torch.uint8 and (threshold < 0 or value < 0):
        return
    x = make((6, 7), dtype)
    if dtype.is_floating_point:
        x[0, 0] = float("nan")
    for name, x in _layouts(x).items():
        with native():
            got = F.threshold(x.to(gpu_device), threshold, value)
            inplace = F.threshold(x.to(gpu_device), threshold, value, inplace=True)
            out = torch.empty(0, dtype=dtype, device=gpu_device)
            torch.threshold(x.to(gpu_device), threshold, value, out=out)
        want = F.threshold(x, threshold, value)
        assert_close(got, want), name
        assert_close(inplace, want), name
        assert_close(out, want), name


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("low,high", [(-1, 1), (0, 6), (0.5, 6.5)])
def test_hardtanh(gpu_device, native, dtype, low, high):
    if dtype == torch.uint8 and low < 0:
        with pytest.raises(RuntimeError, match="negative limits"):
            F.hardtanh(make((3,), dtype).to(gpu_device), low, high)
        return
    for name, x in _layouts(make((6, 7), dtype)).items():
        with native():
            got = F.hardtanh(x.to(gpu_device), low, high)
            inplace = F.hardtanh(x.to(gpu_device), low, high, inplace=True)
        assert_close(got, F.hardtanh(x, low, high)), name
        assert_close(inplace, F.hardtanh(x, low, high)), name


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_hardtanh_backward(gpu_device, native, dtype):
    x = make((6, 7), dtype)
    x[1, 1], x[1, 2] = -1, 1  # on the limits: no gradient
    grad = make((6, 7), dtype, seed=1)
    leaf = x.to(gpu_device).requires_grad_()
    with native():
        F.relu6(leaf * 2).backward(grad.to(gpu_device))
        direct = torch.ops.aten.hardtanh_backward(grad.to(gpu_device), x.to(gpu_device), -1, 1)
    ref = x.clone().requires_grad_()
    F.relu6(ref * 2).backward(grad)
    assert_close(leaf.grad, ref.grad)
    assert_close(direct, torch.ops.aten.hardtanh_backward(grad, x, -1, 1))
