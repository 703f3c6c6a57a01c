"""Native GPU kernels for softmax, layer_norm, nll_loss / cross_entropy, embedding and dropout, compared
with the CPU (forward and backward through autograd on both devices), in strict mode so that a fallback
fails the test."""
import pytest
import torch
import torch.nn.functional as F

from native_nn_helpers import FLOAT_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)


def _forward_backward(fn, inputs, device, grad_seed=1):
    """fn(*inputs) on `device` and its input gradients for a fixed random upstream gradient."""
    leaves = [t.detach().to(device).requires_grad_(t.is_floating_point()) for t in inputs]
    out = fn(*leaves)
    grad = make(out.shape, out.dtype, seed=grad_seed).to(device)
    out.backward(grad)
    return out, [leaf.grad for leaf in leaves if leaf.requires_grad]


SOFTMAX_SHAPES = [((), 0), ((7, 13), 1), ((7, 13), 0), ((4, 5, 6), 1), ((3, 2000), -1), ((2, 9000), 1),
                  ((1 << 12, 256), 1), ((0, 5), 1), ((6, 0), 1)]


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,dim", SOFTMAX_SHAPES)
def test_softmax_matches_cpu(gpu_device, native, fn, dtype, shape, dim):
    x = make(shape, dtype)
    want, want_grads = _forward_backward(lambda t: fn(t, dim), [x], "cpu")
    with native():
        got, got_grads = _forward_backward(lambda t: fn(t, dim), [x], gpu_device)
    assert_close(got, want.detach(), scale=4)
    assert_close(got_grads[0], want_grads[0], scale=8)


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
    assert_close(got_log, F.log_softmax(strided, dim=0))


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

    want, want_grads = _forward_backward(fn, [x] + params, "cpu")
    with native():
        got, got_grads = _forward_backward(fn, [x] + params, gpu_device)
    scale = 4 if dtype in (torch.float16, torch.bfloat16) else 20
    assert_close(got, want.detach(), scale=scale)
    for g, w in zip(got_grads, want_grads):
        # dweight/dbias sum over every row: absolute error grows with the row count.
        assert_close(g, w, scale=scale * (1 + shape[0] // 100))


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
        want, want_grads = _forward_backward(fn, [logits.float()], "cpu")
        want, want_grads = want.to(dtype), [g.to(dtype) for g in want_grads]
        weight = weight.to(dtype) if weight is not None else None
    else:
        want, want_grads = _forward_backward(fn, [logits], "cpu")
    with native():
        got, got_grads = _forward_backward(fn, [logits], gpu_device)
    scale = 10 if reduced else 50
    assert_close(got, want.detach(), scale=scale)
    assert_close(got_grads[0], want_grads[0], scale=scale)


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

    want, want_grads = _forward_backward(fn, [weight], "cpu")
    with native():
        got, got_grads = _forward_backward(fn, [weight], gpu_device)
    assert_close(got, want.detach())
    assert_close(got_grads[0], want_grads[0], scale=10)
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
        assert_close(y[kept], (x_cpu[kept] / (1 - p)), dtype=dtype, scale=2)
        assert_close(g[kept], torch.full_like(g[kept], 1 / (1 - p)), dtype=dtype, scale=2)
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
    assert_close(got.detach(), want.detach(), scale=100)
    model.train()
    loss = F.cross_entropy(model(tokens.to(gpu_device)).reshape(-1, 100), tokens.to(gpu_device).reshape(-1))
    loss.backward()
    assert torch.isfinite(loss.detach().cpu())
    assert not (NN_OPS & set(torch.hal.fallback_stats())), torch.hal.fallback_stats()


def test_convolution_matches_cpu_natively_or_through_the_counted_fallback(gpu_device):
    """NVIDIA runs convolutions through cuDNN (tests/gpu/test_native_conv.py has the details); an adapter
    without convolution ops (AMD today) runs them on the CPU, counted. Both match the CPU."""
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 8, 3, padding=1)
    gpu_conv = torch.nn.Conv2d(3, 8, 3, padding=1).to(gpu_device)
    gpu_conv.load_state_dict(conv.state_dict())
    x = make((2, 3, 16, 16), torch.float32)
    want, (want_grad,) = _forward_backward(conv, [x], "cpu")
    torch.hal.reset_fallback_stats()
    got, (got_grad,) = _forward_backward(gpu_conv, [x], gpu_device)
    assert got.device == gpu_device
    assert_close(got, want.detach(), scale=4)
    assert_close(got_grad, want_grad, scale=4)
    assert_close(gpu_conv.weight.grad, conv.weight.grad, scale=4)
    stats = torch.hal.fallback_stats()
    # cuDNN comes with PyTorch's CUDA wheels, so the NVIDIA adapter finds it wherever torch.cuda works.
    expected = 0 if torch.hal.get_device_properties(gpu_device.index).adapter == "nvidia" else 1
    assert stats.get("aten::convolution", 0) == expected, stats
    assert stats.get("aten::convolution_backward", 0) == expected, stats
