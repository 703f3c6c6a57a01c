"""Native elementwise kernels of the GPU kernel library against PyTorch's CPU results, run in strict mode so
that any op reaching the CPU fallback fails the test."""
import math

import pytest
import torch
import torch.nn.functional as F

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int64, torch.int32, torch.int8, torch.uint8]
ALL = FLOATS + INTS + [torch.bool]
SHAPES = [(), (0,), (7, 13), (1 << 20,) ]


def tol(dtype):
    return {torch.float16: (1e-2, 1e-2), torch.bfloat16: (2e-2, 2e-2), torch.float32: (1e-5, 1e-5),
            torch.float64: (1e-10, 1e-10)}.get(dtype, (0, 0))


def make(shape, dtype, low=-3, high=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)
    lo = 0 if dtype == torch.uint8 else low
    return torch.randint(lo, high + 1, shape, generator=g).to(dtype)


def check(actual, expected, dtype=None):
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    rtol, atol = tol(dtype or expected.dtype)
    torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


def run_both(fn, *cpu_args, device, dtype=None):
    with torch.hal.strict():
        out = fn(*[a.to(device) if isinstance(a, torch.Tensor) else a for a in cpu_args])
        torch.hal.synchronize(device)
    check(out, fn(*cpu_args), dtype)


UNARY_FLOAT = [torch.exp, torch.log, torch.sqrt, torch.rsqrt, torch.sin, torch.cos, torch.tanh, torch.sigmoid,
               torch.reciprocal, torch.log1p, torch.expm1, torch.erf, torch.log2, torch.exp2, F.silu, F.gelu,
               lambda x: F.gelu(x, approximate="tanh"), lambda x: F.leaky_relu(x, 0.1), F.hardswish, F.hardsigmoid]
UNARY_ANY = [torch.neg, torch.abs, torch.floor, torch.ceil, torch.round, torch.trunc, torch.sign, torch.relu]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("fn", UNARY_FLOAT + UNARY_ANY)
def test_unary_float(gpu_device, fn, dtype, shape):
    x = make(shape, dtype, 0.1, 3) if fn in (torch.log, torch.sqrt, torch.rsqrt, torch.log2, torch.log1p) \
        else make(shape, dtype)
    run_both(fn, x, device=gpu_device)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("fn", [torch.neg, torch.abs, torch.sign, torch.relu, torch.exp, torch.sqrt,
                                torch.bitwise_not, torch.logical_not, torch.floor])
def test_unary_int(gpu_device, fn, dtype):
    if fn in (torch.neg, torch.abs) and dtype == torch.uint8:
        pytest.skip("wraps differently per backend for uint8")
    run_both(fn, make((7, 13), dtype, 0 if fn is torch.sqrt else -3), device=gpu_device)


def test_unary_special_values(gpu_device):
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.5, 1.5, 2.5, -0.5, -0.0, 0.0])
    for fn in [torch.round, torch.sign, torch.relu, torch.isnan, torch.logical_not, torch.floor, torch.sigmoid]:
        run_both(fn, x, device=gpu_device)
    run_both(torch.bitwise_not, torch.tensor([True, False]), device=gpu_device)


BINARY = [torch.add, torch.sub, torch.mul, torch.maximum, torch.minimum, torch.remainder, torch.fmod, torch.eq,
          torch.ne, torch.lt, torch.le, torch.gt, torch.ge, torch.logical_and, torch.logical_or, torch.logical_xor,
          lambda a, b: torch.add(a, b, alpha=2), lambda a, b: torch.clamp_min(a, b), lambda a, b: torch.clamp_max(a, b)]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fn", BINARY)
def test_binary_dtypes(gpu_device, fn, dtype):
    if dtype == torch.bool and fn in (torch.sub, torch.remainder, torch.fmod, torch.maximum, torch.minimum):
        pytest.skip("not defined for bool")
    b = make((7, 13), dtype, seed=1)
    if fn in (torch.remainder, torch.fmod) and not dtype.is_floating_point:
        b = torch.where(b == 0, torch.ones_like(b), b)
    run_both(fn, make((7, 13), dtype), b, device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
def test_division_and_power(gpu_device, dtype):
    a, b = make((7, 13), dtype), make((7, 13), dtype, 0.5, 3, seed=1)
    for fn in [torch.div, lambda x, y: torch.div(x, y, rounding_mode="floor"),
               lambda x, y: torch.div(x, y, rounding_mode="trunc"), torch.atan2, torch.pow,
               lambda x, y: torch.pow(y, 2), lambda x, y: torch.pow(y, 0.5), lambda x, y: torch.pow(2.0, x),
               lambda x, y: x * 0.5, lambda x, y: x / 3]:
        run_both(fn, a, b, device=gpu_device)


def test_integer_division_and_power(gpu_device):
    a, b = make((7, 13), torch.int64, -20, 20), make((7, 13), torch.int64, 1, 5, seed=1) * torch.tensor(-1) ** \
        make((7, 13), torch.int64, 0, 1, seed=2)
    for fn in [lambda x, y: torch.div(x, y, rounding_mode="floor"), lambda x, y: torch.div(x, y, rounding_mode="trunc"),
               torch.div, torch.remainder, torch.fmod, lambda x, y: torch.pow(x, y.abs()), lambda x, y: x ** 3,
               lambda x, y: torch.bitwise_and(x, y), lambda x, y: x | y, lambda x, y: x ^ y]:
        run_both(fn, a, b, device=gpu_device)


def test_nan_propagation(gpu_device):
    a = torch.tensor([float("nan"), 1.0, 2.0, float("nan")])
    b = torch.tensor([0.0, float("nan"), 1.0, float("nan")])
    for fn in [torch.maximum, torch.minimum, lambda x, y: torch.clamp(x, min=0.5, max=1.5),
               lambda x, y: torch.clamp(x, y, y + 1)]:
        run_both(fn, a, b, device=gpu_device)


def test_mixed_dtypes_broadcast_and_strides(gpu_device):
    a = make((64, 33), torch.float32)
    for b in [make((33,), torch.float16), make((64, 1), torch.int32), make((), torch.float64),
              make((33, 64), torch.float32).t(), make((64, 66), torch.bfloat16)[:, ::2]]:
        for fn in [torch.add, torch.mul, torch.maximum, torch.lt]:
            run_both(fn, a, b, device=gpu_device)
    big = make((1 << 21,), torch.float32)
    run_both(lambda x: x[::3] + x[1::3], big, device=gpu_device)
    run_both(lambda x: x.view(1024, -1).t() * 2, big, device=gpu_device)


def test_inplace_and_out(gpu_device):
    a, b = make((7, 13), torch.float32), make((13,), torch.float32, seed=1)
    for name in ["add_", "sub_", "mul_", "div_", "pow_", "clamp_min_", "lerp_"]:
        def fn(x, y, name=name):
            x = x.clone()
            args = (y, 0.3) if name == "lerp_" else (y,)
            if name == "lerp_":
                y = y.expand_as(x).contiguous()
                args = (y, 0.3)
            getattr(x, name)(*args)
            return x
        run_both(fn, a, b, device=gpu_device)
    for fn in [lambda x, y: torch.exp(x, out=torch.empty_like(x)), lambda x, y: torch.add(x, y, out=torch.empty_like(x)),
                      lambda x, y: torch.sigmoid_(x.clone()), lambda x, y: x.clone().neg_()]:
        run_both(fn, a, b, device=gpu_device)


def test_integer_results_wrap_at_the_common_dtype_before_a_wider_out(gpu_device):
    """ATen computes in the common dtype and casts to the out= tensor: int32 sums wrap before they reach an
    int64 out=, and bool + bool stays a bool (1) before it reaches an integer out=."""
    big = torch.tensor([2 ** 31 - 1, -(2 ** 31), 5, -7], dtype=torch.int32)
    one = torch.tensor([1, -1, 2, 3], dtype=torch.int32)
    flags = torch.tensor([True, True, False, True])
    cases = [
        (lambda x, y: torch.add(x, y, out=torch.empty(4, dtype=torch.int64, device=x.device)), big, one),
        (lambda x, y: torch.mul(x, y, out=torch.empty(4, dtype=torch.int64, device=x.device)), big, one),
        (lambda x, y: torch.sub(x, y, out=torch.empty(4, dtype=torch.int64, device=x.device)), big, one),
        (lambda x, y: torch.add(x, y, out=torch.empty(4, dtype=torch.int32, device=x.device)), flags, flags),
        (lambda x, y: torch.mul(x, y, out=torch.empty(4, dtype=torch.float32, device=x.device)), flags, flags),
    ]
    for fn, a, b in cases:
        run_both(fn, a, b, device=gpu_device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_activation_backward(gpu_device, dtype):
    x = make((1 << 20,), dtype)
    g = make((1 << 20,), dtype, seed=3)
    ops = [
        lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.0),
        lambda g, x: torch.ops.aten.gelu_backward(g, x),
        lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate="tanh"),
        lambda g, x: torch.ops.aten.sigmoid_backward(g, torch.sigmoid(x)),
        lambda g, x: torch.ops.aten.tanh_backward(g, torch.tanh(x)),
        lambda g, x: torch.ops.aten.silu_backward(g, x),
        lambda g, x: torch.ops.aten.leaky_relu_backward(g, x, 0.01, False),
        torch.ops.aten.hardswish_backward,
        torch.ops.aten.hardsigmoid_backward,
    ]
    for fn in ops:
        run_both(fn, g, x, device=gpu_device)


def test_hard_activations_at_their_corners(gpu_device):
    """hardswish and hardsigmoid are piecewise: the values at and beside -3 and 3, NaN and the infinities, forward
    and backward, in place and out=, as PyTorch computes them. (The gradient at exactly -3 and 3, where it is not
    defined, and of NaN is left out: PyTorch's versions and loops answer differently there.)"""
    x = torch.tensor([-float("inf"), -3.5, -3.0, -2.999, -0.0, 0.0, 1.0, 2.999, 3.0, 3.001, float("inf"),
                      float("nan")])
    for fn in (F.hardswish, F.hardsigmoid):
        run_both(fn, x, device=gpu_device)
        run_both(lambda t, fn=fn: fn(t.clone(), inplace=True), x, device=gpu_device)
    x = torch.tensor([-float("inf"), -3.5, -3.001, -2.999, -0.0, 0.0, 1.0, 2.999, 3.001, float("inf")])
    g = torch.linspace(-2, 2, x.numel())
    for fn in (torch.ops.aten.hardswish_backward, torch.ops.aten.hardsigmoid_backward):
        run_both(fn, g, x, device=gpu_device)
    run_both(lambda t: torch.ops.aten.hardswish.out(t, out=torch.empty_like(t)), x, device=gpu_device)
    run_both(lambda a, t: torch.ops.aten.hardsigmoid_backward.grad_input(a, t, grad_input=torch.empty_like(t)),
             g, x, device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
def test_ternary(gpu_device, dtype):
    a, b, c = make((7, 13), dtype), make((7, 13), dtype, seed=1), make((13,), dtype, 0.5, 2, seed=2)
    mask = make((7, 13), torch.bool, seed=4)
    for fn in [lambda a, b, c: torch.where(mask.to(a.device), a, b), lambda a, b, c: torch.where(mask.to(a.device), a, 0.0),
               lambda a, b, c: torch.addcmul(a, b, c, value=0.5), lambda a, b, c: torch.addcdiv(a, b, c, value=-2),
               lambda a, b, c: torch.lerp(a, b, 0.3), lambda a, b, c: torch.lerp(a, b, c.expand_as(a) / 3),
               lambda a, b, c: torch.clamp(a, -1, 1), lambda a, b, c: torch.clamp(a, min=b),
               lambda a, b, c: a.clone().masked_fill_(mask.to(a.device), -7.0),
               lambda a, b, c: a.clone().masked_fill_(mask[0].to(a.device), torch.tensor(2.0, device=a.device, dtype=a.dtype))]:
        run_both(fn, a, b, c, device=gpu_device)


@pytest.mark.parametrize("dtype", ALL)
def test_fill_zero_copy_arange(gpu_device, dtype):
    x = make((7, 13), dtype)
    run_both(lambda t: t.clone().fill_(1), x, device=gpu_device)
    run_both(lambda t: t.clone().zero_(), x, device=gpu_device)
    run_both(lambda t: t[:, ::2].clone().fill_(True), x, device=gpu_device)
    run_both(lambda t: t.t().contiguous(), x, device=gpu_device)
    for other in FLOATS + INTS:
        run_both(lambda t: t.to(other), x, device=gpu_device)
    if dtype != torch.bool:
        with torch.hal.strict():
            got = torch.arange(2, 40, 3, dtype=dtype, device=gpu_device)
        check(got, torch.arange(2, 40, 3, dtype=dtype))


def test_large_vectorized_and_unaligned(gpu_device):
    for dtype in [torch.float32, torch.float16, torch.bfloat16]:
        a, b = make(((1 << 22) + 3,), dtype), make(((1 << 22) + 3,), dtype, seed=1)
        for fn in [torch.add, torch.mul, lambda x, y: torch.relu(x), lambda x, y: F.gelu(x), lambda x, y: x[1:] + y[1:],
                   lambda x, y: torch.where(x > 0, x, y), lambda x, y: x * 3.0]:
            run_both(fn, a, b, device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("src", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("dst", [torch.float32, torch.float16, torch.bfloat16])
def test_casts_between_float_types_are_exact(gpu_device, src, dst):
    # The vectorized cast path (8 elements per thread) with its tail, an unaligned start (the strided path) and
    # the values where rounding matters: halfway cases, subnormals, overflow to inf, NaN, signed zeros.
    x = torch.cat([make(((1 << 20) + 5,), torch.float64, -70000, 70000),
                   torch.tensor([1 + 2 ** -8, 1 + 3 * 2 ** -9, 2 ** -130, 2 ** -20, 1e-40, 70000.0, -0.0, 0.0,
                                 float("inf"), float("nan")], dtype=torch.float64)]).to(src)
    for view in (lambda t: t, lambda t: t[1:], lambda t: t[:13]):
        with torch.hal.strict():
            got = view(x.to(gpu_device)).to(dst)
        want = view(x).to(dst)
        got = got.cpu()
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)  # NaN's payload may differ
        assert torch.equal(torch.signbit(got[~want.isnan()]), torch.signbit(want[~want.isnan()]))


def test_bad_input_raises_like_cpu(gpu_device):
    x = torch.ones(3, dtype=torch.bool, device=gpu_device)
    with pytest.raises(RuntimeError, match="Negation"):
        torch.neg(x)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        torch.div(torch.ones(2, device=gpu_device), 2, rounding_mode="bad")
    with pytest.raises(RuntimeError, match="negative integer powers"):
        torch.arange(3, device=gpu_device) ** -1
    with pytest.raises(RuntimeError):
        torch.add(torch.ones(2, 3, device=gpu_device), torch.ones(4, device=gpu_device))
    assert math.isclose(torch.ones(1, device=gpu_device).add(1).item(), 2.0)
