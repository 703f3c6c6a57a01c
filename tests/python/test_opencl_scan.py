"""CUMSUM and CUMPROD on the SPIR-V kernels (spirv_kernels/kernels/scan.cl around the library's scan_rules.cuh), run
on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU ops, through test_opencl_adapter.py's harness:
every dim of strided tensors, in place and out=, float32 into float32 and bool and integers into int64."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_cumsum_and_cumprod_run_natively(runtime):
    run_ops_strictly("""
x = r(5, 7, 3)
for dim in (0, 1, 2, -1):
    check(f"cumsum {dim}", x.to(d).cumsum(dim), x.cumsum(dim))
    check(f"cumprod {dim}", x.to(d).cumprod(dim), x.cumprod(dim))
    check(f"cumsum of a transpose {dim}", x.to(d).transpose(0, 2).cumsum(dim), x.transpose(0, 2).cumsum(dim))
long_line = r(3, 5000)  # 5000 terms of size ~1: the running sums' rounding grows like sqrt(length)
check("cumsum long", long_line.to(d).cumsum(1), long_line.cumsum(1), rtol=1e-4, atol=1e-3)
check("cumsum 0-dim", torch.tensor(2.5).to(d).cumsum(0), torch.tensor(2.5))
y = x.to(d).clone()
y.cumsum_(1)
check("cumsum_", y, x.cumsum(1))
out = torch.empty(0, device=d)
torch.cumsum(x.to(d), 0, out=out)
check("cumsum out=", out, x.cumsum(0))
ints = torch.randint(-4, 5, (6, 9), generator=g)
for t in (ints, ints.int(), ints.to(torch.int16), ints > 0, ints.to(torch.uint8).abs()):
    for dim in (0, 1):
        got, want = t.to(d).cumsum(dim), t.cumsum(dim)
        assert got.dtype == want.dtype == torch.int64 and torch.equal(got.cpu(), want), ("cumsum", t.dtype, dim)
        got, want = t.to(d).cumprod(dim), t.cumprod(dim)
        assert torch.equal(got.cpu(), want), ("cumprod", t.dtype, dim)
""")


def test_logcumsumexp_cummax_cummin_run_natively(runtime):
    run_ops_strictly("""
x = r(5, 7, 3)
for dim in (0, 1, 2, -1):
    check(f"logcumsumexp {dim}", x.to(d).logcumsumexp(dim), x.logcumsumexp(dim))
    check(f"logcumsumexp of a transpose {dim}", x.to(d).transpose(0, 2).logcumsumexp(dim),
          x.transpose(0, 2).logcumsumexp(dim))
specials = torch.tensor([[-float("inf"), -float("inf"), 0.0, float("inf"), float("inf"), 1.0],
                         [1.0, float("nan"), 2.0, -float("inf"), 3.0, 4.0]])
check("logcumsumexp specials", specials.to(d).logcumsumexp(1), specials.logcumsumexp(1))
ties = torch.randint(-2, 3, (6, 40), generator=g)
floats = ties.float()
floats[2, 7] = float("nan")
floats[2, 30] = float("nan")
for t in (ties, floats, floats.t()):
    for dim in (0, 1):
        for fn in (torch.cummax, torch.cummin):
            got, want = fn(t.to(d), dim), fn(t, dim)
            check(f"{fn.__name__} values {t.dtype} {dim}", got.values, want.values)
            assert torch.equal(got.indices.cpu(), want.indices), (fn.__name__, t.dtype, dim)
""")


def test_searchsorted_and_bucketize_run_natively(runtime):
    # (With a sorter, ATen's check of its range takes an int64 aminmax, which the SPIR-V reductions lack: the GPU
    # suite covers sorters.)
    run_ops_strictly("""
rows = torch.randint(-20, 20, (3, 50), generator=g).sort(-1).values
values = torch.randint(-25, 25, (3, 30), generator=g)
boundaries = torch.randint(-20, 20, (64,), generator=g).sort().values
for t in (lambda u: u, lambda u: u.float()):
    s, v, b = t(rows), t(values), t(boundaries)
    for right in (False, True):
        for name, fn in (("rows", lambda s, v, b: torch.searchsorted(s, v, right=right)),
                         ("int32", lambda s, v, b: torch.searchsorted(s, v, right=right, out_int32=True)),
                         ("1-D", lambda s, v, b: torch.searchsorted(b, v, right=right)),
                         ("strided", lambda s, v, b: torch.searchsorted(s.t().contiguous().t(), v.t().contiguous().t(), right=right)),
                         ("bucketize", lambda s, v, b: torch.bucketize(v, b, right=right))):
            got, want = fn(s.to(d), v.to(d), b.to(d)), fn(s, v, b)
            assert got.dtype == want.dtype and torch.equal(got.cpu(), want), (name, s.dtype, right)
""")
