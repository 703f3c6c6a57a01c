"""The compositions of unique_ops.cpp (_unique2, _unique, unique_dim, unique_consecutive, unique_dim_consecutive) and
mode_ops.cpp (mode), with the replay of the CPU's std::sort they share (std_sort_replay.cpp), compared with PyTorch's
CPU kernels value for value, index for index and bit for bit where -0.0 and 0.0 differ, on a device whose adapter
launches kernels: Intel's OpenCL runtime for CPUs (the device of test_opencl_adapter.py). The host device has no
kernels of its own, so a composition would never run on it. Each check also asserts that the op itself did not take
the CPU fallback (the ops a composition is made of may, where the adapter has no kernel for them)."""
from test_opencl_adapter import run_on_opencl, runtime  # noqa: F401  (runtime is a fixture)

HARNESS = """
import torch, torch_hal, warnings
warnings.simplefilter("ignore")
A = torch.ops.aten
d = "hal:0"
nan, inf = float("nan"), float("inf")
g = torch.Generator().manual_seed(0)

def on_device(x):
    return tuple(t.to(d) if isinstance(t, torch.Tensor) else t for t in x)

def same(name, got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want), name
    for a, e in zip(got, want):
        assert a.device.type == "hal", (name, a.device)
        assert a.dtype == e.dtype and a.shape == e.shape, (name, a.dtype, e.dtype, a.shape, e.shape)
        a = a.cpu()
        if a.is_floating_point():
            assert torch.equal(a.isnan(), e.isnan()), name
            assert torch.equal(a.nan_to_num(0.5), e.nan_to_num(0.5)), name
            assert torch.equal(a.signbit()[~a.isnan()], e.signbit()[~e.isnan()]), name + ": -0.0 and 0.0"
        else:
            assert torch.equal(a, e), name

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

def signed_zeros(shape):  # -1, -0.0, 0.0 and 1 in equal parts: ties whose bits differ
    x = torch.randint(-1, 2, shape, generator=g).float()
    return torch.where(torch.rand(shape, generator=g) < 0.5, -x, x)

INTEGER_TYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
FLOAT_TYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
"""


def run(body):
    out = run_on_opencl(HARNESS + body + "\nprint('ok')\n")
    assert out.strip().endswith("ok"), out


def test_unique_of_all_elements_matches_the_cpu(runtime):
    run("""
UNIQUE = ("aten::_unique2", "aten::_unique")
ties = torch.randint(0, 5, (4, 6), generator=g)
with_nans = torch.randn(40, generator=g).round()
with_nans[torch.rand(40, generator=g) < 0.3] = nan
inputs = [ties.to(t) for t in INTEGER_TYPES + FLOAT_TYPES] + [
    ties.gt(2), with_nans, with_nans.half(), with_nans[:10],      # NaNs: each one a value of its own, last
    signed_zeros((7,)), signed_zeros((300,)), signed_zeros((3, 50)).double(),  # which zero the CPU's std::sort keeps
    torch.tensor(2.5), torch.tensor(True), torch.empty(0), torch.empty(0, 3, dtype=torch.long),
    torch.randint(0, 2000, (5000,), generator=g), ties.t()]
for x in inputs:
    for sorted_ in (True, False):
        for inverse in (False, True):
            for counts in (False, True):
                name = f"_unique2 {x.dtype} {tuple(x.shape)} {sorted_} {inverse} {counts}"
                check(name, A._unique2, x, sorted_, inverse, counts, native=UNIQUE)
            check(f"_unique {x.dtype} {tuple(x.shape)} {sorted_} {inverse}", A._unique, x, sorted_, inverse,
                  native=UNIQUE)
    check(f"torch.unique {x.dtype}", torch.unique, x, return_inverse=True, return_counts=True, native=UNIQUE)
for t in (torch.uint16, torch.uint32, torch.uint64):           # ATen's route (no index_select for them): results
    check(f"_unique2 {t}", A._unique2, ties.to(t), True, True, True)
raises_like("unique of complex numbers", A._unique2, torch.ones(3, dtype=torch.complex64), True, True, True)
""")


def test_unique_along_a_dim_matches_the_cpu(runtime):
    run("""
UNIQUE_DIM = ("aten::unique_dim",)
rows = torch.randint(0, 2, (12, 3, 2), generator=g)              # many equal slices along every dim
with_nans = rows.float()
with_nans[1, 0, 0] = nan                                          # rows with a NaN take ATen's route: results only
inputs = [rows.to(t) for t in INTEGER_TYPES + FLOAT_TYPES] + [
    rows.bool(), rows.transpose(0, 2), signed_zeros((40, 2)), signed_zeros((6, 30)),
    torch.randint(0, 3, (200, 2), generator=g), torch.tensor([7, 7, 1])]
for x in inputs:
    for dim in range(-x.dim(), x.dim()):
        for sorted_ in (True, False):
            for inverse, counts in ((False, False), (True, True), (True, False)):
                name = f"unique_dim {x.dtype} {tuple(x.shape)} {dim} {sorted_} {inverse} {counts}"
                check(name, A.unique_dim, x, dim, sorted_, inverse, counts, native=UNIQUE_DIM)
        check(f"torch.unique dim {x.dtype} {dim}", torch.unique, x, dim=dim, return_inverse=True,
              return_counts=True, native=UNIQUE_DIM)
check("unique_dim uint16", A.unique_dim, rows.to(torch.uint16), 1, True, True, True)
for dim in range(3):
    check(f"unique_dim with NaNs {dim}", A.unique_dim, with_nans, dim, True, True, True)
check("unique_dim of an empty dim", A.unique_dim, torch.empty(0, 3), 0, True, True, True, native=UNIQUE_DIM)
check("unique_dim of an empty last dim", A.unique_dim, torch.empty(3, 0), -1, True, True, True, native=UNIQUE_DIM)
raises_like("unique_dim of a 0-dim", A.unique_dim, torch.tensor(1.0), 0, True, True, True)
raises_like("unique_dim, empty dim not selected", A.unique_dim, torch.empty(0, 3), 1, True, True, True)
raises_like("unique_dim, two empty dims", A.unique_dim, torch.empty(0, 0), 0, True, True, True)
raises_like("unique_dim dim out of range", A.unique_dim, rows, 3, True, True, True)
""")


def test_unique_consecutive_matches_the_cpu(runtime):
    run("""
CONSECUTIVE = ("aten::unique_consecutive", "aten::unique_dim_consecutive")
runs = torch.randint(0, 2, (5, 4, 3), generator=g)
with_nans = torch.tensor([nan, nan, 1.0, 1.0, -0.0, 0.0, nan, 2.0])   # NaNs never equal; -0.0 == 0.0
inputs = [runs.to(t) for t in INTEGER_TYPES + FLOAT_TYPES] + [
    runs.bool(), runs.transpose(0, 1), with_nans, with_nans.reshape(4, 2),
    torch.tensor(3.0), torch.empty(0), torch.empty(0, 2)]
for x in inputs:
    for inverse in (False, True):
        for counts in (False, True):
            for dim in [None] + list(range(-x.dim(), x.dim())):
                if dim is not None and x.numel() == 0 and x.size(dim) != 0:
                    continue
                name = f"unique_consecutive {x.dtype} {tuple(x.shape)} {inverse} {counts} {dim}"
                check(name, A.unique_consecutive, x, inverse, counts, dim, native=CONSECUTIVE)
                if dim is not None:
                    check("unique_dim_consecutive " + name, A.unique_dim_consecutive, x, dim, inverse, counts,
                          native=CONSECUTIVE)
    check(f"torch.unique_consecutive {x.dtype}", torch.unique_consecutive, x, return_inverse=True,
          return_counts=True, native=CONSECUTIVE)
check("unique_consecutive uint32", A.unique_consecutive, runs.to(torch.uint32), True, True, 1)
raises_like("unique_consecutive of complex numbers", A.unique_consecutive, torch.ones(3, dtype=torch.cfloat))
raises_like("unique_consecutive, empty dim not selected", A.unique_consecutive, torch.empty(0, 3), True, True, 1)
""")


def test_mode_picks_the_cpus_value_and_index(runtime):
    run("""
MODE = ("aten::mode", "aten::mode.values")
ties = torch.randint(0, 3, (6, 9, 4), generator=g)               # ties between equally frequent values
inputs = [ties.to(t) for t in INTEGER_TYPES + FLOAT_TYPES] + [
    ties.gt(1), ties.transpose(0, 2), signed_zeros((5, 12)), signed_zeros((4, 90)),
    torch.randn(3, 7, generator=g)]                               # all values distinct: the smallest, its index
for x in inputs:
    for dim in range(-x.dim(), x.dim()):
        for keepdim in (False, True):
            check(f"mode {x.dtype} {tuple(x.shape)} {dim} {keepdim}", torch.mode, x, dim, keepdim, native=MODE)
# Lines longer than 16: the CPU's std::sort is not stable there, its index among equal values is the replay's.
for n in (17, 18, 31, 64, 257, 1000, 3000):
    for distinct in (1, 2, 5, 40):
        x = torch.randint(0, distinct, (7, n), generator=g)
        check(f"mode long lines {n} {distinct}", torch.mode, x, 1, native=MODE)
        check(f"mode long lines, dim 0 {n} {distinct}", torch.mode, x.t().half(), 0, native=MODE)
for x in (torch.arange(100).expand(3, 100), torch.arange(100).flip(0).expand(3, 100), torch.zeros(2, 500)):
    check("mode of sorted and constant lines", torch.mode, x, -1, native=MODE)
# A line with a NaN: the CPU's comparator (<) is no order there; such inputs keep ATen's route (results only).
with_nans = ties.float()
with_nans[0, :3, 1] = nan
with_nans[2] = nan
for dim in range(3):
    check(f"mode with NaNs {dim}", torch.mode, with_nans, dim)
check("mode empty lines", torch.mode, torch.empty(0, 4), 1, native=MODE)
check("mode empty lines keepdim", torch.mode, torch.empty(0, 4), 1, True, native=MODE)
values, indices = torch.mode(torch.tensor(2.5).to(d), 0)          # (the CPU's value here is uninitialized memory)
assert values.cpu().item() == 2.5 and indices.cpu().item() == 0 and values.dim() == indices.dim() == 0
out_v, out_i = torch.empty(0, dtype=torch.long, device=d), torch.empty(0, dtype=torch.long, device=d)
torch.hal.reset_fallback_stats()
torch.mode(ties.to(d), 1, out=(out_v, out_i))
assert not set(torch.hal.fallback_stats()) & set(MODE)
same("mode out=", (out_v, out_i), tuple(torch.mode(ties, 1)))
raises_like("mode of an empty line", torch.mode, torch.empty(3, 0), 1)
raises_like("mode of complex numbers", torch.mode, torch.ones(3, dtype=torch.cfloat), 0)
raises_like("mode dim out of range", torch.mode, ties, 3)
""")
