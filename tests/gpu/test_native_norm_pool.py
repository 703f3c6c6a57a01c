"""Native GPU kernels for batch norm, group norm, RMS norm, 2-D pooling and 2-D upsampling (ops 900..999 of
adapter.h), compared with the CPU, forward and backward through autograd on both devices, in strict mode so
that a fallback fails the test (the `native` fixture). float16/bfloat16 results are compared with the CPU's
float32 results on the same (exactly upcast) inputs, rounded to the dtype: that is what the kernels compute
(float32 accumulation), while the CPU's own half kernels round at other places. Skips without a GPU."""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from native_nn_helpers import (FLOAT_DTYPES, assert_close, make, native,  # noqa: F401  (fixtures)
                               norm_bounds, norm_tolerances)

REDUCED = (torch.float16, torch.bfloat16)


def _forward_backward(fn, inputs, device, grads=None, upcast=False, differentiate=None):
    """fn(*inputs) on `device`; then backward with `grads` (made here when None) through every floating
    output that requires grad. `upcast`: float16/bfloat16 inputs become float32 (the reference run).
    `differentiate`: which inputs get gradients (default: every floating input)."""
    leaves = []
    for k, t in enumerate(inputs):
        t = t.detach()
        if upcast and t.dtype in REDUCED:
            t = t.float()
        wants_grad = t.is_floating_point() and (differentiate is None or k in differentiate)
        leaves.append(t.to(device).requires_grad_(wants_grad))
    out = fn(*leaves)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    diff = [o for o in outs if o.is_floating_point() and o.requires_grad]
    if diff:
        if grads is None:
            grads = [make(o.shape, o.dtype, seed=11 + k) for k, o in enumerate(diff)]
        torch.autograd.backward(diff, [g.to(device=device, dtype=o.dtype) for g, o in zip(grads, diff)])
    return [o.detach() for o in outs], [leaf.grad for leaf in leaves if leaf.requires_grad], grads


def _per_tensor(spec, n):
    """A (k, magnitude) for each of n compared tensors: one pair for all, or a list of pairs."""
    return [spec] * n if isinstance(spec, tuple) else list(spec)


def check(gpu_device, native, fn, inputs, out=(1, 3.0), grads=(1, 3.0), differentiate=None, exact_outputs=()):
    """Runs fn natively on the GPU and as the float reference on the CPU, and compares outputs and input
    gradients. Outputs listed in `exact_outputs` (by position) must be equal (indices, selected maxima,
    copies). `out` and `grads`: (k, magnitude) of each compared output and gradient, or one pair for all: the
    result sums k terms each at most `magnitude` in size, which sets atol (native_nn_helpers.tol); rtol is a
    few ulps of the dtype whatever the problem. The defaults fit an elementwise result of inputs and upstream
    gradients in [-3, 3] (`make`'s default range)."""
    with native():
        got, got_grads, upstream = _forward_backward(fn, inputs, gpu_device, differentiate=differentiate)
    want, want_grads, _ = _forward_backward(fn, inputs, "cpu", grads=upstream, upcast=True, differentiate=differentiate)
    assert len(got) == len(want)
    for i, (g, w, (k, m)) in enumerate(zip(got, want, _per_tensor(out, len(got)))):
        if i in exact_outputs:
            assert torch.equal(g.cpu(), w.to(g.dtype)), i
        else:
            assert_close(g, w.to(g.dtype), k=k, magnitude=m)
    assert len(got_grads) == len(want_grads)
    for g, w, (k, m) in zip(got_grads, want_grads, _per_tensor(grads, len(got_grads))):
        assert_close(g, w.to(g.dtype), k=k, magnitude=m)
    return got, got_grads


def l1_tolerances(fn, inputs, dy_max=3.0):
    """For an op linear in its input (average pools, upsampling): (1, B) for each output and input gradient,
    where B is the largest sum of |terms| of one element (fn on |x|, and its backward from an upstream gradient
    of dy_max everywhere, in float64). Both sides accumulate in float32 and round once, so they differ by at
    most rtol * |result| + rtol * B (the classical forward error bound of a sum, at a few ulps)."""
    leaves = [t.detach().double().abs().requires_grad_() for t in inputs]
    out = fn(*leaves)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    torch.autograd.backward(outs, [torch.full_like(o, dy_max) for o in outs])
    bound = lambda t: max(t.detach().abs().max().item(), 1e-30) if t.numel() else 1.0
    return [(1, bound(o)) for o in outs], [(1, bound(t.grad)) for t in leaves]


# ---- batch norm ------------------------------------------------------------------------------------------
BN_SHAPES = [(2, 3), (7, 5, 9), (1, 4, 5, 5), (8, 16, 13, 11), (3, 4, 2, 3, 5), (300, 24), (2, 8, 64, 64)]


def _bn_fn(training, momentum=0.1, eps=1e-5, param_dtype=None, channels_last=False):
    def fn(x, w, b, rm, rv):
        if channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        rm, rv = rm.detach().clone(), rv.detach().clone()  # updated in place: fresh per run
        y = F.batch_norm(x, rm, rv, w, b, training=training, momentum=momentum, eps=eps)
        return y, rm, rv
    return fn


def _bn_inputs(shape, dtype, param_dtype, affine=True):
    C = shape[1]
    x = make(shape, dtype, low=-2, high=5)  # a mean away from 0
    w = make((C,), param_dtype, low=0.5, high=2, seed=2) if affine else None
    b = make((C,), param_dtype, seed=3) if affine else None
    rm = make((C,), param_dtype, seed=4, low=-1, high=1)
    rv = make((C,), param_dtype, seed=5, low=0.5, high=2)
    return x, w, b, rm, rv


def bn_tolerances(x, w, b, rm, rv, training, momentum=0.1):
    """(k, magnitude) of batch norm's outputs (y, running mean, running var) and of its gradients (x, and
    w and b when given), from the data (norm_bounds, norm_tolerances). The running statistics are one blend
    (1 - momentum) * old + momentum * new of terms at most as large as the old and the new statistics."""
    C = x.shape[1]
    dims = [d for d in range(x.dim()) if d != 1]
    view = [C if d == 1 else 1 for d in range(x.dim())]
    stats = {} if training else dict(mean=rm.double().view(view), var=rv.double().view(view))
    x_hat, invstd = norm_bounds(x, dims, **stats)
    count = x.numel() // C
    t = norm_tolerances(x_hat, invstd, w.abs().max().item() if w is not None else 1.0,
                        b.abs().max().item() if b is not None else 0.0, count)
    xd = x.double()
    var_max = max(rv.double().abs().max().item(), xd.var(dim=dims).max().item() if count > 1 else 0.0)
    out = [t["y"], (2, max(rm.double().abs().max().item(), xd.mean(dim=dims).abs().max().item())), (2, var_max)]
    grads = [t["dx"]] + ([t["dw"], t["db"]] if w is not None else [])
    return out, grads


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_cpu(gpu_device, native, dtype, shape, training):
    x, w, b, rm, rv = _bn_inputs(shape, dtype, dtype)
    out, grads = bn_tolerances(x, w, b, rm, rv, training)
    check(gpu_device, native, lambda x, w, b, rm, rv: _bn_fn(training)(x, w, b, rm, rv), [x, w, b, rm, rv],
          out=out, grads=grads, differentiate={0, 1, 2})


@pytest.mark.parametrize("dtype", REDUCED)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_mixed_precision(gpu_device, native, dtype, training):
    """float16/bfloat16 input with float32 weight, bias and running statistics (what autocast gives)."""
    x, w, b, rm, rv = _bn_inputs((4, 6, 9, 7), dtype, torch.float32)
    out, tols = bn_tolerances(x, w, b, rm, rv, training)
    got, grads = check(gpu_device, native, _bn_fn(training), [x, w, b, rm, rv], out=out, grads=tols,
                       differentiate={0, 1, 2})
    assert got[0].dtype == dtype and got[1].dtype == torch.float32 and grads[1].dtype == torch.float32


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_channels_last_and_no_affine(gpu_device, native, affine, training):
    x, w, b, rm, rv = _bn_inputs((3, 10, 7, 6), torch.float32, torch.float32, affine=affine)
    inputs = [x, rm, rv] + ([w, b] if affine else [])

    def fn(x, rm, rv, *wb):
        return _bn_fn(training, channels_last=True)(x, *(wb or (None, None)), rm, rv)
    out, grads = bn_tolerances(x, w if affine else None, b if affine else None, rm, rv, training)
    got, _ = check(gpu_device, native, fn, inputs, out=out, grads=grads, differentiate={0, 3, 4})
    assert got[0].is_contiguous(memory_format=torch.channels_last)


def test_batch_norm_non_contiguous_input(gpu_device, native):
    x, w, b, rm, rv = _bn_inputs((6, 5, 8, 9), torch.float32, torch.float32)
    out, grads = bn_tolerances(x.transpose(2, 3)[:, :, 1:], w, b, rm, rv, True)
    check(gpu_device, native, lambda x, w, b, rm, rv: _bn_fn(True)(x.transpose(2, 3)[:, :, 1:], w, b, rm, rv),
          [x, w, b, rm, rv], out=out, grads=grads, differentiate={0, 1, 2})


def test_batch_norm_module_cumulative_average_and_stats(gpu_device, native):
    """nn.BatchNorm2d with momentum=None (cumulative moving average) over three steps, then eval; the saved
    statistics of native_batch_norm are float32 batch mean and 1 / sqrt(var + eps)."""
    torch.manual_seed(0)
    cpu = nn.BatchNorm2d(7, momentum=None)
    gpu = nn.BatchNorm2d(7, momentum=None).to(gpu_device)
    gpu.load_state_dict(cpu.state_dict())
    xs = [make((5, 7, 6, 4), torch.float32, seed=s, low=-1, high=3) for s in range(3)]
    with native():
        ys = [gpu(x.to(gpu_device)) for x in xs]
        gpu.eval()
        y_eval = gpu(xs[0].to(gpu_device))
    want = [cpu(x) for x in xs]
    cpu.eval()
    # weight 1 and bias 0: y = x_hat, whose size norm_bounds gives (batch statistics in training, the running
    # ones in eval); the running statistics average three batches' statistics (k = 3).
    dims = [0, 2, 3]
    x_hat = max(norm_bounds(x, dims)[0] for x in xs)
    eval_hat = norm_bounds(xs[0], dims, cpu.running_mean.view(1, 7, 1, 1), cpu.running_var.view(1, 7, 1, 1))[0]
    assert_close(y_eval, cpu(xs[0]).detach(), magnitude=eval_hat)
    for g, w in zip(ys, want):
        assert_close(g.detach(), w.detach(), magnitude=x_hat)
    assert_close(gpu.running_mean, cpu.running_mean, k=3, magnitude=3)
    assert_close(gpu.running_var, cpu.running_var, k=3, magnitude=cpu.running_var.abs().max().item())
    assert int(gpu.num_batches_tracked) == 3
    x = xs[1]
    with native():
        _, mean, invstd = torch.native_batch_norm(x.to(gpu_device), None, None, None, None, True, 0.1, 1e-5)
    assert mean.dtype == torch.float32 and mean.shape == (7,)
    torch.testing.assert_close(mean.cpu(), x.mean(dim=(0, 2, 3)), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(invstd.cpu(), 1 / torch.sqrt(x.var(dim=(0, 2, 3), unbiased=False) + 1e-5),
                               atol=1e-4, rtol=1e-5)


def test_batch_norm_legit_and_with_update(gpu_device, native):
    """The export-friendly overloads: _native_batch_norm_legit (with and without running statistics) and
    _batch_norm_with_update with its backward (batch_norm_backward)."""
    x, w, b, rm, rv = _bn_inputs((4, 3, 5, 5), torch.float32, torch.float32)
    d = gpu_device
    with native():
        rm_g, rv_g = rm.to(d), rv.to(d)
        y, m, s = torch.ops.aten._native_batch_norm_legit(x.to(d), w.to(d), b.to(d), rm_g, rv_g, True, 0.1, 1e-5)
        y2, m2, s2 = torch.ops.aten._native_batch_norm_legit.no_stats(x.to(d), w.to(d), b.to(d), True, 0.1, 1e-5)
        rm_u, rv_u = rm.to(d), rv.to(d)
        y3, m3, s3, reserve = torch.ops.aten._batch_norm_with_update(x.to(d), w.to(d), b.to(d), rm_u, rv_u, 0.1, 1e-5)
        gy = make(y3.shape, torch.float32, seed=9).to(d)
        dx, dw, db = torch.ops.aten.batch_norm_backward(gy, x.to(d), w.to(d), rm_u, rv_u, m3, s3, True, 1e-5,
                                                        [True, True, True], reserve)
    rm_c, rv_c = rm.clone(), rv.clone()
    want = torch.ops.aten._native_batch_norm_legit(x, w, b, rm_c, rv_c, True, 0.1, 1e-5)
    out, grads = bn_tolerances(x, w, b, rm, rv, True)
    for got_y in (y, y2, y3):
        assert_close(got_y, want[0], k=out[0][0], magnitude=out[0][1])
    assert_close(rm_g, rm_c, k=out[1][0], magnitude=out[1][1])
    assert_close(rv_g, rv_c, k=out[2][0], magnitude=out[2][1])
    assert_close(rv_u, rv_c, k=out[2][0], magnitude=out[2][1])
    want_grads = torch.ops.aten.native_batch_norm_backward(gy.cpu(), x, w, rm_c, rv_c, want[1], want[2], True, 1e-5,
                                                           [True, True, True])
    for g, wg, (k, m) in zip((dx, dw, db), want_grads, grads):
        assert_close(g, wg, k=k, magnitude=m)


# ---- group norm ------------------------------------------------------------------------------------------
GN_CASES = [((2, 6, 5, 5), 3), ((1, 4, 7), 2), ((3, 32, 16, 16), 8), ((5, 16), 2), ((2, 64, 33, 31), 32),
            ((4, 6, 3, 3), 6), ((1, 3, 65, 70), 1)]


def gn_tolerances(x, groups, w=None, b=None):
    """norm_tolerances of a group norm of x: statistics per (sample, group); the parameter gradients sum over
    the batch and the spatial positions."""
    N, C = x.shape[:2]
    x_hat, invstd = norm_bounds(x.reshape(N, groups, -1), [2])
    return norm_tolerances(x_hat, invstd, w.abs().max().item() if w is not None else 1.0,
                           b.abs().max().item() if b is not None else 0.0, x.numel() // C)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,groups", GN_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_cpu(gpu_device, native, dtype, shape, groups, affine):
    C = shape[1]
    x = make(shape, dtype, low=-1, high=4)
    params = [make((C,), dtype, low=0.5, high=2, seed=2), make((C,), dtype, seed=3)] if affine else []

    def fn(x, *wb):
        return F.group_norm(x, groups, *wb, eps=1e-5)
    t = gn_tolerances(x, groups, *params)
    check(gpu_device, native, fn, [x] + params, out=t["y"], grads=[t["dx"]] + ([t["dw"], t["db"]] if affine else []))


@pytest.mark.parametrize("dtype", REDUCED)
def test_group_norm_mixed_precision_and_stats(gpu_device, native, dtype):
    x = make((3, 8, 5, 6), dtype)
    w, b = make((8,), torch.float32, seed=2), make((8,), torch.float32, seed=3)
    t = gn_tolerances(x, 4, w, b)
    check(gpu_device, native, lambda x, w, b: F.group_norm(x, 4, w, b), [x, w, b], out=t["y"],
          grads=[t["dx"], t["dw"], t["db"]])
    with native():
        y, mean, rstd = torch.native_group_norm(x.to(gpu_device), w.to(gpu_device), b.to(gpu_device), 3, 8, 30, 4,
                                                1e-5)
        _, mean_same, _ = torch.native_group_norm(x.to(gpu_device), None, None, 3, 8, 30, 4, 1e-5)
    want = torch.native_group_norm(x.float(), w, b, 3, 8, 30, 4, 1e-5)
    assert mean.dtype == torch.float32 and mean.shape == (3, 4)  # mixed: the parameters' type
    assert mean_same.dtype == dtype  # not mixed: the input's type, as ATen
    torch.testing.assert_close(mean.cpu(), want[1], atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(rstd.cpu(), want[2], atol=1e-3, rtol=1e-3)


def test_group_norm_channels_last_input(gpu_device, native):
    x = make((2, 12, 9, 7), torch.float32).contiguous(memory_format=torch.channels_last)
    w, b = make((12,), torch.float32, seed=2), make((12,), torch.float32, seed=3)
    t = gn_tolerances(x, 3, w, b)
    check(gpu_device, native, lambda x, w, b: F.group_norm(x, 3, w, b), [x, w, b], out=t["y"],
          grads=[t["dx"], t["dw"], t["db"]])


# ---- RMS norm ----------------------------------------------------------------------------------------------
RMS_CASES = [((7, 13), (13,)), ((4, 5, 64), (64,)), ((3, 4, 5), (4, 5)), ((2, 4096), (4096,)),
             ((3000, 33), (33,)), ((1, 1), (1,))]


def rms_tolerances(x, normalized, w=None):
    """norm_tolerances of an RMS norm of x over its last dimensions; the weight gradient sums over the rows."""
    dims = list(range(x.dim() - len(normalized), x.dim()))
    x_hat, invstd = norm_bounds(x, dims, rms=True, eps=torch.finfo(x.dtype).eps)
    return norm_tolerances(x_hat, invstd, w.abs().max().item() if w is not None else 1.0, 0.0,
                           x.numel() // math.prod(normalized))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,normalized", RMS_CASES)
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("eps", [None, 1e-6])
def test_rms_norm_matches_cpu(gpu_device, native, dtype, shape, normalized, weighted, eps):
    x = make(shape, dtype)
    params = [make(normalized, dtype, low=0.5, high=2, seed=2)] if weighted else []

    def fn(x, *w):
        return F.rms_norm(x, normalized, *w, eps=eps)
    t = rms_tolerances(x, normalized, *params)
    check(gpu_device, native, fn, [x] + params, out=t["y"], grads=[t["dx"]] + ([t["dw"]] if weighted else []))


@pytest.mark.skipif(not hasattr(torch.ops.aten, "_fused_rms_norm"), reason="no aten::_fused_rms_norm")
def test_rms_norm_is_the_fused_op_with_float_rstd(gpu_device, native):
    """nn.RMSNorm reaches aten::_fused_rms_norm (autograd then calls _fused_rms_norm_backward) when input and
    weight share a dtype; the op itself also takes a float32 weight with bfloat16 input. With mismatched
    dtypes aten::rms_norm decomposes into elementwise ops and reductions instead, which run natively too."""
    x = make((6, 40), torch.bfloat16)
    w = make((40,), torch.float32, seed=2)
    with native():
        y, rstd = torch.ops.aten._fused_rms_norm(x.to(gpu_device), [40], w.to(gpu_device), 1e-5)
        t = x.to(gpu_device).requires_grad_()
        out = nn.RMSNorm(40, device=gpu_device, dtype=torch.bfloat16)(t)
        out.backward(torch.ones_like(out))
    want_y, want_rstd = torch.ops.aten._fused_rms_norm(x, [40], w, 1e-5)  # the CPU composite
    assert rstd.dtype == torch.float32 and rstd.shape == (6, 1)
    torch.testing.assert_close(rstd.cpu(), want_rstd, atol=1e-4, rtol=1e-4)
    t = rms_tolerances(x, (40,), w)
    assert_close(y, want_y, k=t["y"][0], magnitude=t["y"][1])
    assert "FusedRmsNorm" in type(out.grad_fn).__name__
    check(gpu_device, native, lambda x, w: F.rms_norm(x, (40,), w), [x, w], out=t["y"], grads=[t["dx"], t["dw"]])


# ---- pooling -------------------------------------------------------------------------------------------------
POOL_SHAPES = [(2, 3, 8, 8), (1, 1, 7, 9), (3, 5, 33, 31), (4, 10, 12)]
MAX_POOL_CONFIGS = [  # kernel, stride, padding, dilation, ceil_mode
    (2, 2, 0, 1, False), (3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 1, 0, 2, False),
    ((3, 2), (2, 1), (1, 0), (1, 1), True), (3, None, 1, 1, False)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", POOL_SHAPES)
@pytest.mark.parametrize("config", MAX_POOL_CONFIGS)
def test_max_pool2d_matches_cpu(gpu_device, native, dtype, shape, config):
    k, s, p, d, ceil = config
    x = make(shape, dtype)

    def fn(x):
        return F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    # Max selection and indices are exact; gradients are sums of a few selected upstream values.
    check(gpu_device, native, fn, [x], grads=(9, 3.0), exact_outputs=(0, 1))


def test_max_pool2d_nan_and_ties(gpu_device, native):
    x = torch.zeros(1, 2, 6, 6)
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 4, 4] = float("nan")
    x[0, 0, 4, 5] = float("nan")  # the last NaN of a window wins, as on CPU
    x[0, 1] = torch.arange(36.).view(6, 6) % 3  # ties: the first index wins
    with native():
        y, idx = F.max_pool2d(x.to(gpu_device), 3, 1, 1, return_indices=True)
    want_y, want_idx = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    assert torch.equal(idx.cpu(), want_idx)
    torch.testing.assert_close(y.cpu(), want_y, equal_nan=True, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_max_pool2d_channels_last_and_big(gpu_device, native, dtype):
    x = make((2, 16, 96, 80), dtype).contiguous(memory_format=torch.channels_last)
    got, _ = check(gpu_device, native, lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), [x],
                   grads=(9, 3.0), exact_outputs=(0, 1))
    assert got[0].is_contiguous(memory_format=torch.channels_last)
    big = make((1, 4, 512, 384), dtype)
    check(gpu_device, native, lambda x: F.max_pool2d(x, 2), [big], grads=(1, 3.0), exact_outputs=(0,))


AVG_POOL_CONFIGS = [  # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (2, 2, 0, False, True, None), (3, 2, 1, False, True, None), (3, 2, 1, False, False, None),
    (3, 2, 1, True, False, None), (3, 2, 1, True, True, None), ((3, 2), (1, 2), (1, 1), False, True, 5),
    (4, 3, 2, True, False, 3)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", POOL_SHAPES)
@pytest.mark.parametrize("config", AVG_POOL_CONFIGS)
def test_avg_pool2d_matches_cpu(gpu_device, native, dtype, shape, config):
    k, s, p, ceil, include_pad, divisor = config
    x = make(shape, dtype)

    def fn(x):
        return F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=include_pad, divisor_override=divisor)
    out, grads = l1_tolerances(fn, [x])
    check(gpu_device, native, fn, [x], out=out, grads=grads)


def test_avg_pool2d_channels_last(gpu_device, native):
    x = make((3, 8, 21, 17), torch.float32).contiguous(memory_format=torch.channels_last)
    fn = lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
    out, grads = l1_tolerances(fn, [x])
    got, _ = check(gpu_device, native, fn, [x], out=out, grads=grads)
    assert got[0].is_contiguous(memory_format=torch.channels_last)


ADAPTIVE_CASES = [((2, 3, 7, 9), (3, 3)), ((1, 4, 8, 8), (4, 4)), ((2, 5, 10, 7), (5, 7)), ((3, 6, 6), (2, 1)),
                  ((1, 2, 5, 5), (7, 8)), ((2, 3, 64, 48), (7, 7)), ((2, 3, 9, 9), (1, 1))]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,output", ADAPTIVE_CASES)
def test_adaptive_avg_pool2d_matches_cpu(gpu_device, native, dtype, shape, output):
    x = make(shape, dtype)
    # (1, 1) is a mean (the reduction kernels); other sizes reach _adaptive_avg_pool2d.
    fn = lambda x: F.adaptive_avg_pool2d(x, output)
    out, grads = l1_tolerances(fn, [x])
    check(gpu_device, native, fn, [x], out=out, grads=grads)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,output", ADAPTIVE_CASES)
def test_adaptive_max_pool2d_matches_cpu(gpu_device, native, dtype, shape, output):
    x = make(shape, dtype)
    check(gpu_device, native, lambda x: F.adaptive_max_pool2d(x, output, return_indices=True), [x],
          grads=(9, 3.0), exact_outputs=(0, 1))


def test_adaptive_pooling_channels_last_and_direct_op(gpu_device, native):
    x = make((2, 8, 11, 13), torch.float32).contiguous(memory_format=torch.channels_last)
    fn = lambda x: F.adaptive_avg_pool2d(x, (4, 5))
    out, grads = l1_tolerances(fn, [x])
    got, _ = check(gpu_device, native, fn, [x], out=out, grads=grads)
    assert got[0].is_contiguous(memory_format=torch.channels_last)
    check(gpu_device, native, lambda x: F.adaptive_max_pool2d(x, (3, 6), return_indices=True), [x],
          grads=(9, 3.0), exact_outputs=(0, 1))
    y = make((2, 3, 9, 9), torch.float32)
    with native():
        got = torch.ops.aten._adaptive_avg_pool2d(y.to(gpu_device), [1, 1])  # the op itself, at 1x1
    assert_close(got, torch.ops.aten._adaptive_avg_pool2d(y, [1, 1]))


# ---- upsampling ------------------------------------------------------------------------------------------------
UPSAMPLE_CASES = [  # input shape, size, scale_factor, recompute_scale_factor
    ((2, 3, 5, 7), None, 2.0, None), ((1, 2, 4, 6), None, 3.0, None), ((2, 3, 5, 7), None, 1.5, None),
    ((2, 3, 5, 7), None, 1.7, False), ((2, 3, 13, 11), (5, 4), None, None), ((1, 4, 6, 5), (6, 17), None, None),
    ((3, 2, 9, 8), None, (0.5, 0.75), False), ((1, 1, 1, 1), (4, 3), None, None), ((2, 2, 7, 7), (7, 7), None, None)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", UPSAMPLE_CASES)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_upsample_nearest_matches_cpu(gpu_device, native, dtype, case, mode):
    shape, size, scale, recompute = case
    x = make(shape, dtype)

    def fn(x):
        return F.interpolate(x, size=size, scale_factor=scale, mode=mode, recompute_scale_factor=recompute)
    check(gpu_device, native, fn, [x], grads=l1_tolerances(fn, [x])[1], exact_outputs=(0,))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", UPSAMPLE_CASES)
@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear_matches_cpu(gpu_device, native, dtype, case, align_corners):
    shape, size, scale, recompute = case
    x = make(shape, dtype)

    def fn(x):
        return F.interpolate(x, size=size, scale_factor=scale, mode="bilinear", align_corners=align_corners,
                             recompute_scale_factor=recompute)
    out, grads = l1_tolerances(fn, [x])
    check(gpu_device, native, fn, [x], out=out, grads=grads)


@pytest.mark.parametrize("mode,align", [("nearest", None), ("bilinear", False), ("bilinear", True)])
def test_upsample_channels_last_non_contiguous_and_big(gpu_device, native, mode, align):
    x = make((2, 8, 15, 12), torch.float32).contiguous(memory_format=torch.channels_last)
    fn = lambda x: F.interpolate(x, scale_factor=2, mode=mode, align_corners=align)
    out, grads = l1_tolerances(fn, [x])
    got, _ = check(gpu_device, native, fn, [x], out=out, grads=grads)
    assert got[0].is_contiguous(memory_format=torch.channels_last)
    y = make((2, 3, 12, 20), torch.float32)
    fn = lambda y: F.interpolate(y.transpose(2, 3)[:, :, ::2], size=(11, 9), mode=mode, align_corners=align)
    out, grads = l1_tolerances(fn, [y])
    check(gpu_device, native, fn, [y], out=out, grads=grads)
    big = make((1, 3, 256, 320), torch.float32)
    fn = lambda x: F.interpolate(x, size=(512, 480), mode=mode, align_corners=align)
    out, grads = l1_tolerances(fn, [big])
    check(gpu_device, native, fn, [big], out=out, grads=grads)


# ---- a ResNet-style block -----------------------------------------------------------------------------------
class ResNetStyleBlock(nn.Module):
    """A ResNet stem and basic block with the convolutions left out (channels are mixed by 1x1 'convolutions'
    written as Linear over the channel dimension, which the GEMM kernels run): BatchNorm2d, ReLU, MaxPool2d,
    a residual connection, a bilinear upsample and pool back, AdaptiveAvgPool2d and a classifier."""

    def __init__(self, channels=16, classes=10):
        super().__init__()
        self.bn0 = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.mix1 = nn.Linear(channels, channels)
        self.bn1 = nn.BatchNorm2d(channels)
        self.mix2 = nn.Linear(channels, channels)
        self.bn2 = nn.BatchNorm2d(channels)
        self.gn = nn.GroupNorm(4, channels)
        self.head_pool = nn.AdaptiveAvgPool2d(1)
        self.side_pool = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(channels * 5, classes)

    @staticmethod
    def channel_mix(linear, x):
        return linear(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.bn0(x)))
        identity = x
        out = F.relu(self.bn1(self.channel_mix(self.mix1, x)))
        out = self.bn2(self.channel_mix(self.mix2, out))
        out = F.relu(out + identity)
        up = F.interpolate(out, scale_factor=2, mode="bilinear", align_corners=False)
        out = self.gn(F.avg_pool2d(up, 2) + out)
        features = torch.cat([self.head_pool(out).flatten(1), self.side_pool(out).flatten(1)], dim=1)
        return self.fc(features)


NORM_POOL_OPS = {"aten::native_batch_norm", "aten::native_batch_norm_backward", "aten::max_pool2d_with_indices",
                 "aten::max_pool2d_with_indices_backward", "aten::_adaptive_avg_pool2d",
                 "aten::_adaptive_avg_pool2d_backward", "aten::avg_pool2d", "aten::avg_pool2d_backward",
                 "aten::upsample_bilinear2d", "aten::upsample_bilinear2d_backward", "aten::native_group_norm",
                 "aten::native_group_norm_backward", "aten::mean", "aten::sum"}


def test_resnet_style_block_training_step(gpu_device):
    """Training steps of the block on the GPU and the CPU from the same weights: the losses agree, the
    running statistics agree, and no op of this file went through the CPU fallback."""
    torch.manual_seed(0)
    cpu_model = ResNetStyleBlock()
    gpu_model = ResNetStyleBlock().to(gpu_device)
    gpu_model.load_state_dict(cpu_model.state_dict())
    g = torch.Generator().manual_seed(1)
    x = torch.randn(8, 16, 32, 32, generator=g) * 2 + 1
    target = torch.randint(0, 10, (8,), generator=g)
    losses = {}
    torch.hal.reset_fallback_stats()
    for name, model, device in (("gpu", gpu_model, gpu_device), ("cpu", cpu_model, "cpu")):
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        xs, ts = x.to(device), target.to(device)
        losses[name] = []
        for _ in range(4):
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ts)
            loss.backward()
            opt.step()
            losses[name].append(loss.item())
    stats = torch.hal.fallback_stats()
    assert not (NORM_POOL_OPS & set(stats)), stats
    assert losses["gpu"] == pytest.approx(losses["cpu"], rel=1e-3, abs=1e-4)
    assert losses["gpu"][-1] < losses["gpu"][0]
    # After four SGD steps the two models' weights differ by what each step's rounding became through training
    # (no longer one op's rounding): the same relative bound as the losses', 1e-3, and an atol of 1e-3 of the
    # largest value, far from any sign error.
    def after_training(got, want):
        got = got.detach().cpu()
        torch.testing.assert_close(got, want.detach(), rtol=1e-3, atol=1e-3 * want.abs().max().item())
        assert torch.nn.functional.cosine_similarity(got.flatten(), want.detach().flatten(), dim=0) > 0.999
    after_training(gpu_model.bn1.running_var, cpu_model.bn1.running_var)
    gpu_model.eval()
    cpu_model.eval()
    with torch.no_grad():
        after_training(gpu_model(x.to(gpu_device)), cpu_model(x))
