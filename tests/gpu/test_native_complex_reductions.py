"""Complex reductions, scans and elementwise ops composed over real views on a GPU, against PyTorch's CPU results in
strict mode (any op reaching the CPU fallback fails): all/any and the logical ops of complex operands (their
magnitudes), prod and cumprod (log-depth products of halves, prefix scans), linalg.cross, tril/triu (the int64 bit
patterns), cat/stack, uniform_ (the real view), linalg.vector_norm with a complex dtype, vdot/vecdot (empty vectors
too), and the float16/bfloat16 ops brief C covers where they are native (div with rounding_mode="trunc")."""
import pytest
import torch

from test_native_elementwise import check, make


def make_complex(shape, seed=0, scale=1.0):
    re = make(shape, torch.float32, -2, 2, seed=seed)
    im = make(shape, torch.float32, -2, 2, seed=seed + 1)
    return torch.complex(re, im) * scale


def on_device(fn, *args, device):
    with torch.hal.strict():
        out = fn(*[a.to(device) if isinstance(a, torch.Tensor) else a for a in args])
        torch.hal.synchronize(device)
    return out


def close(got, want, rtol=1e-5, atol=1e-5):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_complex_truth_reductions_and_logical_ops(gpu_device):
    z = make_complex((4, 5))
    z[0, 0] = 0
    z[1, :] = 0
    z[2, 1] = complex(0.0, -1e-40)  # a subnormal imaginary part alone: nonzero
    z[3, 2] = complex(float("nan"), 0.0)
    w = make_complex((4, 5), seed=7)
    w[0, :2] = 0
    for fn in (lambda x: x.all(), lambda x: x.any(), lambda x: x.all(1), lambda x: x.any((0, 1), keepdim=True),
               lambda x: x.all(()), torch.logical_not):
        assert torch.equal(on_device(fn, z, device=gpu_device).cpu(), fn(z))
    for fn in (torch.logical_and, torch.logical_or, torch.logical_xor):
        assert torch.equal(on_device(fn, z, w, device=gpu_device).cpu(), fn(z, w))
        assert torch.equal(on_device(fn, z, w.real, device=gpu_device).cpu(), fn(z, w.real))


@pytest.mark.parametrize("shape", [(7,), (4, 6), (3, 5, 2), (1,), (0, 3)])
def test_complex_prod_and_cumprod(gpu_device, shape):
    z = make_complex(shape, scale=0.7)
    close(on_device(torch.prod, z, device=gpu_device), torch.prod(z))
    for dim in range(len(shape)):
        for keepdim in (False, True):
            close(on_device(lambda x: torch.prod(x, dim, keepdim=keepdim), z, device=gpu_device),
                  torch.prod(z, dim, keepdim=keepdim))
        close(on_device(lambda x: torch.cumprod(x, dim), z, device=gpu_device), torch.cumprod(z, dim))


def test_complex_cross_triangles_cat_uniform_norms_and_dots(gpu_device):
    a, b = make_complex((4, 3)), make_complex((4, 3), seed=3)
    close(on_device(torch.linalg.cross, a, b, device=gpu_device), torch.linalg.cross(a, b))
    z = make_complex((2, 4, 5))
    for k in (-1, 0, 2):
        close(on_device(lambda x: torch.tril(x, k), z, device=gpu_device), torch.tril(z, k))
        close(on_device(lambda x: torch.triu(x, k), z, device=gpu_device), torch.triu(z, k))
    y = make_complex((1, 2, 1, 4))
    close(on_device(lambda x: torch.stack([x, x, x], -1), y, device=gpu_device), torch.stack([y, y, y], -1))
    with torch.hal.strict():
        u = torch.empty(1000, dtype=torch.complex64, device=gpu_device).uniform_(-2, 3)
    parts = torch.view_as_real(u).cpu()
    assert parts.min() >= -2 and parts.max() < 3 and parts.std() > 1
    close(on_device(lambda x: torch.linalg.vector_norm(x, 2, dim=1, dtype=torch.complex64), z, device=gpu_device),
          torch.linalg.vector_norm(z, 2, dim=1, dtype=torch.complex64))
    v, w = make_complex((9,)), make_complex((9,), seed=5)
    close(on_device(torch.vdot, v, w, device=gpu_device), torch.vdot(v, w))
    for x in (torch.zeros(0), torch.zeros(0, dtype=torch.complex64)):
        close(on_device(torch.vdot, x, x, device=gpu_device), torch.vdot(x, x))
    m = make_complex((0, 3))
    close(on_device(lambda x: torch.linalg.vecdot(x, x, dim=0), m, device=gpu_device),
          torch.linalg.vecdot(m, m, dim=0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_vecdot_and_vdot_real(gpu_device, dtype):
    x, y = make((5, 7), dtype, seed=1), make((5, 7), dtype, seed=2)
    check(on_device(lambda a, b: torch.linalg.vecdot(a, b, dim=1), x, y, device=gpu_device),
          torch.linalg.vecdot(x, y, dim=1))
    check(on_device(torch.vdot, x[0], y[0], device=gpu_device), torch.vdot(x[0], y[0]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_trunc_division_of_half_types(gpu_device, dtype):
    # The quotient truncated as the CPU truncates it: rounded to the half type first, then truncated (so 261.99,
    # which rounds to 262 in float16, truncates to 262).
    x, y = make((64, 64), dtype, -100, 100, seed=3), make((64, 64), dtype, -3, 3, seed=4)
    y[y == 0] = 1
    got = on_device(lambda a, b: torch.div(a, b, rounding_mode="trunc"), x, y, device=gpu_device)
    assert torch.equal(got.cpu(), torch.div(x, y, rounding_mode="trunc"))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_nextafter_of_every_float_dtype(gpu_device, dtype):
    # float16/bfloat16 by their bit patterns (special_function_ops.cpp): one ulp of their own, not float32's.
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, inf, -inf, 2.0, nan, 1.0, 5.0], dtype=dtype)
    y = torch.tensor([2.0, 0.0, 0.0, -2.0, -1.0, 1.0, 0.0, 0.0, 0.0, 2.0, 1.0, nan, -inf], dtype=dtype)
    x = torch.cat([x, make((64,), dtype, seed=8)])
    y = torch.cat([y, make((64,), dtype, seed=9)])
    got = on_device(torch.nextafter, x, y, device=gpu_device).cpu()
    want = torch.nextafter(x, y)
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got[~want.isnan()], want[~want.isnan()])
