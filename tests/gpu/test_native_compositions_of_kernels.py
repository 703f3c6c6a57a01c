"""Ops the library runs as compositions of its own kernels, in strict mode: the random distributions made from
uniform_/normal_ (exponential_, cauchy_, log_normal_, geometric_, randint into float tensors, and what
torch.multinomial draws), mv/addmv (one GEMM), norm over dims (dist, triplet margin loss), and weight_norm's fused
op with its backward."""
import math

import pytest
import torch
import torch.nn.functional as F

from native_nn_helpers import FLOAT_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)

N = 1 << 20


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_exponential_cauchy_log_normal_geometric_statistics(gpu_device, native, dtype):
    with native():
        e = torch.empty(N, device=gpu_device, dtype=dtype).exponential_(2.0)
        c = torch.empty(N, device=gpu_device, dtype=dtype).cauchy_(1.0, 0.5)
        ln = torch.empty(N, device=gpu_device, dtype=dtype).log_normal_(0.0, 0.25)
        g = torch.empty(N, device=gpu_device, dtype=dtype).geometric_(0.25)
    e, c, ln, g = (t.cpu().double() for t in (e, c, ln, g))
    assert e.min() >= 0 and torch.isfinite(e).all() and abs(e.mean().item() - 0.5) < 0.01
    # (Cauchy's tails pass float16's largest number about once in a million draws: infinities there, as on cuda.)
    assert (dtype == torch.float16 or torch.isfinite(c).all()) and abs(c.median().item() - 1.0) < 0.01
    # The quartiles of Cauchy(1, 0.5) are 1 -+ 0.5.
    assert abs(c.quantile(0.25).item() - 0.5) < 0.01 and abs(c.quantile(0.75).item() - 1.5) < 0.01
    assert ln.min() > 0 and abs(ln.log().mean().item()) < 0.01 and abs(ln.log().std().item() - 0.25) < 0.01
    assert g.min() >= 1 and (g == g.round()).all() and abs(g.mean().item() - 4.0) < 0.05


def test_geometric_into_integers_and_bad_arguments(gpu_device, native):
    with native():
        g = torch.empty(N, device=gpu_device, dtype=torch.int64).geometric_(0.5)
    assert g.min().item() >= 1 and abs(g.double().mean().item() - 2.0) < 0.02
    x = torch.empty(4, device=gpu_device)
    for call, message in ((lambda: x.exponential_(-1.0), "lambda"), (lambda: x.cauchy_(0.0, 0.0), "sigma"),
                          (lambda: x.log_normal_(0.0, -1.0), "std"), (lambda: x.geometric_(1.5), "p to be")):
        with pytest.raises(RuntimeError, match=message):
            call()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_randint_into_float_tensors(gpu_device, native, dtype):
    with native():
        x = torch.randint(-3, 9, (N,), device=gpu_device, dtype=dtype)
    x = x.cpu().double()
    assert x.min() == -3 and x.max() == 8 and (x == x.round()).all()
    assert abs(x.mean().item() - 2.5) < 0.02


def test_multinomial_and_same_seed(gpu_device, native):
    probs = torch.tensor([0.1, 0.2, 0.3, 0.4], device=gpu_device)
    with native():
        torch.manual_seed(3)
        a = torch.empty(1000, device=gpu_device).exponential_()
        torch.manual_seed(3)
        b = torch.empty(1000, device=gpu_device).exponential_()
    assert torch.equal(a.cpu(), b.cpu())
    counts = torch.bincount(torch.multinomial(probs, 20000, replacement=True).cpu(), minlength=4).double() / 20000
    assert torch.allclose(counts, probs.cpu().double(), atol=0.015)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_mv_and_addmv(gpu_device, native, dtype):
    mat, vec, bias = make((37, 53), dtype), make((53,), dtype, seed=1), make((37,), dtype, seed=2)
    with native():
        got_mv = torch.mv(mat.to(gpu_device), vec.to(gpu_device))
        got_addmv = torch.addmv(bias.to(gpu_device), mat.to(gpu_device).t().contiguous().t(), vec.to(gpu_device),
                                beta=0.5, alpha=2.0)
        inplace = bias.to(gpu_device)
        inplace.addmv_(mat.to(gpu_device), vec.to(gpu_device)[::1])
        out = torch.empty(37, device=gpu_device, dtype=dtype)
        torch.addmv(bias[:1].to(gpu_device), mat.to(gpu_device), vec.to(gpu_device), out=out)
    ref = lambda b, be, al: (be * b.double() + al * mat.double() @ vec.double()).to(dtype)  # noqa: E731
    # 53 products of numbers up to 3 (twice that with alpha 2).
    assert_close(got_mv, (mat.double() @ vec.double()).to(dtype), k=53, magnitude=9.0)
    assert_close(got_addmv, ref(bias, 0.5, 2.0), k=53, magnitude=18.0)
    assert_close(inplace, ref(bias, 1.0, 1.0), k=53, magnitude=9.0)
    assert_close(out, ref(bias[:1].expand(37), 1.0, 1.0), k=53, magnitude=9.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_norm_over_dims_dist_and_triplet_loss(gpu_device, native, dtype):
    x, y = make((6, 40), dtype), make((6, 40), dtype, seed=1)
    with native():
        got = [torch.norm(x.to(gpu_device), p=p, dim=1) for p in (1, 2, 3.5, math.inf)]
        got_keep = torch.norm(x.to(gpu_device), dim=(0, 1), keepdim=True)
        got_dist = torch.dist(x.to(gpu_device), y.to(gpu_device), p=2)
    for p, g in zip((1, 2, 3.5, math.inf), got):
        assert_close(g, torch.norm(x.double(), p=p, dim=1).to(dtype), k=40, magnitude=3.0)
    assert_close(got_keep, torch.norm(x.double(), dim=(0, 1), keepdim=True).to(dtype), k=240, magnitude=3.0)
    assert_close(got_dist, torch.dist(x.double(), y.double()).to(dtype), k=240, magnitude=6.0)
    a, p_, n = (make((8, 16), torch.float32, seed=s).to(gpu_device).requires_grad_() for s in (3, 4, 5))
    with native():
        F.triplet_margin_loss(a, p_, n).backward()
    assert a.grad is not None and torch.isfinite(a.grad).all()
    with pytest.raises(RuntimeError, match="floating point or complex"):
        torch.norm(torch.arange(4, device=gpu_device), dim=0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("dim", [0, -1])
def test_weight_norm_forward_and_backward(gpu_device, native, dtype, dim):
    v, g = make((16, 5, 7), dtype), make((16, 1, 1) if dim == 0 else (1, 1, 7), dtype, seed=1)
    grad = make((16, 5, 7), dtype, seed=2)
    d = dim % 3
    with native():
        w, norms = torch._weight_norm_interface(v.to(gpu_device), g.to(gpu_device), d)
        grad_v, grad_g = torch.ops.aten._weight_norm_interface_backward(grad.to(gpu_device), v.to(gpu_device),
                                                                        g.to(gpu_device), norms, d)
    ref_w, ref_norms = torch._weight_norm_interface(v.double(), g.double(), d)
    ref_gv, ref_gg = torch.ops.aten._weight_norm_interface_backward(grad.double(), v.double(), g.double(), ref_norms, d)
    assert norms.dtype == (torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype)
    assert_close(norms, ref_norms.to(norms.dtype), k=35)
    assert_close(w, ref_w.to(dtype), k=35)
    assert_close(grad_v, ref_gv.to(dtype), k=35, magnitude=4.0)
    assert_close(grad_g, ref_gg.to(dtype), k=35, magnitude=4.0)


def test_weight_norm_module_trains_natively(gpu_device, native):
    conv = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 6, 3)).to(gpu_device)
    legacy = torch.nn.utils.weight_norm(torch.nn.Linear(8, 3)).to(gpu_device)
    with native():
        conv(torch.randn(2, 4, 9, device=gpu_device)).sum().backward()
        legacy(torch.randn(5, 8, device=gpu_device)).sum().backward()
    assert legacy.weight_g.grad is not None and legacy.weight_v.grad is not None


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses_and_their_gradients(gpu_device, native, dtype, reduction):
    """mse_loss, smooth_l1_loss (beta 0.5 and 0, the L1 case) and huber_loss with their backward ops, against the
    float64 CPU results (their elementwise parts follow the CPU kernels' order of operations)."""
    x, y = make((9, 33), dtype), make((9, 33), dtype, seed=1)
    y[0, :3] = x[0, :3]  # equal elements: the kinks at 0
    losses = {"mse": lambda a, b: F.mse_loss(a, b, reduction=reduction),
              "smooth_l1": lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=0.5),
              "l1_by_smooth": lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=0.0),
              "huber": lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=0.7)}
    for name, fn in losses.items():
        leaf = x.to(gpu_device).requires_grad_()
        with native():
            got = fn(leaf, y.to(gpu_device))
            got.sum().backward()
        ref = x.double().clone().requires_grad_()  # a copy: x.double() is x itself for float64
        want = fn(ref, y.double())
        want.sum().backward()
        k = x.numel() if reduction != "none" else 1
        assert_close(got.detach(), want.detach().to(dtype), k=k, magnitude=18.0)
        assert_close(leaf.grad, ref.grad.to(dtype), magnitude=6.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_reflect_and_replicate_padding_forward_and_backward(gpu_device, native, dtype, mode):
    cases = [((2, 3, 7), (2, 3)), ((2, 3, 6, 5), (1, 2, 3, 0)), ((1, 2, 4, 5, 6), (1, 1, 2, 0, 3, 2))]
    if mode == "replicate":  # negative padding crops
        cases += [((2, 3, 7), (-2, 3)), ((2, 3, 6, 5), (1, -2, -1, 2)), ((3, 6, 5), (-1, -1, 2, -3))]
    for shape, pad in cases:
        x = make(shape, dtype)
        leaf = x.to(gpu_device).requires_grad_()
        with native():
            got = F.pad(leaf, pad, mode=mode)
            got.backward(torch.ones_like(got))
        ref = x.double().requires_grad_()
        want = F.pad(ref, pad, mode=mode)
        want.backward(torch.ones_like(want))
        assert_close(got.detach(), want.detach().to(dtype))
        # Each input gradient is a count of the output positions that read it (at most 3 per dim here).
        assert_close(leaf.grad, ref.grad.to(dtype), k=27)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_max_unpool_2d_and_3d(gpu_device, native, dtype):
    x = make((2, 3, 8, 6), dtype)
    pooled, indices = F.max_pool2d(x, 2, return_indices=True)
    x3 = make((1, 2, 4, 6, 4), dtype, seed=1)
    pooled3, indices3 = F.max_pool3d(x3, 2, return_indices=True)
    with native():
        got = F.max_unpool2d(pooled.to(gpu_device), indices.to(gpu_device), 2, output_size=(8, 6))
        got3 = F.max_unpool3d(pooled3.to(gpu_device), indices3.to(gpu_device), 2)
    assert_close(got, F.max_unpool2d(pooled, indices, 2, output_size=(8, 6)))
    assert_close(got3, F.max_unpool3d(pooled3, indices3, 2))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torch.int64])
def test_cross_round_decimals_and_addbmm(gpu_device, native, dtype):
    a, b = make((4, 3, 5), dtype), make((1, 3, 5), dtype, seed=1)
    with native():
        got = torch.linalg.cross(a.to(gpu_device), b.to(gpu_device), dim=1)
    assert_close(got, torch.linalg.cross(a.double(), b.double(), dim=1).to(dtype), k=2, magnitude=9.0)
    if not dtype.is_floating_point:
        return
    x = make((50,), dtype) * 37
    with native():
        rounded = [torch.round(x.to(gpu_device), decimals=k) for k in (-1, 0, 2)]
    for k, r in zip((-1, 0, 2), rounded):
        assert_close(r, torch.round(x, decimals=k))
    s, b1, b2 = make((5, 7), dtype), make((3, 5, 4), dtype, seed=2), make((3, 4, 7), dtype, seed=3)
    with native():
        got = torch.addbmm(s.to(gpu_device), b1.to(gpu_device), b2.to(gpu_device), beta=0.5, alpha=2.0)
    want = (0.5 * s.double() + 2.0 * (b1.double() @ b2.double()).sum(0)).to(dtype)
    assert_close(got, want, k=12, magnitude=18.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torch.int64])
@pytest.mark.parametrize("reduce", ["sum", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_sum_and_mean(gpu_device, native, dtype, reduce, include_self):
    x, src = make((4, 6), dtype), make((4, 9), dtype, seed=1)
    index = torch.randint(0, 6, (4, 9), generator=torch.Generator().manual_seed(2))
    with native():
        got = x.to(gpu_device).scatter_reduce(1, index.to(gpu_device), src.to(gpu_device), reduce,
                                              include_self=include_self)
    want = x.double().scatter_reduce(1, index, src.double(), reduce, include_self=include_self)
    if not dtype.is_floating_point:
        want = x.scatter_reduce(1, index, src, reduce, include_self=include_self).double()  # integer means floor
    # Up to 9 values of at most 30 summed into one position, in the order the atomics land.
    assert_close(got, want.to(dtype), k=10, magnitude=30.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_nearest_upsampling_in_1d_and_3d_forward_and_backward(gpu_device, native, dtype, mode):
    cases = (((2, 3, 7), dict(size=11)), ((2, 3, 5), dict(scale_factor=1.7)),
             ((1, 2, 3, 4, 5), dict(size=(5, 7, 4))), ((1, 2, 3, 4, 5), dict(scale_factor=(2.0, 1.5, 0.6))))
    for shape, kwargs in cases:
        x = make(shape, dtype)
        leaf = x.to(gpu_device).requires_grad_()
        with native():
            got = F.interpolate(leaf, mode=mode, **kwargs)
            got.backward(torch.ones_like(got))
        ref = x.double().requires_grad_()
        want = F.interpolate(ref, mode=mode, **kwargs)
        want.backward(torch.ones_like(want))
        assert_close(got.detach(), want.detach().to(dtype))
        assert_close(leaf.grad, ref.grad.to(dtype), k=8)  # each input pixel read at most a few times per axis
