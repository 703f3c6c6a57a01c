"""Native GPU random kernels (Philox4x32-10): reproducibility under manual_seed and the rng state,
distribution statistics, bernoulli, randint (random_) and randperm, in strict mode."""
import math

import pytest
import torch

from native_nn_helpers import FLOAT_DTYPES, native  # noqa: F401  (fixtures)

N = 1 << 20


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_uniform_statistics_and_bounds(gpu_device, native, dtype):
    with native():
        x = torch.empty(N, device=gpu_device, dtype=dtype).uniform_(-2, 3)
    x = x.cpu().double()
    assert x.min() >= -2 and x.max() < 3
    assert abs(x.mean().item() - 0.5) < 0.02
    assert abs(x.std().item() - 5 / math.sqrt(12)) < 0.02


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_normal_statistics(gpu_device, native, dtype):
    with native():
        x = torch.randn(N, device=gpu_device, dtype=dtype) * 1  # randn = empty + normal_
        y = torch.empty(N, device=gpu_device, dtype=dtype).normal_(3, 0.5)
    x, y = x.cpu().double(), y.cpu().double()
    assert abs(x.mean().item()) < 0.01 and abs(x.std().item() - 1) < 0.02
    assert abs(y.mean().item() - 3) < 0.02 and abs(y.std().item() - 0.5) < 0.01
    assert torch.isfinite(x).all()


def test_same_seed_same_numbers(gpu_device, native):
    def draw():
        return [torch.rand(1000, device=gpu_device), torch.randn(3, 7, device=gpu_device),
                torch.randperm(500, device=gpu_device), torch.randint(0, 10, (100,), device=gpu_device),
                torch.bernoulli(torch.full((100,), 0.5, device=gpu_device))]

    with native():
        torch.manual_seed(42)
        first = draw()
        torch.manual_seed(42)
        second = draw()
        torch.manual_seed(43)
        third = draw()
    for a, b in zip(first, second):
        assert torch.equal(a.cpu(), b.cpu())
    assert not torch.equal(first[0].cpu(), third[0].cpu())
    assert not torch.equal(first[1].cpu(), third[1].cpu())


def test_consecutive_draws_differ_and_state_round_trips(gpu_device, native):
    with native():
        torch.hal.manual_seed(7)
        a = torch.rand(100, device=gpu_device)
        b = torch.rand(100, device=gpu_device)
        state = torch.hal.get_rng_state(gpu_device)
        c = torch.rand(100, device=gpu_device)
        torch.hal.set_rng_state(state, gpu_device)
        d = torch.rand(100, device=gpu_device)
    assert not torch.equal(a.cpu(), b.cpu())
    assert torch.equal(c.cpu(), d.cpu())


def test_explicit_generator(gpu_device, native):
    with native():
        g = torch.Generator(device=gpu_device).manual_seed(5)
        a = torch.randn(64, device=gpu_device, generator=g)
        g.manual_seed(5)
        b = torch.randn(64, device=gpu_device, generator=g)
    assert torch.equal(a.cpu(), b.cpu())


def test_non_contiguous_output(gpu_device, native):
    with native():
        torch.manual_seed(1)
        base = torch.zeros(64, 64, device=gpu_device)
        base.t()[::2].uniform_(1, 2)
    base = base.cpu()
    assert (base[:, ::2] >= 1).all() and (base[:, 1::2] == 0).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bool, torch.int64, torch.uint8])
def test_bernoulli_rates(gpu_device, native, dtype):
    with native():
        x = torch.empty(N, device=gpu_device, dtype=dtype).bernoulli_(0.3)
        p = torch.linspace(0, 1, 11).repeat_interleave(N // 16).to(gpu_device)
        y = torch.bernoulli(p)
    assert abs(x.cpu().double().mean().item() - 0.3) < 0.005
    assert set(x.cpu().double().unique().tolist()) <= {0.0, 1.0}
    rates = y.cpu().reshape(11, -1).mean(1)
    torch.testing.assert_close(rates, torch.linspace(0, 1, 11), atol=0.01, rtol=0)


# (1 << 21) + 1 sorts 2^22 keys, 32 MiB: more scratch than a stream keeps, so it takes memory of its own.
@pytest.mark.parametrize("n", [0, 1, 2, 7, 2048, 2049, 100_000, 1 << 20, (1 << 21) + 1])
def test_randperm_is_a_permutation(gpu_device, native, n):
    with native():
        perm = torch.randperm(n, device=gpu_device)
    perm = perm.cpu()
    assert perm.dtype == torch.int64
    assert torch.equal(perm.sort().values, torch.arange(n))
    if n >= 2048:
        assert not torch.equal(perm, torch.arange(n))  # shuffled
        assert abs(perm[: n // 2].double().mean().item() - (n - 1) / 2) < n * 0.01


@pytest.mark.parametrize("dtype,low,high", [(torch.int64, -5, 5), (torch.int32, 0, 1000), (torch.uint8, 0, 256),
                                            (torch.int8, -128, 128), (torch.int64, -(2**40), 2**40)])
def test_randint_range(gpu_device, native, dtype, low, high):
    with native():
        x = torch.randint(low, high, (N,), device=gpu_device, dtype=dtype)
    x = x.cpu().double()
    assert x.min() >= low and x.max() < high
    assert abs(x.mean().item() - (low + high - 1) / 2) < (high - low) * 0.01


def test_random_default_range(gpu_device, native):
    with native():
        x = torch.empty(N, device=gpu_device, dtype=torch.int64).random_()
        b = torch.empty(N, device=gpu_device, dtype=torch.bool).random_()
    assert (x.cpu() >= 0).all() and x.cpu().double().mean().item() > 2**61
    assert abs(b.cpu().double().mean().item() - 0.5) < 0.01


def test_bad_arguments_raise(gpu_device):
    with pytest.raises(RuntimeError, match="from"):
        torch.empty(3, device=gpu_device).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="std"):
        torch.empty(3, device=gpu_device).normal_(0, -1)
    with pytest.raises(RuntimeError, match="bernoulli_ expects p"):
        torch.empty(3, device=gpu_device).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.randperm(-1, device=gpu_device)


# ---- dropout: mask and output in one pass (HAL_OP_DROPOUT), its backward in one pass --------------------------

def aten_ops_under(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return {e.name for e in prof.events() if e.name.startswith("aten::")}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_native_dropout_is_one_pass_and_scales_what_it_keeps(gpu_device, native, dtype, p):
    x = torch.randn(N + 3, dtype=torch.float64).to(dtype)  # + 3: a tail of less than four elements
    xd = x.to(gpu_device)
    with native():
        ops = aten_ops_under(lambda: torch.native_dropout(xd, p, True))
        y, mask = torch.native_dropout(xd, p, True)
    # One launch: no bernoulli mask drawn first, no multiplications after.
    assert not ops & {"aten::bernoulli_", "aten::mul", "aten::mul_"}, ops
    y, mask = y.cpu(), mask.cpu()
    assert mask.dtype == torch.bool and y.dtype == dtype
    kept = mask.double().mean().item()
    assert abs(kept - (1 - p)) < 5 * math.sqrt(p * (1 - p) / x.numel())  # five standard deviations
    # What is kept is scaled by 1 / (1 - p), rounded once from the compute type; the rest is 0.
    want = (x.float() * mask * (1 / (1 - p))).to(dtype) if dtype != torch.float64 else x * mask * (1 / (1 - p))
    assert torch.equal(y, want)


def test_native_dropout_reproducible_layouts_nan_and_backward(gpu_device, native):
    x = torch.randn(8, 6, 5, 7).to(gpu_device)
    x_cl = x.to(memory_format=torch.channels_last)
    with native():
        torch.manual_seed(5)
        y1, m1 = torch.native_dropout(x, 0.3, True)
        torch.manual_seed(5)
        y2, m2 = torch.native_dropout(x, 0.3, True)
        y3, m3 = torch.native_dropout(x, 0.3, True)
        yc, mc = torch.native_dropout(x_cl, 0.3, True)  # dense, not contiguous: the input's strides kept
        yt, mt = torch.native_dropout(x.transpose(1, 3)[:, ::2], 0.3, True)  # not dense: mask, then multiplications
        empty = torch.native_dropout(x[:0], 0.3, True)
    assert torch.equal(m1.cpu(), m2.cpu()) and torch.equal(y1.cpu(), y2.cpu())
    assert not torch.equal(m1.cpu(), m3.cpu())  # the generator moved on
    assert yc.is_contiguous(memory_format=torch.channels_last) and mc.stride() == yc.stride()
    for y, m, src in ((yc, mc, x_cl), (yt, mt, x.transpose(1, 3)[:, ::2])):
        assert torch.equal(y.cpu(), src.cpu() * m.cpu() * (1 / 0.7))
    assert empty[0].shape == (0, 6, 5, 7) and empty[1].dtype == torch.bool
    # A dropped NaN stays NaN (0 * NaN), as on torch.cuda.
    nan = torch.full((64,), float("nan"), device=gpu_device)
    with native():
        y, m = torch.native_dropout(nan, 0.5, True)
    assert torch.isnan(y.cpu()).all()
    # Backward: grad * mask * scale in one pass.
    g = torch.randn(8, 6, 5, 7).to(gpu_device)
    with native():
        ops = aten_ops_under(lambda: torch.ops.aten.native_dropout_backward(g, m1, 1 / 0.7))
        gx = torch.ops.aten.native_dropout_backward(g, m1, 1 / 0.7)
    assert not ops & {"aten::mul", "aten::mul_"}, ops
    assert torch.equal(gx.cpu(), g.cpu() * m1.cpu() * (1 / 0.7))


def test_dropout_in_training_runs_natively(gpu_device, native):
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Dropout(0.2), torch.nn.Linear(64, 4)).to(gpu_device)
    x = torch.randn(16, 32, device=gpu_device, requires_grad=True)
    with native():
        model(x).sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad.cpu()).all()
