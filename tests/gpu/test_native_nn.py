"""Native GPU kernels for softmax, layer_norm, nll_loss / cross_entropy, embedding and dropout, compared
with the CPU (forward and backward through autograd on both devices), in strict mode so that a fallback
fails the test."""
import math

import pytest
import torch
import torch.nn.functional as F

from native_nn_helpers import (FLOAT_DTYPES, assert_close, make, native,  # noqa: F401  (fixtures)
                               norm_bounds, norm_tolerances)

REDUCED = (torch.float16, torch.bfloat16)


def _forward_backward(fn, inputs, device, grad_seed=1, upcast=False):
    """fn(*inputs) on `device` and its input gradients for a fixed random upstream gradient. `upcast`: the
    float32 reference of float16/bfloat16 inputs (the same values, and the same upstream gradient, exactly
    upcast; results rounded back to the dtype), as the kernels accumulate in float32 while the CPU's own half
    kernels round at other places."""
    dtype = inputs[0].dtype
    up = upcast and dtype in REDUCED
    leaves = [(t.float() if up and t.dtype in REDUCED else t).detach().to(device).requires_grad_(t.is_floating_point())
              for t in inputs]
    out = fn(*leaves)
    grad = make(out.shape, dtype if up else out.dtype, seed=grad_seed).to(device=device, dtype=out.dtype)
    out.backward(grad)
    grads = [leaf.grad for leaf in leaves if leaf.requires_grad]
    if up:
        return out.detach().to(dtype), [g.to(dtype) for g in grads]
    return out, grads


SOFTMAX_SHAPES = [((), 0), ((7, 13), 1), ((7, 13), 0), ((4, 5, 6), 1), ((3, 2000), -1), ((2, 9000), 1),
                  ((1 << 12, 256), 1), ((0, 5), 1), ((6, 0), 1)]


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,dim", SOFTMAX_SHAPES)
def test_softmax_matches_cpu(gpu_device, native, fn, dtype, shape, dim):
    x = make(shape, dtype)
    want, want_grads = _forward_backward(lambda t: fn(t, dim), [x], "cpu", upcast=True)
    with native():
        got, got_grads = _forward_backward(lambda t: fn(t, dim), [x], gpu_device)
    # x and the upstream gradient dy lie in [-3, 3]. softmax: y <= 1; dx = y * (dy - sum(dy * y)), two terms
    # <= 3. log_softmax: y = x - logsumexp(x), terms up to 3 + (3 + log n); dx = dy - exp(y) * sum(dy), whose
    # sum adds n terms <= 3.
    n = shape[dim] if shape else 1
    if fn is F.softmax:
        out_tol, grad_tol = (1, 1.0), (2, 3.0)
    else:
        out_tol, grad_tol = (2, 6 + math.log(max(n, 1))), (n, 3.0)
    assert_close(got, want.detach(), k=out_tol[0], magnitude=out_tol[1])
    assert_close(got_grads[0], want_grads[0], k=grad_tol[0], magnitude=grad_tol[1])


def test_softmax_non_contiguous_and_extremes(gpu_device, native):
    x = make((64, 48), torch.float32, low=-50, high=50)
    x[3, :] = float("-inf")
    x[3, 5] = 0.0
    x[4, 7] = float("nan")
    strided = x.t()[:, ::3]
    with native():
        got = F.softmax(strided.to(gpu_device), dim=1)
        got_log = F.log_softmax(x.to(gpu_device).t()[:, ::3], dim=0)
    assert_close(got, F.softmax(strided, dim=1))
    assert_close(got_log, F.log_softmax(strided, dim=0), k=2, magnitude=50 + math.log(64))  # x - logsumexp(x)


def test_softmax_half_to_float(gpu_device, native):
    x = make((9, 300), torch.float16)
    with native():
        got = torch._softmax(x.to(gpu_device), 1, True)
        got_log = torch._log_softmax(x.to(gpu_device), 1, True)
        grad = torch._log_softmax_backward_data(got_log, got_log, 1, torch.float16)
    assert got.dtype == torch.float32
    assert_close(got, torch._softmax(x.float(), 1, False))
    assert_close(got_log, torch._log_softmax(x.float(), 1, False))
    want_grad = torch._log_softmax_backward_data(got_log.cpu(), got_log.cpu(), 1, torch.float32).half()
    assert_close(grad, want_grad)


LAYER_NORM_CASES = [((7, 13), (13,)), ((4, 5, 64), (64,)), ((3, 4, 5), (4, 5)), ((2, 4096), (4096,)),
                    ((3000, 33), (33,)), ((0, 8), (8,))]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,normalized", LAYER_NORM_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_cpu(gpu_device, native, dtype, shape, normalized, affine):
    x = make(shape, dtype)
    params = [make(normalized, dtype, seed=2), make(normalized, dtype, seed=3)] if affine else []

    def fn(t, *wb):
        return F.layer_norm(t, normalized, *wb, eps=1e-5)

    want, want_grads = _forward_backward(fn, [x] + params, "cpu", upcast=True)
    with native():
        got, got_grads = _forward_backward(fn, [x] + params, gpu_device)
    # The sizes of the terms each result sums (native_nn_helpers.norm_tolerances): dweight and dbias sum over
    # every row, so their atol grows with sqrt(rows); rtol stays a few ulps of the dtype.
    dims = list(range(x.dim() - len(normalized), x.dim()))
    x_hat, invstd = norm_bounds(x, dims) if x.numel() else (1.0, 1.0)
    t = norm_tolerances(x_hat, invstd, params[0].abs().max().item() if affine else 1.0,
                        params[1].abs().max().item() if affine else 0.0, x.numel() // math.prod(normalized))
    assert_close(got, want.detach(), k=t["y"][0], magnitude=t["y"][1])
    for g, w, (k, m) in zip(got_grads, want_grads, [t["dx"], t["dw"], t["db"]]):
        assert_close(g, w, k=k, magnitude=m)


def test_layer_norm_stats_and_non_contiguous(gpu_device, native):
    x = make((16, 40), torch.float16).t()  # [40, 16], not contiguous
    w = make((16,), torch.float16, seed=4)
    with native():
        y, mean, rstd = torch.native_layer_norm(x.to(gpu_device), [16], w.to(gpu_device), None, 1e-6)
    want = torch.native_layer_norm(x.float(), [16], w.float(), None, 1e-6)
    assert mean.dtype == torch.float32 and mean.shape == (40, 1) and rstd.shape == (40, 1)
    assert_close(y, want[0].half())
    torch.testing.assert_close(mean.cpu(), want[1], atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(rstd.cpu(), want[2], atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n,c", [(7, 13), (1000, 10), (0, 4)])
def test_cross_entropy_matches_cpu(gpu_device, native, dtype, reduction, weighted, n, c):
    logits = make((n, c), dtype)
    target = torch.randint(0, c, (n,), generator=torch.Generator().manual_seed(5))
    if n > 3:
        target[::4] = -100  # ignored samples
    weight = make((c,), dtype, low=0.1, high=2, seed=6) if weighted else None

    def fn(t):
        w = weight.to(t.device) if weight is not None else None
        return F.cross_entropy(t, target.to(t.device), weight=w, reduction=reduction, ignore_index=-100)

    reduced = dtype in (torch.float16, torch.bfloat16)
    if reduced:
        # torch.cuda accumulates float16/bfloat16 losses in float32, as the native kernel does; CPU sums them
        # in the dtype itself, where a sum of 750 terms stops growing (2048 + 3 rounds to 2048 in bfloat16).
        # The reference is therefore float32's result, rounded to the dtype.
        weight = weight.float() if weight is not None else None
        want, want_grads = _forward_backward(fn, [logits], "cpu", upcast=True)
        weight = weight.to(dtype) if weight is not None else None
    else:
        want, want_grads = _forward_backward(fn, [logits], "cpu")
    with native():
        got, got_grads = _forward_backward(fn, [logits], gpu_device)
    # The loss of a sample is -w[t] * log_softmax(x)[t], terms up to w * (6 + log c); 'mean' and 'sum' add the
    # n samples' losses, 'mean' then divides by the weight of the kept samples, as it divides the gradient
    # w[t] * (softmax(x) - onehot(t)), each element at most w in size.
    kept = target[:n] != -100
    w_max = weight.abs().max().item() if weight is not None else 1.0
    denominator = 1.0
    if reduction == "mean" and kept.any():
        denominator = (weight.double()[target[kept]].sum() if weight is not None else kept.sum()).item()
    k = n if reduction != "none" else 1
    assert_close(got, want.detach(), k=k, magnitude=w_max * (6 + math.log(c)) / denominator)
    assert_close(got_grads[0], want_grads[0], k=2, magnitude=w_max / denominator)


def test_nll_loss_one_sample_and_ignored_everything(gpu_device, native):
    logp = F.log_softmax(make((11,), torch.float32), 0)
    with native():
        got = F.nll_loss(logp.to(gpu_device), torch.tensor(4, device=gpu_device), reduction="none")
        all_ignored = F.nll_loss(logp.expand(3, 11).to(gpu_device), torch.full((3,), -100, device=gpu_device))
    assert_close(got, F.nll_loss(logp, torch.tensor(4), reduction="none"))
    assert torch.isnan(all_ignored.cpu())  # mean over no weight, as on CPU
    assert torch.isnan(F.nll_loss(logp.expand(3, 11), torch.full((3,), -100)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_matches_cpu(gpu_device, native, dtype, padding_idx):
    weight = make((50, 33), dtype)
    indices = torch.randint(0, 50, (8, 37), generator=torch.Generator().manual_seed(7))
    indices[0, :5] = 3

    def fn(w):
        return F.embedding(indices.to(w.device), w, padding_idx=padding_idx)

    want, want_grads = _forward_backward(fn, [weight], "cpu", upcast=True)
    with native():
        got, got_grads = _forward_backward(fn, [weight], gpu_device)
    assert torch.equal(got.detach().cpu(), want.detach())  # rows copied
    # A row's gradient sums the upstream gradients (each <= 3) of every position that looks it up.
    assert_close(got_grads[0], want_grads[0], k=int(torch.bincount(indices.flatten()).max()), magnitude=3.0)
    if padding_idx is not None:
        assert torch.count_nonzero(got_grads[0][padding_idx].cpu()) == 0


def test_embedding_int32_indices_and_large(gpu_device, native):
    weight = make((1 << 12, 256), torch.float32)
    indices = torch.randint(0, 1 << 12, (1 << 12,), generator=torch.Generator().manual_seed(8), dtype=torch.int32)
    with native():
        got = F.embedding(indices.to(gpu_device), weight.to(gpu_device))
    assert_close(got, F.embedding(indices, weight))


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_dropout_is_native_and_scaled(gpu_device, native, p, dtype):
    x = (make((1 << 16,), dtype, low=1, high=2)).to(gpu_device).requires_grad_()
    with native():
        torch.hal.manual_seed(0)
        y = F.dropout(x, p=p, training=True)
        y.sum().backward()
    y, x_cpu, g = y.detach().cpu().float(), x.detach().cpu().float(), x.grad.cpu().float()
    kept = y != 0
    rate = kept.float().mean().item()
    assert abs(rate - (1 - p)) < 0.01
    if p < 1:
        # x in [1, 2] scaled by 1 / (1 - p), one rounding to the dtype: the dtype's rtol (k=1, magnitude 1).
        assert_close(y[kept], (x_cpu[kept] / (1 - p)), dtype=dtype)
        assert_close(g[kept], torch.full_like(g[kept], 1 / (1 - p)), dtype=dtype)
    assert torch.count_nonzero(g[~kept]) == 0
    with native():
        z = F.dropout(x.detach(), p=0.5, training=False)
    assert torch.equal(z.cpu(), x.detach().cpu())


NN_OPS = {"aten::_softmax", "aten::_log_softmax", "aten::_softmax_backward_data", "aten::_log_softmax_backward_data",
          "aten::native_layer_norm", "aten::native_layer_norm_backward", "aten::nll_loss_forward",
          "aten::nll_loss_backward", "aten::embedding_dense_backward", "aten::index_select",
          "aten::native_dropout", "aten::native_dropout_backward"}


def test_transformer_block_runs_these_ops_natively(gpu_device):
    """A small model using every op of this file: embedding, layer_norm, softmax attention, dropout, loss.
    Other ops (GEMM, elementwise) belong to other kernel families, so only these ops' fallbacks are checked."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.1,
                                             batch_first=True)
    model = torch.nn.Sequential(torch.nn.Embedding(100, 32), layer, torch.nn.Linear(32, 100))
    reference = torch.nn.Sequential(*[m for m in model])  # same parameters, run on the CPU first
    tokens = torch.randint(0, 100, (4, 16))
    reference.eval()
    want = reference(tokens)
    model.to(gpu_device).eval()
    torch.hal.reset_fallback_stats()
    got = model(tokens.to(gpu_device))
    # float32 through an encoder layer (each op a few ulps of its own terms' size); the logits sum 32 products
    # of layer-normed features (|h| <= ~3) and weights (<= 1/sqrt(32)), and a bias.
    assert_close(got.detach(), want.detach(), k=33, magnitude=1.0)
    model.train()
    loss = F.cross_entropy(model(tokens.to(gpu_device)).reshape(-1, 100), tokens.to(gpu_device).reshape(-1))
    loss.backward()
    assert torch.isfinite(loss.detach().cpu())
    assert not (NN_OPS & set(torch.hal.fallback_stats())), torch.hal.fallback_stats()


def test_convolution_matches_cpu_natively_or_through_the_counted_fallback(gpu_device):
    """NVIDIA runs convolutions through cuDNN, AMD through the kernel library's implicit GEMM
    (tests/gpu/test_native_conv.py has the details); an adapter without convolution ops runs them on the CPU,
    counted. All match the CPU."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 8, 3, padding=1)
    gpu_conv = torch.nn.Conv2d(3, 8, 3, padding=1).to(gpu_device)
    gpu_conv.load_state_dict(conv.state_dict())
    x = make((2, 3, 16, 16), torch.float32)
    want, (want_grad,) = _forward_backward(conv, [x], "cpu")
    torch.hal.reset_fallback_stats()
    got, (got_grad,) = _forward_backward(gpu_conv, [x], gpu_device)
    assert got.device == gpu_device
    # x and the upstream gradient in [-3, 3], weights and bias <= 1/sqrt(27): the output sums 27 products <= 1
    # and a bias; the input gradient sums 8 * 9 products <= 1; the weight gradient 2 * 16 * 16 products <= 9.
    assert_close(got, want.detach(), k=28)
    assert_close(got_grad, want_grad, k=72)
    assert_close(gpu_conv.weight.grad, conv.weight.grad, k=2 * 16 * 16, magnitude=9.0)
    stats = torch.hal.fallback_stats()
    # cuDNN comes with PyTorch's CUDA wheels, so the NVIDIA adapter finds it wherever torch.cuda works; every GPU
    # adapter that compiles the kernel library has its convolution.
    import torch_hal
    native = torch_hal._C.adapter_op_support(gpu_device.index, 1000, torch.float32) == "supported"  # CONVOLUTION
    assert native or torch.hal.get_device_properties(gpu_device.index).adapter not in ("nvidia", "amd")
    expected = 0 if native else 1
    assert stats.get("aten::convolution", 0) == expected, stats
    assert stats.get("aten::convolution_backward", 0) == expected, stats
