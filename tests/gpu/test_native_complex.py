"""complex64 and complex128 arithmetic composed of the kernel library's native real kernels over view_as_real views
(csrc/torch/ops/complex_by_real_view.cpp, complex_division.cpp; cat, index_select, where, masked_fill_, sum and
mean over the views) against PyTorch's CPU results in strict mode: any op reaching the CPU fallback fails the
test. The same cases run on Intel's OpenCL CPU runtime in tests/python/test_opencl_complex.py (complex64 only:
that adapter has no float64 kernels)."""
import pytest
import torch

COMPLEX = [torch.complex64, torch.complex128]
INF, NAN = float("inf"), float("nan")


def tol(dtype):
    # A few ulps of the real dtype (one rounding per real operation, as ATen's complex kernels), and an atol for
    # results that cancel to near zero (ar*br - ai*bi).
    return (4e-6, 1e-6) if dtype == torch.complex64 else (1e-13, 1e-13)


def make(shape, dtype, scale=1.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=dtype, generator=g) * scale


def real_of(dtype):
    return torch.float32 if dtype == torch.complex64 else torch.float64


def check(actual, expected, dtype, atol_scale=1.0):
    actual = actual.cpu()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    rtol, atol = tol(dtype)
    if expected.is_complex():  # part by part: infinities and NaNs must sit in the same parts
        actual, expected = torch.view_as_real(actual), torch.view_as_real(expected)
    torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol * atol_scale, equal_nan=True)


def run_both(fn, *cpu_args, device, dtype, atol_scale=1.0):
    with torch.hal.strict():
        out = fn(*[a.to(device) if isinstance(a, torch.Tensor) else a for a in cpu_args])
        torch.hal.synchronize(device)
    check(out, fn(*cpu_args), dtype, atol_scale)


BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
          "add_alpha": lambda x, y: torch.add(x, y, alpha=2.5), "sub_alpha": lambda x, y: torch.sub(x, y, alpha=-0.5),
          "eq": torch.eq, "ne": torch.ne}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_with_complex_real_and_scalar_operands(gpu_device, name, dtype):
    fn = BINARY[name]
    a, b = make((7, 131), dtype), make((7, 131), dtype, seed=1)
    real = make((7, 131), real_of(dtype), seed=2)
    b[0, :5] = a[0, :5]  # equal elements for eq / ne
    run_both(fn, a, b, device=gpu_device, dtype=dtype)
    run_both(fn, a, real, device=gpu_device, dtype=dtype)
    run_both(fn, real, b, device=gpu_device, dtype=dtype)
    for s in (2.0, 2j, 1.5 - 0.25j, 3):
        run_both(lambda x: fn(x, s), a, device=gpu_device, dtype=dtype)
        run_both(lambda x: fn(x, s), real, device=gpu_device, dtype=dtype)
    run_both(fn, a[:, None, :5], b[None, :, :5], device=gpu_device, dtype=dtype)  # broadcasting
    run_both(fn, make((33, 17), dtype).t(), make((17, 66), dtype)[:, ::2], device=gpu_device, dtype=dtype)  # strided


@pytest.mark.parametrize("dtype", COMPLEX)
def test_unary_ops(gpu_device, dtype):
    a = make((7, 131), dtype)
    for fn in (torch.neg, torch.abs, torch.conj_physical, torch.reciprocal):
        run_both(fn, a, device=gpu_device, dtype=dtype)
        run_both(fn, make((33, 17), dtype).t()[::2], device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_division_is_smiths_algorithm_for_large_small_and_special_values(gpu_device, dtype):
    a, b = make((6, 9), dtype), make((6, 9), dtype, seed=1)
    b[0, 0], b[0, 1], b[0, 2], b[0, 3] = 0, complex(0, 2), complex(3, 0), complex(-0.0, 0.0)
    a[0, 4], b[0, 4] = 0, 0
    b[1, 0], b[1, 1], b[1, 2], b[1, 3] = complex(INF, 1), complex(1, INF), complex(NAN, 0), complex(0, NAN)
    a[1, 4], a[1, 5] = complex(INF, 1), complex(NAN, 2)
    big = 1e30 if dtype == torch.complex64 else 1e300
    for sa, sb in [(1, 1), (big, big), (1 / big, 1e5 / big), (big / 1e10, 1e10 / big)]:
        run_both(torch.div, a * sa, b * sb, device=gpu_device, dtype=dtype)
        run_both(torch.reciprocal, b * sb, device=gpu_device, dtype=dtype)
    for s in (2.0, 2j, big + 1j / big, 0j, complex(INF, 0), -5):
        run_both(lambda x: x / s, a, device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_infinities_follow_atens_products(gpu_device, dtype):
    a, b = make((4, 4), dtype), make((4, 4), dtype, seed=1)
    b[0, 0], b[0, 1], b[0, 2], b[1, 0] = complex(INF, 1), complex(1, INF), complex(NAN, 0), complex(-INF, INF)
    real = make((4, 4), real_of(dtype), seed=2)
    real[0, 0], real[0, 1] = INF, NAN
    for fn in (torch.add, torch.sub, torch.mul, lambda x, y: torch.add(x, y, alpha=-2)):
        run_both(fn, a, b, device=gpu_device, dtype=dtype)
        run_both(fn, a, real, device=gpu_device, dtype=dtype)
        run_both(fn, real, b, device=gpu_device, dtype=dtype)


IN_PLACE = {"add_": lambda x, y: x.add_(y, alpha=2), "sub_": lambda x, y: x.sub_(y), "mul_": lambda x, y: x.mul_(y),
            "div_": lambda x, y: x.div_(y), "mul_scalar": lambda x, y: x.mul_(1 - 2j), "neg_": lambda x, y: x.neg_(),
            "reciprocal_": lambda x, y: x.reciprocal_(), "conj_physical_": lambda x, y: x.conj_physical_(),
            "mul_self": lambda x, y: x.mul_(x), "mul_view_of_self": lambda x, y: x[:, :3].mul_(x[:, 4:]),
            "masked_fill_": lambda x, y: x.masked_fill_(y.real > 0, 2 - 3j)}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_forms(gpu_device, name, dtype):
    fn = IN_PLACE[name]

    def apply(x, y):
        x = x.clone()
        fn(x, y)
        return x
    run_both(apply, make((5, 7), dtype), make((5, 7), dtype, seed=1), device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_out_forms(gpu_device, dtype):
    a, b = make((5, 7), dtype), make((5, 7), dtype, seed=1)
    for fn, out_dtype in [(torch.add, dtype), (torch.mul, dtype), (torch.div, dtype), (torch.eq, torch.bool)]:
        run_both(lambda x, y: fn(x, y, out=torch.empty(3, dtype=out_dtype, device=x.device)), a, b,
                 device=gpu_device, dtype=dtype)
    run_both(lambda x: torch.abs(x, out=torch.empty(0, dtype=real_of(dtype), device=x.device)), a,
             device=gpu_device, dtype=dtype)
    run_both(lambda x: torch.conj_physical(x, out=torch.empty(0, dtype=dtype, device=x.device)), a,
             device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_data_movement(gpu_device, dtype):
    a, b = make((6, 5), dtype), make((4, 5), dtype, seed=1)
    run_both(lambda x, y: torch.cat([x, y]), a, b, device=gpu_device, dtype=dtype)
    run_both(lambda x, y: torch.cat([x.t(), y.t()], 1), a, b, device=gpu_device, dtype=dtype)
    i = torch.tensor([3, 0, 5, 5, 1])
    run_both(lambda x, j: x.index_select(0, j), a, i, device=gpu_device, dtype=dtype)
    m = make((6, 5), torch.float32, seed=2) > 0
    run_both(torch.where, m, a, a * 2, device=gpu_device, dtype=dtype)
    run_both(lambda c, x, y: torch.where(c[:, :1], x, y[0]), m, a, b, device=gpu_device, dtype=dtype)
    run_both(lambda x, c: x.masked_fill(c, 1 + 2j), a, m, device=gpu_device, dtype=dtype)
    run_both(lambda x, c: x.masked_fill(c[0], 3.5), a, m, device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sum_and_mean(gpu_device, dtype):
    x, y = make((300, 7), dtype), make((4, 5, 6), dtype, seed=1)
    for dims, keepdim in [((0,), False), ((1,), True), ((0, 1), False), ((-1,), False), (None, True)]:
        run_both(lambda t: t.sum(dims, keepdim=keepdim), x, device=gpu_device, dtype=dtype, atol_scale=40)
        run_both(lambda t: t.mean(dims, keepdim=keepdim), x, device=gpu_device, dtype=dtype)
    for dims in [(0, 2), (-2,)]:
        run_both(lambda t: t.transpose(0, 2).sum(dims), y, device=gpu_device, dtype=dtype, atol_scale=10)
        run_both(lambda t: t.mean(dims), y, device=gpu_device, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_norms_and_dot_products(gpu_device, dtype):
    x, v, w = make((6, 9), dtype), make((40,), dtype, seed=1), make((40,), dtype, seed=2)
    for ord_ in (2, 1, float("inf"), 3.5):  # real results, at the tolerances of the complex dtype's parts
        run_both(lambda t: torch.linalg.vector_norm(t, ord=ord_, dim=1), x, device=gpu_device, dtype=dtype)
    run_both(lambda t: torch.norm(t, dim=0), x, device=gpu_device, dtype=dtype)
    run_both(torch.vdot, v, w, device=gpu_device, dtype=dtype, atol_scale=40)
    run_both(torch.dot, v, w, device=gpu_device, dtype=dtype, atol_scale=40)
    run_both(lambda a, b: torch.vdot(a[::2], b[1::2]), v, w, device=gpu_device, dtype=dtype, atol_scale=20)



@pytest.mark.parametrize("dtype", COMPLEX)
def test_normal_draws_both_parts(gpu_device, dtype):
    with torch.hal.strict():
        z = torch.empty(1 << 18, dtype=dtype, device=gpu_device).normal_(1.0, 2.0)
        w = torch.randn(1 << 18, dtype=dtype, device=gpu_device)
    z, w = z.cpu(), w.cpu()
    # Each part normal with mean 1 and std 2 / sqrt(2); randn's parts with std 1 / sqrt(2). 2^18 draws: the sample
    # mean is within 0.02 and the sample std within 1% with overwhelming probability.
    for part in (z.real, z.imag):
        assert abs(part.mean().item() - 1.0) < 0.02 and abs(part.std().item() - 2 ** 0.5) < 0.015
    for part in (w.real, w.imag):
        assert abs(part.mean().item()) < 0.01 and abs(part.std().item() - 0.5 ** 0.5) < 0.008
    assert abs(torch.corrcoef(torch.stack([z.real, z.imag]))[0, 1].item()) < 0.02  # independent parts
