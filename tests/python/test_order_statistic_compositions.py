"""The compositions of order_statistic_ops.cpp (median, nanmedian, kthvalue) and of trace_ops.cpp, glu_ops.cpp,
prelu_ops.cpp, renorm_ops.cpp and frexp_ops.cpp, compared with PyTorch's CPU kernels value for value and index for
index, on a device whose adapter launches kernels: Intel's OpenCL runtime for CPUs (the device of
test_opencl_adapter.py). The host device has no kernels of its own (ATen's CPU kernels run there in place, or go
through the CPU fallback without host access), so a composition would never run on it. Each check also asserts
that the op itself did not take the CPU fallback (the ops a composition is made of may, where the adapter has no
kernel for them)."""
from test_opencl_adapter import run_on_opencl, runtime  # noqa: F401  (runtime is a fixture)

HARNESS = """
import torch, torch_hal, warnings
warnings.simplefilter("ignore")
d = "hal:0"
nan, inf = float("nan"), float("inf")
g = torch.Generator().manual_seed(0)

def on_device(x):
    return tuple(t.to(d) if isinstance(t, torch.Tensor) else t for t in x)

def same(name, got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for a, e in zip(got, want):
        assert a.device.type == "hal", (name, a.device)
        assert a.dtype == e.dtype and a.shape == e.shape, (name, a.dtype, e.dtype, a.shape, e.shape)
        if a.is_floating_point() and a.dtype in (torch.float16, torch.bfloat16):
            torch.testing.assert_close(a.cpu(), e, equal_nan=True, msg=name)
        else:
            torch.testing.assert_close(a.cpu(), e, equal_nan=True, rtol=1.3e-6, atol=1e-5, msg=lambda m: name + m)
            if not a.is_floating_point() and not a.is_complex():
                assert torch.equal(a.cpu(), e), name

def check(name, fn, *args, native=(), **kwargs):
    \"\"\"fn on the device against fn on the CPU; `native`: aten ops that must not have taken the fallback.\"\"\"
    want = fn(*args, **kwargs)
    torch.hal.reset_fallback_stats()
    got = fn(*on_device(args), **kwargs)
    fell_back = set(torch.hal.fallback_stats())
    assert not fell_back & set(native), (name, sorted(fell_back & set(native)))
    as_tuple = lambda r: tuple(r) if isinstance(r, (tuple, list)) else r
    same(name, as_tuple(got), as_tuple(want))

def raises_like(name, fn, *args):
    try:
        fn(*args)
    except Exception as e:
        want = (type(e), str(e).splitlines()[0])
    else:
        raise AssertionError(name + ": CPU accepts it")
    try:
        fn(*on_device(args))
    except Exception as e:
        assert (type(e), str(e).splitlines()[0]) == want, (name, e, want)
    else:
        raise AssertionError(name + ": the device accepts it")
"""


def run(body):
    out = run_on_opencl(HARNESS + body + "\nprint('ok')\n")
    assert out.strip().endswith("ok"), out


def test_median_and_nanmedian_pick_the_cpus_elements(runtime):
    run("""
MED = ("aten::median", "aten::median.dim", "aten::median.dim_values")
NANMED = ("aten::nanmedian", "aten::nanmedian.dim", "aten::nanmedian.dim_values")
ties = torch.randint(0, 3, (6, 9), generator=g)          # many ties: the index among them is the CPU's
floats = torch.randn(5, 7, 4, generator=g)
with_nans = floats.clone()
with_nans[torch.rand(5, 7, 4, generator=g) < 0.3] = nan
with_nans[1, :, 2] = nan                                   # a line of NaNs only
for x in (ties, ties.int(), ties.to(torch.int8), floats, with_nans, floats.half(), with_nans.bfloat16(),
          floats.double(), floats.transpose(0, 2)):
    for dim in range(-x.dim(), x.dim()):
        for keepdim in (False, True):
            check(f"median {x.dtype} {dim} {keepdim}", torch.median, x, dim, keepdim, native=MED)
            check(f"nanmedian {x.dtype} {dim} {keepdim}", torch.nanmedian, x, dim, keepdim, native=NANMED)
    check(f"median all {x.dtype}", torch.median, x, native=MED)
    check(f"nanmedian all {x.dtype}", torch.nanmedian, x, native=NANMED)
for n in range(1, 40):                                     # lines of NaNs only: std::nth_element's index for n
    check(f"nanmedian of {n} NaNs", torch.nanmedian, torch.full((2, n), nan), 1, native=NANMED)
check("median 0-dim", torch.median, torch.tensor(2.5), 0, native=MED)
check("median 0-dim keepdim", torch.median, torch.tensor(2.5), -1, True, native=MED)
check("median of a 0-dim", torch.median, torch.tensor(2.5), native=MED)
check("median empty", torch.median, torch.empty(0), native=MED)
check("nanmedian empty", torch.nanmedian, torch.empty(0), native=NANMED)
check("median empty lines", torch.median, torch.empty(0, 4), 1, native=MED)
out_v, out_i = torch.empty(0, device=d), torch.empty(0, dtype=torch.long, device=d)
torch.median(floats.to(d), 1, out=(out_v, out_i))
same("median out=", (out_v, out_i), tuple(torch.median(floats, 1)))
raises_like("median of an empty line", torch.median, torch.empty(3, 0), 1)
raises_like("median of bools", torch.median, torch.ones(3, dtype=torch.bool), 0)
raises_like("median dim out of range", torch.median, floats, 3)
""")


def test_kthvalue_picks_the_cpus_elements_ties_included(runtime):
    run("""
KTH = ("aten::kthvalue", "aten::kthvalue.values")
floats = torch.randn(5, 7, 4, generator=g)
with_nans = floats.clone()
with_nans[torch.rand(5, 7, 4, generator=g) < 0.2] = nan
distinct = torch.randperm(60, generator=g).reshape(5, 12)
# (16-bit floats from distinct small integers: rounding randn to them would make ties)
for x in (floats, distinct.half(), distinct.bfloat16() / 4, floats.double(), distinct, distinct.int(),
          floats.transpose(0, 2)):
    for dim in range(-x.dim(), x.dim()):
        for k in (1, x.size(dim) // 2 + 1, x.size(dim)):
            for keepdim in (False, True):
                check(f"kthvalue {x.dtype} {k} {dim} {keepdim}", torch.kthvalue, x, k, dim, keepdim, native=KTH)
# NaNs sort last, as in the CPU's order. Where a line's k-th value is tied (NaNs are equal there), the index is the
# one the CPU's quickselect leaves there (quickselect_replay.cpp).
for k in (1, 3, 7):
    check(f"kthvalue with NaNs {k}", torch.kthvalue, with_nans, k, 1, native=KTH)
check("kthvalue 0-dim", torch.kthvalue, torch.tensor(2.5), 1, 0, native=KTH)
check("kthvalue empty lines", torch.kthvalue, torch.empty(0, 4), 2, 1, native=KTH)
for trial in range(40):
    n = int(torch.randint(1, 60, (1,), generator=g))
    ties = torch.randint(0, int(torch.randint(1, 6, (1,), generator=g)), (3, 4, n), generator=g)
    k = int(torch.randint(1, n + 1, (1,), generator=g))
    for x in (ties, ties.float().masked_fill(torch.rand(ties.shape, generator=g) < 0.2, nan), ties.half()):
        check(f"kthvalue ties {x.dtype} {n} {k}", torch.kthvalue, x, k, -1, trial % 2 == 0, native=KTH)
        check(f"kthvalue ties along dim 0 {x.dtype} {k}", torch.kthvalue, x.transpose(0, 2), k, 0, native=KTH)
long_line = torch.randint(0, 20, (2, 3000), generator=g)
check("kthvalue ties, long lines", torch.kthvalue, long_line, 1234, 1, native=KTH)
raises_like("kthvalue k too large", torch.kthvalue, floats, 8, 1)
raises_like("kthvalue k zero", torch.kthvalue, floats, 0, 1)
raises_like("kthvalue of an empty line", torch.kthvalue, torch.empty(3, 0), 1, 1)
""")


def test_trace_glu_prelu_renorm_and_frexp_match_the_cpu(runtime):
    run("""
m = torch.randn(5, 7, generator=g)
for x in (m, m.t(), m.half(), m.double(), m.to(torch.complex64), (m * 10).long(), (m * 10).to(torch.int8),
          (m * 10).abs().to(torch.uint8), torch.empty(0, 3)):
    check(f"trace {x.dtype}", torch.trace, x, native=("aten::trace",))
raises_like("trace of a vector", torch.trace, torch.ones(3))
raises_like("trace of bools", torch.trace, torch.ones(2, 2, dtype=torch.bool))

x = torch.randn(4, 6, 8, generator=g)
F = torch.nn.functional
for t in (x, x.half(), x.bfloat16(), x.double()):
    for dim in (0, 1, 2, -1):
        check(f"glu {t.dtype} {dim}", F.glu, t, dim, native=("aten::glu",))
        grad = torch.randn(F.glu(t, dim).shape, generator=g).to(t.dtype)
        check(f"glu_backward {t.dtype} {dim}", torch.ops.aten.glu_backward, grad, t, dim,
              native=("aten::glu_backward",))
raises_like("glu of an odd dim", F.glu, torch.ones(3, 3), 1)
raises_like("glu of a 0-dim", F.glu, torch.tensor(1.0))

w = torch.randn(6, generator=g)
for t, wt in ((x, w.reshape(6, 1)), (x.half(), w.half().reshape(6, 1)), (x, torch.tensor(0.25))):
    check(f"_prelu_kernel {t.dtype}", torch.ops.aten._prelu_kernel, t, wt, native=("aten::_prelu_kernel",))
    grad = torch.randn(x.shape, generator=g).to(t.dtype)
    check(f"_prelu_kernel_backward {t.dtype}", torch.ops.aten._prelu_kernel_backward, grad, t, wt,
          native=("aten::_prelu_kernel_backward",))

big = torch.randn(4, 5, 6, generator=g) * 3
for t in (big, big.half(), big.double(), big.to(torch.complex64)):
    for p, dim, maxnorm in ((2, 0, 5.0), (1, 1, 4.0), (inf, -1, 2.0), (3.5, 2, 100.0), (2, 0, 0.0)):
        check(f"renorm {t.dtype} {p} {dim} {maxnorm}", torch.renorm, t, p, dim, maxnorm, native=("aten::renorm",))
y = big.to(d)
y.renorm_(2, 1, 3.0)
same("renorm_", y, big.renorm(2, 1, 3.0))
out = torch.empty(0, device=d)
torch.renorm(big.to(d), 2, 0, 3.0, out=out)
same("renorm out=", out, big.renorm(2, 0, 3.0))
raises_like("renorm of a vector", torch.renorm, torch.ones(3), 2, 0, 1.0)
raises_like("renorm non-positive p", torch.renorm, torch.ones(3, 3), 0, 0, 1.0)
raises_like("renorm negative maxnorm", torch.renorm, torch.ones(3, 3), 2, 0, -1.0)

special = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, 3.0, 1e-40, -1e-45, 1.1754942e-38, 3.4e38, -7.25, 2.0 ** -126]
values = torch.tensor(special + torch.randn(200, generator=g).mul(1e3).tolist())
for t in (values, values.half(), values.bfloat16(), values.double(),
          torch.tensor([1e-310, -4.9e-324, 1e308, 2.0 ** -1022], dtype=torch.float64)):
    check(f"frexp {t.dtype}", torch.frexp, t, native=("aten::frexp.Tensor_out",))
    numbers = ~t.isnan()  # (a NaN's sign is the dtype conversion's business)
    signs = torch.frexp(t.to(d)).mantissa.cpu().signbit()
    assert torch.equal(signs[numbers], torch.frexp(t).mantissa.signbit()[numbers])
raises_like("frexp of integers", torch.frexp, torch.tensor([1, 2]))
""")
