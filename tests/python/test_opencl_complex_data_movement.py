"""complex64 data movement and statistics over view_as_real views (csrc/torch/ops/complex_data_movement_ops.cpp,
complex_statistics_ops.cpp): gather / take_along_dim, x[indices], index_put_, masked_select, cumsum, linspace,
torch.complex, torch.polar, var / std / var_mean / std_mean, each the public real op on the (real, imaginary)
view, run on Intel's OpenCL CPU runtime against PyTorch's CPU ops.

Where the OpenCL adapter has the real kernels the complex op needs, the test runs in strict mode (any CPU
fallback raises). Where it lacks one (VAR; int64 WHERE, comparisons and masked_fill_, which masked_select and
several index tensors build on; float atomics for an accumulating index_put_), the complex op must still be done
over the view: the only fallbacks allowed are those of the real building blocks, and the profiler shows var called
on the [..., 2] view."""
from test_opencl_adapter import OPS_PRELUDE, run_on_opencl, run_ops_strictly, runtime  # noqa: F401  (a fixture)
from test_opencl_complex import COMPLEX_PRELUDE

# Moving pairs moves the values exactly: data movement is compared bit for bit.
EXACT_PRELUDE = COMPLEX_PRELUDE + """
def same(name, got, want):
    assert got.device.type == "hal" and got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape)
    assert torch.equal(got.cpu(), want), name
"""


def test_gather_and_advanced_indexing_move_pairs(runtime):
    run_ops_strictly(EXACT_PRELUDE + """
a = c(6, 5)
ad = a.to(d)
i = torch.randint(0, 6, (4, 5), generator=g)
same("gather 0", ad.gather(0, i.to(d)), a.gather(0, i))
same("gather 1 strided", ad.t().gather(1, i.t()[:, :3].to(d)), a.t().gather(1, i.t()[:, :3]))
same("gather conj", ad.conj().gather(0, i.to(d)), a.conj().gather(0, i))
same("gather neg view", torch._neg_view(ad).gather(0, i.to(d)), torch._neg_view(a).gather(0, i))
z = torch.tensor(1 - 2j)
same("gather 0-dim", z.to(d).gather(0, torch.tensor(0, device=d)), z.gather(0, torch.tensor(0)))
same("gather 0-dim self, 1-D index", z.to(d).gather(0, torch.zeros(3, dtype=torch.long, device=d)),
     z.gather(0, torch.zeros(3, dtype=torch.long)))
same("gather empty index", ad.gather(1, torch.empty(6, 0, dtype=torch.long, device=d)),
     a.gather(1, torch.empty(6, 0, dtype=torch.long)))
k = torch.randint(0, 5, (6, 2), generator=g)
same("take_along_dim", torch.take_along_dim(ad, k.to(d), 1), torch.take_along_dim(a, k, 1))
same("take_along_dim flat", torch.take_along_dim(ad, k.to(d)), torch.take_along_dim(a, k))
rows = torch.tensor([4, 0, -1, 2])
same("x[rows]", ad[rows.to(d)], a[rows])
same("x[:, cols] (CPU index)", ad[:, rows[:3]], a[:, rows[:3]])
m = a.real > 0  # masks on the CPU: resolved there (on the device they need WHERE on int64, which OpenCL lacks)
same("x[mask]", ad[m], a[m])
same("x[row mask]", ad[m[:, 0]], a[m[:, 0]])
same("x[conj][rows]", ad.conj()[rows.to(d)], a.conj()[rows])
""")


def test_index_put_writes_pairs(runtime):
    run_ops_strictly(EXACT_PRELUDE + """
a = c(6, 5)
ad = a.to(d)
rows = torch.tensor([4, 0, -1])
def put(name, fn, value):
    # fn(x, value, on): the assignment, `on` moving index tensors to x's device.
    x, y = ad.clone(), a.clone()
    fn(x, value.to(d) if torch.is_tensor(value) else value, lambda t: t.to(d))
    fn(y, value, lambda t: t)
    same(name, x, y)
put("x[rows] = v", lambda x, v, on: x.__setitem__(on(rows), v), c(3, 5))
put("x[rows] = v (broadcast row)", lambda x, v, on: x.__setitem__(on(rows), v), c(5))
put("x[rows] = scalar", lambda x, v, on: x.__setitem__(on(rows), v), 2 - 1j)
put("x[rows] = v.conj()", lambda x, v, on: x.__setitem__(on(rows), v.conj()), c(3, 5))
put("x[:, cols] = v", lambda x, v, on: x.__setitem__((slice(None), on(rows)), v), c(6, 3))
put("x[:, cols] = v strided", lambda x, v, on: x.__setitem__((slice(None), on(rows)), v.t()), c(3, 6))
put("x[mask] = scalar", lambda x, v, on: x.__setitem__(a.real > 0, v), 0.5j)
put("index_put_", lambda x, v, on: x.index_put_((on(rows),), v), c(3, 5))
put("index_put", lambda x, v, on: x.copy_(torch.index_put(x, (on(rows),), v)), c(3, 5))
put("x.t()[cols] = v", lambda x, v, on: x.t().__setitem__(on(rows), v), c(3, 6))
""")


def test_cumsum_linspace_complex_and_polar_run_natively(runtime):
    run_ops_strictly(EXACT_PRELUDE + """
a = c(7, 6)
ad = a.to(d)
r = lambda t: torch.view_as_real(t)
# cumsum of the view is the complex cumsum: the same sums of each part in the same order (ATen's CPU accumulates
# both in double); against the CPU within the real kernel's accuracy.
same("cumsum is the view's", r(ad.cumsum(1)), r(ad).cumsum(1).cpu())
for dim in (0, 1, -1):
    cc(f"cumsum {dim}", ad.cumsum(dim), a.cumsum(dim))
cc("cumsum strided", ad.t()[::2].cumsum(0), a.t()[::2].cumsum(0))
cc("cumsum conj", ad.conj().cumsum(0), a.conj().cumsum(0))
cc("cumsum dtype", ad.cumsum(0, dtype=torch.complex64), a.cumsum(0))
z = torch.tensor(1 - 2j)
cc("cumsum 0-dim", z.to(d).cumsum(0), z.cumsum(0))
x = ad.clone()
x.cumsum_(1)
cc("cumsum_", x, a.cumsum(1))
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.cumsum(ad.t(), 1, out=out)
cc("cumsum out=", out, a.t().cumsum(1))
for start, end, steps in [(1 + 2j, -3 + 0.5j, 7), (0, 1j, 1), (2, 3, 0), (2, 3j, 100), (-1 - 1j, 1 + 1j, 33)]:
    same(f"linspace {start} {end} {steps}", torch.linspace(start, end, steps, dtype=torch.complex64, device=d),
         torch.linspace(start, end, steps, dtype=torch.complex64))
re, im = torch.randn(4, 5, generator=g), torch.randn(5, generator=g)
same("complex", torch.complex(re.to(d), im.to(d)), torch.complex(re, im))
same("complex strided", torch.complex(re.to(d).t(), re.to(d).t()), torch.complex(re.t(), re.t()))
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.complex(re.to(d), im.to(d), out=out)
same("complex out=", out, torch.complex(re, im))
rho = torch.rand(4, 5, generator=g) * 3
cc("polar", torch.polar(rho.to(d), re.to(d)), torch.polar(rho, re), rtol=1.3e-6, atol=1e-5)
cc("polar broadcast", torch.polar(rho.to(d), im.to(d)), torch.polar(rho, im), rtol=1.3e-6, atol=1e-5)
""")


def test_statistics_and_masked_select_fall_back_only_for_real_building_blocks(runtime):
    out = run_on_opencl(OPS_PRELUDE + EXACT_PRELUDE + """
import warnings
from torch.profiler import profile
warnings.simplefilter("ignore")
a, z = c(6, 5), torch.tensor(1 - 2j)
ad = a.to(d)
with profile(record_shapes=True) as prof:
    for dims, keepdim, correction in [(None, False, 1), ((0,), True, 0), ((1,), False, 2), ((), False, 1),
                                      ((-1, 0), True, 1)]:
        for fn in (torch.var, torch.std, torch.var_mean, torch.std_mean):
            got = fn(ad, dims, correction=correction, keepdim=keepdim)
            want = fn(a, dims, correction=correction, keepdim=keepdim)
            for g_, w_ in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                cc(f"{fn.__name__} {dims} {keepdim} {correction}", g_, w_, rtol=1.3e-6, atol=1e-5)
    cc("var conj", ad.conj().var(0), a.conj().var(0), rtol=1.3e-6, atol=1e-5)
    cc("var_mean neg view", torch.var_mean(torch._neg_view(ad), 1)[1], torch.var_mean(torch._neg_view(a), 1)[1])
    cc("var 0-dim", z.to(d).var(correction=0), z.var(correction=0))
    cc("std 0-dim keepdim", z.to(d).std(0, correction=0, keepdim=True), z.std(0, correction=0, keepdim=True))
    out = torch.empty(0, device=d)
    torch.std(ad, 1, out=out)
    cc("std out=", out, a.std(1), rtol=1.3e-6, atol=1e-5)
m = a.real > 0
same("masked_select", ad.masked_select(m.to(d)), a.masked_select(m))
same("masked_select broadcast", ad.masked_select(m[0].to(d)), a.masked_select(m[0]))
same("masked_select conj", ad.conj().masked_select(m.to(d)), a.conj().masked_select(m))
# Several index tensors: their linear offsets need int64 comparisons, which OpenCL lacks.
rows = torch.tensor([4, 0, -1])
same("x[rows, cols]", ad[rows.to(d), rows.to(d).abs()], a[rows, rows.abs()])
b = c(3, 4, 5)
same("x[i, :, j]", b.to(d)[torch.tensor([2, 0]).to(d), :, torch.tensor([1, 4]).to(d)],
     b[torch.tensor([2, 0]), :, torch.tensor([1, 4])])
x, y = ad.clone(), a.clone()
x[rows.to(d), rows.to(d).abs()] = ad[:3, 0]
y[rows, rows.abs()] = a[:3, 0]
same("x[rows, cols] = v", x, y)
x, y = ad.clone(), a.clone()
rows = torch.tensor([0, 0, 3])
x.index_put_((rows.to(d),), ad[:3], accumulate=True)
y.index_put_((rows,), a[:3], accumulate=True)
cc("index_put_ accumulate", x, y)
# The complex ops themselves are done over the views: the real var / var_mean reaching the CPU fallback is
# called on the [..., 2] view ([1, 2] for the 0-dim tensor).
shapes = {tuple(e.input_shapes[0]) for e in prof.events() if e.name in ("aten::var", "aten::var_mean")}
print("views reduced", (6, 5, 2) in shapes and (1, 2) in shapes)
print("fallbacks", sorted(torch.hal.fallback_stats()))
""")
    lines = out.splitlines()
    assert "views reduced True" in lines, out
    fallbacks = next(line for line in lines if line.startswith("fallbacks"))
    # OpenCL lacks VAR, int64 WHERE / comparisons / masked_fill_ (masked_select's positions, several indices'
    # offsets) and float atomics (accumulate): those real building blocks only.
    allowed = {"aten::var.correction", "aten::var_mean.correction", "aten::where.self", "aten::_index_put_impl_",
               "aten::ne.Tensor", "aten::logical_or.out", "aten::masked_fill_.Scalar"}
    assert set(eval(fallbacks[len("fallbacks "):])) <= allowed, out
    assert "aten::index.Tensor" not in fallbacks, out
