"""Complex ops composed from native real ones, on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU
ops, through test_opencl_adapter.py's harness: all/any and the logical ops of complex operands (of their
magnitudes, reduction_ops.cpp and elementwise_binary/unary_ops.cpp), prod and cumprod (log-depth products of
halves and prefix scans), linalg.cross, tril/triu (the int64 bit patterns), uniform_ (the real view),
linalg.vector_norm with a complex dtype, vdot and vecdot of empty vectors and the identities of empty sums."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)

COMPLEX_PRELUDE = """
def c(*shape):
    return torch.complex(r(*shape), r(*shape))
"""


def test_complex_truth_ops_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
z = c(4, 5)
z[0, 0] = 0
z[1, :] = 0
z[2, 1] = complex(0.0, -1e-40)  # a subnormal imaginary part alone: nonzero
z[3, 2] = complex(float("nan"), 0.0)  # NaN: true
w = c(4, 5)
w[0, :2] = 0
for name, fn in [("all", lambda x: x.all()), ("any", lambda x: x.any()), ("all dim", lambda x: x.all(1)),
                 ("any dims keepdim", lambda x: x.any((0, 1), keepdim=True)), ("all dims []", lambda x: x.all(())),
                 ("logical_not", torch.logical_not)]:
    check(name, fn(z.to(d)), fn(z))
for name, fn in [("logical_and", torch.logical_and), ("logical_or", torch.logical_or),
                 ("logical_xor", torch.logical_xor)]:
    check(name, fn(z.to(d), w.to(d)), fn(z, w))
    check(name + " real other", fn(z.to(d), w.real.to(d)), fn(z, w.real))
    check(name + " broadcast", fn(z.to(d), w[0].to(d)), fn(z, w[0]))
""")


def test_complex_products_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
for shape in [(7,), (4, 6), (3, 5, 2), (1,), (0, 3)]:
    z = c(*shape) * 0.7
    check(f"prod {shape}", torch.prod(z.to(d)), torch.prod(z), rtol=1e-5, atol=1e-5)
    for dim in range(len(shape)):
        check(f"prod {shape} dim {dim}", torch.prod(z.to(d), dim), torch.prod(z, dim), rtol=1e-5, atol=1e-5)
        check(f"prod {shape} dim {dim} keepdim", torch.prod(z.to(d), dim, keepdim=True),
              torch.prod(z, dim, keepdim=True), rtol=1e-5, atol=1e-5)
        check(f"cumprod {shape} dim {dim}", torch.cumprod(z.to(d), dim), torch.cumprod(z, dim), rtol=1e-5, atol=1e-5)
z = c(3, 9)
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.cumprod(z.to(d), 1, out=out)
check("cumprod out=", out, torch.cumprod(z, 1), rtol=1e-5, atol=1e-5)
inplace = z.to(d)
inplace.cumprod_(0)
check("cumprod_", inplace, z.cumprod(0), rtol=1e-5, atol=1e-5)
check("prod 0-dim", torch.prod(z[0, 0].to(d)), torch.prod(z[0, 0]))
""")


def test_complex_cross_triangles_uniform_and_norms_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
a, b = c(4, 3), c(4, 3)
check("linalg.cross", torch.linalg.cross(a.to(d), b.to(d)), torch.linalg.cross(a, b))
check("cross dim 0", torch.cross(a.t().to(d), b.t().to(d), dim=0), torch.cross(a.t(), b.t(), dim=0))
z = c(2, 4, 5)
for k in (-1, 0, 2):
    check(f"tril {k}", torch.tril(z.to(d), k), torch.tril(z, k))
    check(f"triu {k}", torch.triu(z.to(d), k), torch.triu(z, k))
inplace = z.to(d)
inplace.triu_(1)
check("triu_", inplace, z.triu(1))
u = torch.empty(1000, dtype=torch.complex64, device=d).uniform_(-2, 3)
parts = torch.view_as_real(u).cpu()
assert parts.min() >= -2 and parts.max() < 3 and parts.std() > 1, parts
check("vector_norm complex dtype", torch.linalg.vector_norm(z.to(d), 2, dim=1, dtype=torch.complex64),
      torch.linalg.vector_norm(z, 2, dim=1, dtype=torch.complex64))
check("vector_norm complex", torch.linalg.vector_norm(z.to(d), 1), torch.linalg.vector_norm(z, 1))
""")


def test_empty_dots_and_sums_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
for x in (r(0), c(0)):
    check(f"vdot empty {x.dtype}", torch.vdot(x.to(d), x.to(d)), torch.vdot(x, x))
for x in (r(5, 0), c(0, 3)):
    check(f"vecdot empty {x.dtype}", torch.linalg.vecdot(x.to(d), x.to(d), dim=0), torch.linalg.vecdot(x, x, dim=0))
    check(f"sum empty {x.dtype}", x.to(d).sum(0), x.sum(0))
""")


def test_nextafter_by_bit_patterns_runs_natively(runtime):
    # special_function_ops.cpp: OpenCL has no float32 NEXTAFTER kernel (the special functions need double), so
    # the bit-pattern composition runs: signs, zeros of both signs, infinities, the largest float, NaN, x == y.
    run_ops_strictly("""
inf, nan, big = float("inf"), float("nan"), 3.4028234663852886e38
x = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, inf, -inf, big, 2.0, nan, 1.0, 1e-45, -1e-45, 5.0])
y = torch.tensor([2.0, 0.0, 0.0, -2.0, -1.0, 1.0, 0.0, 0.0, 0.0, inf, 2.0, 1.0, nan, 0.0, 0.0, -inf])
got = torch.nextafter(x.to(d), y.to(d)).cpu()
want = torch.nextafter(x, y)
assert torch.equal(got.view(torch.int32)[~want.isnan()], want.view(torch.int32)[~want.isnan()]), (got, want)
assert torch.equal(got.isnan(), want.isnan())
a, b = r(40), r(40)
assert torch.equal(torch.nextafter(a.to(d), b.to(d)).cpu(), torch.nextafter(a, b))
out = torch.empty(0, device=d)
torch.nextafter(a.to(d), b[:1].to(d), out=out)
assert torch.equal(out.cpu(), torch.nextafter(a, b[:1]))
inplace = a.to(d)
inplace.nextafter_(b.to(d))
assert torch.equal(inplace.cpu(), torch.nextafter(a, b))
""")
