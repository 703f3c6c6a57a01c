"""complex64 arithmetic composed of the kernel library's native float32 kernels over view_as_real views
(csrc/torch/ops/complex_by_real_view.cpp, complex_division.cpp; cat, index_select, where, masked_fill_, sum and
mean over the views), run on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU ops, through
test_opencl_adapter.py's harness. complex128 composes the same way over the float64 kernels (the SPIR-V float64
module, kernels/float64.cl), natively and to float64's precision (in place included)."""
from test_opencl_adapter import run_on_opencl, run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)

# Tolerances from float32: rtol of a few ulps (the compositions round as ATen's complex kernels do: one rounding
# per real operation), atol for results that cancel to near zero (ar*br - ai*bi), scaled by the operands' size.
COMPLEX_PRELUDE = """
def c(*shape, scale=1.0):
    return torch.complex(r(*shape), r(*shape)) * scale
def cc(name, got, want, rtol=4e-6, atol=1e-6):
    assert got.device.type == "hal" and got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape)
    got = got.cpu()
    if want.is_complex():  # part by part: infinities and NaNs must sit in the same parts as the CPU's
        got, want = torch.view_as_real(got), torch.view_as_real(want)
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, msg=name)
"""


def test_complex_arithmetic_runs_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
a, b, f = c(5, 7), c(5, 7), r(5, 7)
ad, bd, fd = a.to(d), b.to(d), f.to(d)
for name, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div),
                 ("add alpha", lambda x, y: torch.add(x, y, alpha=2.5)), ("sub alpha", lambda x, y: torch.sub(x, y, alpha=-0.5)),
                 ("rsub", lambda x, y: torch.rsub(x, y, alpha=3))]:
    cc(name, fn(ad, bd), fn(a, b))
    cc(name + " complex, real", fn(ad, fd), fn(a, f))
    cc(name + " real, complex", fn(fd, bd), fn(f, b))
    for s in (2.0, 2j, 1.5 - 0.25j, 3):
        cc(f"{name} scalar {s}", fn(ad, s), fn(a, s))
    cc(name + " broadcast", fn(ad[:, None], bd[None, 0]), fn(a[:, None], b[None, 0]))
    cc(name + " non-contiguous", fn(ad.t(), bd.t()[:, ::2].repeat_interleave(2, 1)[:, :5]),
       fn(a.t(), b.t()[:, ::2].repeat_interleave(2, 1)[:, :5]))
cc("real tensor * 2j", fd * 2j, f * 2j)
cc("real tensor + (1-1j)", fd + (1 - 1j), f + (1 - 1j))
cc("2j / complex", 2j / bd, 2j / b)
cc("0-dim device operand", ad * bd[0, 0], a * b[0, 0])
cc("neg", -ad, -a)
cc("neg strided", torch.neg(ad.t()[::2]), torch.neg(a.t()[::2]))
cc("reciprocal", ad.reciprocal(), a.reciprocal())
cc("abs", ad.abs(), a.abs())
cc("abs strided", ad.t().abs(), a.t().abs())
cc("conj_physical", torch.conj_physical(ad), torch.conj_physical(a))
cc("conj_physical strided", torch.conj_physical(ad[:, 1::3]), torch.conj_physical(a[:, 1::3]))
e = b.clone()
e[0] = a[0]
e[1, :3] = a[1, :3].real + 0j
e[2, :3] = torch.complex(a[2, :3].imag * 0 + 7, a[2, :3].imag)
for name, fn in [("eq", torch.eq), ("ne", torch.ne)]:
    cc(name, fn(ad, e.to(d)), fn(a, e))
    cc(name + " scalar", fn(ad, complex(a[0, 0])), fn(a, complex(a[0, 0])))
    cc(name + " real", fn(ad, fd), fn(a, f))
    cc(name + " broadcast", fn(ad, e.to(d)[0]), fn(a, e[0]))
""")


def test_complex_division_is_smiths_algorithm(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
inf, nan = float("inf"), float("nan")
a, b = c(6, 9), c(6, 9)
b[0, 0], b[0, 1], b[0, 2], b[0, 3] = 0, complex(0, 2), complex(3, 0), complex(-0.0, 0.0)
a[0, 4], b[0, 4] = 0, 0
b[1, 0], b[1, 1], b[1, 2], b[1, 3] = complex(inf, 1), complex(1, inf), complex(nan, 0), complex(0, nan)
a[1, 4], a[1, 5] = complex(inf, 1), complex(nan, 2)
for scale_a, scale_b in [(1, 1), (1e30, 1e30), (1e-30, 1e-25), (1e20, 1e-20), (1e-38, 1e-38), (1e38, 1e38)]:
    x, y = a * scale_a, b * scale_b
    cc(f"div {scale_a} / {scale_b}", x.to(d) / y.to(d), x / y)
    cc(f"reciprocal {scale_b}", y.to(d).reciprocal(), y.reciprocal())
for s, scale in [(2.0, 1), (2j, 1), (1e30 + 1e-30j, 1), (3e-39 - 4e-39j, 1e-38), (0j, 1), (complex(inf, 0), 1),
                 (complex(0, nan), 1), (-5, 1)]:  # (subnormal divisor: a scaled so that quotients stay far from overflow)
    cc(f"div by scalar {s}", (a * scale).to(d) / s, (a * scale) / s)
f = r(6, 9)
f[0, 0] = 0
cc("complex / real", a.to(d) / f.to(d), a / f)
cc("real / complex", f.to(d) / b.to(d), f / b)
cc("int / complex", torch.arange(9).to(d) / b.to(d), torch.arange(9) / b)
x = a.to(d)
x /= b.to(d)
cc("div_", x, a / b)
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.div(a.to(d), b.to(d), out=out)
cc("div out=", out, a / b)
""")


def test_complex_infinities_follow_atens_products(runtime):
    # ATen multiplies b by the complex alpha (1 + 0i) in a + b, and promotes real operands to (x, 0): an infinite
    # part makes the other part of the product NaN (0 * inf), as torch.cuda's kernels do too.
    run_ops_strictly(COMPLEX_PRELUDE + """
inf, nan = float("inf"), float("nan")
a = c(4, 4)
b = c(4, 4)
b[0, 0], b[0, 1], b[0, 2], b[1, 0] = complex(inf, 1), complex(1, inf), complex(nan, 0), complex(-inf, inf)
f = r(4, 4)
f[0, 0], f[0, 1] = inf, nan
ad, bd, fd = a.to(d), b.to(d), f.to(d)
for name, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul),
                 ("add alpha", lambda x, y: torch.add(x, y, alpha=-2))]:
    cc(name, fn(ad, bd), fn(a, b))
    cc(name + " real", fn(ad, fd), fn(a, f))
    cc(name + " real first", fn(fd, bd), fn(f, b))
    cc(name + " inf scalar", fn(ad, complex(inf, 0)), fn(a, complex(inf, 0)))
cc("abs", bd.abs(), b.abs())
cc("neg", -bd, -b)
""")


def test_complex_in_place_and_out_forms(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
a, b, f = c(5, 7), c(5, 7), r(5, 7)
for name, fn in [("add_", lambda x, y: x.add_(y, alpha=2)), ("sub_", lambda x, y: x.sub_(y)), ("mul_", lambda x, y: x.mul_(y)),
                 ("div_", lambda x, y: x.div_(y)), ("mul_ real", lambda x, y: x.mul_(y.real.contiguous())),
                 ("mul_ scalar", lambda x, y: x.mul_(1 - 2j)), ("neg_", lambda x, y: x.neg_()),
                 ("reciprocal_", lambda x, y: x.reciprocal_()), ("conj_physical_", lambda x, y: x.conj_physical_()),
                 ("mul_ self", lambda x, y: x.mul_(x)), ("div_ self", lambda x, y: x.div_(x)),
                 ("mul_ view of self", lambda x, y: x[:, :3].mul_(x[:, 4:])),
                 ("masked_fill_", lambda x, y: x.masked_fill_(y.real > 0, 2 - 3j)),
                 ("masked_fill_ tensor", lambda x, y: x.masked_fill_(y.real[0] > 0, torch.tensor(1j, device=x.device))),
                 ("add_ strided self", lambda x, y: x.t().add_(y.t()))]:
    x = a.to(d)
    fn(x, b.to(d))
    want = a.clone()
    fn(want, b)
    cc(name, x, want)
for name, fn, dtype in [("add", torch.add, torch.complex64), ("mul", torch.mul, torch.complex64),
                        ("div", torch.div, torch.complex64), ("eq", torch.eq, torch.bool), ("ne", torch.ne, torch.bool)]:
    out = torch.empty(3, dtype=dtype, device=d)  # resized, as ATen resizes it
    fn(a.to(d), b.to(d), out=out)
    cc(name + " out=", out, fn(a, b))
    strided = torch.empty(7, 10, dtype=dtype, device=d)[:, ::2].t()
    fn(a.to(d), b.to(d), out=strided)
    cc(name + " strided out=", strided, fn(a, b))
out = torch.empty(0, device=d)
torch.abs(a.to(d), out=out)
cc("abs out=", out, a.abs())
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.neg(a.to(d), out=out)
cc("neg out=", out, -a)
torch.conj_physical(a.to(d), out=out)
cc("conj_physical out=", out, torch.conj_physical(a))
""")


def test_complex_data_movement_and_reductions(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
a, b = c(6, 5), c(4, 5)
ad, bd = a.to(d), b.to(d)
cc("cat 0", torch.cat([ad, bd]), torch.cat([a, b]))
cc("cat 1", torch.cat([ad.t(), bd.t()], 1), torch.cat([a.t(), b.t()], 1))
cc("cat -1 strided", torch.cat([ad[:, ::2], ad[:, 1::2]], -1), torch.cat([a[:, ::2], a[:, 1::2]], -1))
cc("cat with legacy empty", torch.cat([ad, torch.empty(0, dtype=torch.complex64, device=d), bd]), torch.cat([a, b]))
i = torch.tensor([3, 0, 5, 5, 1])
cc("index_select 0", ad.index_select(0, i.to(d)), a.index_select(0, i))
cc("index_select 1 strided", ad.t().index_select(1, i[:3].to(d)), a.t().index_select(1, i[:3]))
m = r(6, 5) > 0
cc("where", torch.where(m.to(d), ad, ad * 2), torch.where(m, a, a * 2))
cc("where broadcast", torch.where(m.to(d)[:, :1], ad, bd[0]), torch.where(m[:, :1], a, b[0]))
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.where(m.to(d), ad, ad.t().contiguous().t(), out=out)
cc("where out=", out, torch.where(m, a, a))
cc("masked_fill", ad.masked_fill(m.to(d), 1 + 2j), a.masked_fill(m, 1 + 2j))
cc("masked_fill broadcast mask", ad.masked_fill(m.to(d)[0], -1j), a.masked_fill(m[0], -1j))
cc("masked_fill real value", ad.masked_fill(m.to(d), 3.5), a.masked_fill(m, 3.5))
x, y = c(300, 7), c(4, 5, 6)
xd, yd = x.to(d), y.to(d)
for dims, keepdim in [((0,), False), ((1,), True), ((0, 1), False), ((-1,), False), ((), False), (None, True)]:
    cc(f"sum {dims} {keepdim}", xd.sum(dims, keepdim=keepdim), x.sum(dims, keepdim=keepdim), atol=4e-5)
    cc(f"mean {dims} {keepdim}", xd.mean(dims, keepdim=keepdim), x.mean(dims, keepdim=keepdim), atol=1e-6)
for dims in [(0, 2), (-2,), (1,)]:
    cc(f"sum 3-D {dims}", yd.sum(dims), y.sum(dims), atol=1e-5)
    cc(f"mean 3-D strided {dims}", yd.transpose(0, 2).mean(dims), y.transpose(0, 2).mean(dims))
cc("sum all", xd.sum(), x.sum(), atol=1e-4)
z = torch.tensor(1 - 2j)
cc("sum 0-dim", z.to(d).sum(0), z.sum(0))
cc("mean 0-dim", z.to(d).mean(), z.mean())
cc("mean all", xd.mean(), x.mean())
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.sum(xd, 0, out=out)
cc("sum out=", out, x.sum(0), atol=4e-5)
torch.mean(yd, (0, 1), keepdim=True, out=out)
cc("mean out=", out, y.mean((0, 1), keepdim=True))
""")


def test_complex128_runs_natively_on_the_float64_kernels(runtime):
    # complex128 compositions run on float64.cl's kernels with no fallback; a complex64 tensor times a float64 one
    # (a complex128 result from a complex64 operand) still takes the fallback, with the right result.
    out = run_on_opencl("""
import torch, torch_hal
d = "hal:0"
g = torch.Generator().manual_seed(0)
a = torch.randn(5, 7, dtype=torch.complex128, generator=g)
b = torch.randn(5, 7, dtype=torch.complex128, generator=g)
f = torch.randn(5, 7, dtype=torch.float64, generator=g)
torch.hal.reset_fallback_stats()
pairs = {"add": (a.to(d) + b.to(d), a + b), "mul": (a.to(d) * b.to(d), a * b), "div": (a.to(d) / b.to(d), a / b),
         "real * 2j": (f.to(d) * 2j, f * 2j), "eq": (a.to(d) == b.to(d), a == b), "abs": (a.to(d).abs(), a.abs()),
         "sum": (a.to(d).sum(0), a.sum(0)), "cat": (torch.cat([a.to(d), b.to(d)]), torch.cat([a, b]))}
for name, fn in [("mul_", lambda x, y: x.mul_(y)), ("div_", lambda x, y: x.div_(y)), ("add_", lambda x, y: x.add_(y)),
                 ("conj_physical_", lambda x, y: x.conj_physical_()), ("neg_", lambda x, y: x.neg_())]:
    x = a.to(d)
    fn(x, b.to(d))
    want = a.clone()
    fn(want, b)
    pairs[name] = (x, want)
print("native", dict(torch.hal.fallback_stats()))
pairs["complex64 * float64 tensor"] = (a.to(torch.complex64).to(d) * f.to(d), a.to(torch.complex64) * f)
for name, (got, want) in pairs.items():
    torch.testing.assert_close(got.cpu(), want, rtol=1e-12, atol=1e-12, msg=name)
print("done")
""")
    assert "native {}" in out and "done" in out, out
