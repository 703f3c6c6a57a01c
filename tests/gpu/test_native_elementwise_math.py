"""The kernel library's elementwise math beyond a training step's (inverse and hyperbolic trigonometry, lgamma,
logit, softplus, elu, mish, log_sigmoid, the shrinks, nan_to_num, logaddexp, xlogy, copysign, fmax/fmin, heaviside,
hypot, floor_divide, shifts, gcd/lcm) and their backward ops, against PyTorch's CPU results in strict mode: any op
reaching the CPU fallback fails the test."""
import pytest
import torch
import torch.nn.functional as F

from test_native_elementwise import FLOATS, make, run_both

UNARY_FLOAT = {
    "asin": (torch.asin, -0.99, 0.99), "acos": (torch.acos, -0.99, 0.99), "atan": (torch.atan, -3, 3),
    "sinh": (torch.sinh, -3, 3), "cosh": (torch.cosh, -3, 3), "tan": (torch.tan, -1.4, 1.4),
    "asinh": (torch.asinh, -3, 3), "acosh": (torch.acosh, 1.01, 4), "atanh": (torch.atanh, -0.99, 0.99),
    "log10": (torch.log10, 0.1, 5), "erfc": (torch.erfc, -3, 3), "lgamma": (torch.lgamma, 0.1, 6),
    "sinc": (torch.sinc, -3, 3), "frac": (torch.frac, -3, 3), "logit": (lambda x: torch.logit(x, 0.05), -0.1, 1.1),
    "logit_no_eps": (torch.logit, 0.01, 0.99), "mish": (F.mish, -3, 3), "logsigmoid": (F.logsigmoid, -30, 30),
    "softplus": (lambda x: F.softplus(x, beta=2, threshold=4), -5, 5), "elu": (F.elu, -3, 3),
    "selu": (F.selu, -3, 3), "celu": (lambda x: F.celu(x, alpha=0.5), -3, 3),
    "softshrink": (lambda x: F.softshrink(x, 0.7), -3, 3), "hardshrink": (lambda x: F.hardshrink(x, 0.7), -3, 3),
    "entr": (torch.special.entr, -1, 3), "angle": (torch.angle, -3, 3), "sgn": (torch.sgn, -3, 3),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
def test_unary_math_matches_cpu(gpu_device, name, dtype):
    fn, low, high = UNARY_FLOAT[name]
    run_both(fn, make((7, 131), dtype, low, high), device=gpu_device)
    run_both(fn, make((33, 17), dtype, low, high).t(), device=gpu_device)  # strided


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_special_values_and_nan_to_num(gpu_device, dtype):
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0, -1.0, 0.5, -2.5], dtype=dtype)
    for fn in (torch.signbit, torch.frac, torch.sinc, torch.special.entr, torch.angle, torch.atan, torch.sgn,
               F.logsigmoid, F.mish, torch.nan_to_num, lambda t: torch.nan_to_num(t, nan=2.0, posinf=1.0),
               lambda t: torch.nan_to_num(t.clone(), neginf=-3.0)):
        run_both(fn, x, device=gpu_device)
    for half in (torch.float16, torch.bfloat16):  # the dtype's own limits replace the infinities
        run_both(torch.nan_to_num, x.to(half), device=gpu_device)
    run_both(torch.signbit, torch.tensor([-3, 0, 5]), device=gpu_device)
    run_both(torch.nan_to_num, torch.tensor([-3, 0, 5]), device=gpu_device)


@pytest.mark.parametrize("dtype", FLOATS)
def test_activation_backward_ops(gpu_device, dtype):
    x, g = make((1 << 12,), dtype), make((1 << 12,), dtype, seed=3)
    ops = [
        lambda g, x: torch.ops.aten.softplus_backward(g, x, 2.0, 4.0),
        # (The buffer is the forward's: the CPU's kernel reads it, hal's, as torch.cuda's, recomputes from x.)
        lambda g, x: torch.ops.aten.log_sigmoid_backward(g, x, torch.ops.aten.log_sigmoid_forward(x)[1]),
        lambda g, x: torch.ops.aten.elu_backward(g, 0.7, 1.2, 0.9, False, x),
        lambda g, x: torch.ops.aten.elu_backward(g, 0.7, 1.2, 0.9, True, F.elu(x, 0.7)),
        lambda g, x: torch.ops.aten.hardtanh_backward(g, x, -1.0, 1.5),
        lambda g, x: torch.ops.aten.softshrink_backward(g, x, 0.5),
        lambda g, x: torch.ops.aten.hardshrink_backward(g, x, 0.5),
        # eps 0.125, exact in every dtype: the CPU compares with eps rounded to float16, torch.cuda (and hal) with
        # eps as given, which differ on an element equal to float16(0.1).
        lambda g, x: torch.ops.aten.logit_backward(g, x.abs() / 4, 0.125),
    ]
    for fn in ops:
        run_both(fn, g, x, device=gpu_device)


def test_activations_train_natively(gpu_device):
    """Each activation's gradient through autograd, float32, against float64 on the CPU."""
    for fn in (F.softplus, F.elu, F.selu, F.celu, F.mish, F.logsigmoid, F.softshrink, F.hardshrink, F.hardtanh,
               torch.asin, torch.atan, torch.sinh, torch.lgamma, lambda t: torch.logit(t.sigmoid(), 1e-3)):
        x = make((256,), torch.float32, -0.9, 0.9)
        leaf = x.to(gpu_device).requires_grad_()
        with torch.hal.strict():
            fn(leaf).sum().backward()
        ref = x.double().requires_grad_()
        fn(ref).sum().backward()
        torch.testing.assert_close(leaf.grad.cpu(), ref.grad.float(), rtol=4e-6, atol=1e-6)


BINARY_FLOAT = {
    "logaddexp": torch.logaddexp, "logaddexp2": torch.logaddexp2, "xlogy": torch.xlogy,
    "xlog1py": torch.special.xlog1py, "copysign": torch.copysign, "fmax": torch.fmax, "fmin": torch.fmin,
    "hypot": torch.hypot, "heaviside": torch.heaviside, "floor_divide": torch.floor_divide,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(BINARY_FLOAT))
def test_binary_math_matches_cpu(gpu_device, name, dtype):
    fn = BINARY_FLOAT[name]
    a, b = make((7, 33), dtype), make((7, 33), dtype, 0.1, 3, seed=1)
    a[0, :4] = torch.tensor([0.0, float("nan"), float("inf"), -0.0])
    b[1, :3] = torch.tensor([float("nan"), 0.0, -float("inf")])
    run_both(fn, a, b, device=gpu_device)
    run_both(fn, a, b[:1], device=gpu_device)  # broadcast
    run_both(lambda x, y: fn(x.clone(), y), a.t(), b.t(), device=gpu_device)  # strided


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_integer_binary_ops(gpu_device, dtype):
    a = make((9, 17), dtype, -40, 40)
    shift = make((9, 17), dtype, 0, 9, seed=2)
    b = torch.where(make((9, 17), dtype, -6, 6, seed=3) == 0, torch.ones((), dtype=dtype), make((9, 17), dtype, -6, 6, seed=3))
    for fn in (torch.gcd, torch.lcm, torch.fmax, torch.fmin, torch.floor_divide, torch.heaviside):
        run_both(fn, a, b, device=gpu_device)
    for fn in (torch.bitwise_left_shift, torch.bitwise_right_shift):
        run_both(fn, a, shift, device=gpu_device)
    run_both(lambda x, y: x.gcd_(y), a.clone(), b, device=gpu_device)


def test_float_ops_promote_integers(gpu_device):
    """Integer inputs of the float ops compute in the default float dtype, as on the CPU."""
    a, b = torch.arange(-4, 5), torch.arange(1, 10)
    for fn in (torch.asin, torch.sinh, torch.angle, torch.special.entr, torch.sinc, lambda t: torch.logit(t, 0.1)):
        run_both(fn, a, device=gpu_device)
    for fn in (torch.xlogy, torch.copysign, torch.special.xlog1py):
        run_both(fn, a, b, device=gpu_device)
