"""Indexing ops of complex tensors (over their real views: complex_data_movement.h, indexing_ops.cpp,
index_update_ops.cpp, nonzero_ops.cpp), torch.hash_tensor (hash_tensor_ops.cpp) and masks of any layout through
nonzero's positions, on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU ops, through
test_opencl_adapter.py's harness. What needs atomics (index_add, scatter_add, accumulating put_ / index_put_, and
every bool accumulation) the OpenCL adapter refuses: tests/gpu/test_native_complex_and_bool_indexing.py covers it."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)

COMPLEX_PRELUDE = """
def c(*shape):
    return torch.complex(r(*shape), r(*shape))
def same(name, got, want):
    assert got.device.type == "hal", name
    assert torch.equal(got.cpu(), want), name
"""


def test_complex_index_select_take_and_masked_scatter_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
x = c(5, 6)
idx = torch.tensor([4, 0, 3, 2])
for dim in (0, 1, -1):
    same(f"index_select dim {dim}", x.to(d).index_select(dim, idx.to(d)), x.index_select(dim, idx))
same("index_select int32 index", x.to(d).index_select(1, idx.int().to(d)), x.index_select(1, idx.int()))
same("index_select of a transpose", x.to(d).t().index_select(0, idx.to(d)), x.t().index_select(0, idx))
same("index_select of a conjugate", x.to(d).conj().index_select(0, idx.to(d)), x.conj().index_select(0, idx))
z = c(1).reshape(())
same("index_select 0-dim", z.to(d).index_select(0, torch.tensor([0]).to(d)), z.index_select(0, torch.tensor([0])))
flat = torch.tensor([[0, 29], [-1, 7]])
same("take", x.to(d).take(flat.to(d)), x.take(flat))
same("take of a conjugate transpose", x.to(d).t().conj().take(flat.to(d)), x.t().conj().take(flat))
same("take 0-dim", z.to(d).take(torch.tensor(0).to(d)), z.take(torch.tensor(0)))
mask = r(5, 6) > 0
src = c(30)
same("masked_scatter", x.to(d).masked_scatter(mask.to(d), src.to(d)), x.masked_scatter(mask, src))
same("masked_scatter broadcast mask", x.to(d).masked_scatter(mask[0].to(d), src.to(d)), x.masked_scatter(mask[0], src))
same("masked_scatter conjugate source", x.to(d).masked_scatter(mask.to(d), src.to(d).conj()),
     x.masked_scatter(mask, src.conj()))
y, yd = x.t().clone(), x.to(d).t().clone()
y.t().masked_scatter_(mask, src)
yd.t().masked_scatter_(mask.to(d), src.to(d))  # a non-contiguous self: the as_strided path
same("masked_scatter_ of a transpose", yd, y)
same("masked_select", x.to(d).masked_select(mask.to(d)), x.masked_select(mask))
same("x[mask]", x.to(d)[mask.to(d)], x[mask])
""")


def test_complex_index_copy_fill_put_run_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
x, src = c(5, 6), c(5, 3)
idx = torch.tensor([5, 0, 2])
same("index_copy", x.to(d).index_copy(1, idx.to(d), src.to(d)), x.index_copy(1, idx, src))
same("index_copy conjugate source", x.to(d).index_copy(1, idx.to(d), src.to(d).conj()),
     x.index_copy(1, idx, src.conj()))
xd = x.to(d)
xd.index_copy_(1, idx.to(d), src.to(d))
same("index_copy_", xd, x.index_copy(1, idx, src))
out = torch.empty(0, dtype=torch.complex64).to(d)
torch.index_copy(x.to(d), 1, idx.to(d), src.to(d), out=out)
same("index_copy out=", out, x.index_copy(1, idx, src))
for value in (2.5, 1 - 3j):
    same(f"index_fill {value}", x.to(d).index_fill(0, torch.tensor([4, 1]).to(d), value),
         x.index_fill(0, torch.tensor([4, 1]), value))
v = torch.tensor(2 + 1j)
same("index_fill tensor value", x.to(d).index_fill(1, idx.to(d), v.to(d)), x.index_fill(1, idx, v))
same("index_fill CPU value", x.to(d).index_fill(1, idx.to(d), v), x.index_fill(1, idx, v))
xt, xtd = x.t().clone().t(), x.to(d).t().clone().t()  # column-major self
xt.index_fill_(0, torch.tensor([3]), 7j)
xtd.index_fill_(0, torch.tensor([3]).to(d), 7j)
same("index_fill_ column-major", xtd, xt)
flat, vals = torch.tensor([0, 29, -2, 11]), c(4)
xd = x.to(d)
xd.put_(flat.to(d), vals.to(d))
same("put_", xd, x.clone().put_(flat, vals))
same("put", x.to(d).put(flat.to(d), vals.to(d).conj()), x.put(flat, vals.conj()))
z = c(1).reshape(())
same("put 0-dim", z.to(d).put(torch.tensor(0).to(d), vals[:1].to(d)), z.put(torch.tensor(0), vals[:1]))
""")


def test_complex_scatter_runs_natively(runtime):
    run_ops_strictly(COMPLEX_PRELUDE + """
x, src = c(6, 5), c(4, 5)
index = torch.tensor([[0, 1, 2, 3, 4], [5, 4, 3, 2, 1], [1, 0, 5, 4, 3], [2, 3, 0, 1, 5]])  # a permutation per column
same("scatter src", x.to(d).scatter(0, index.to(d), src.to(d)), x.scatter(0, index, src))
same("scatter conjugate src", x.to(d).scatter(0, index.to(d), src.to(d).conj()), x.scatter(0, index, src.conj()))
same("scatter dim 1", x.to(d).scatter(1, index[:, :3].remainder(5).to(d), src.to(d)),
     x.scatter(1, index[:, :3].remainder(5), src))
for value in (1.5, 2 - 1j):
    same(f"scatter value {value}", x.to(d).scatter(0, index.to(d), value), x.scatter(0, index, value))
xd = x.to(d)
xd.scatter_(0, index.to(d), src.to(d))
same("scatter_", xd, x.clone().scatter_(0, index, src))
xt, xtd = x.t().clone().t(), x.to(d).t().clone().t()
xt.scatter_(0, index, 3j)
xtd.scatter_(0, index.to(d), 3j)
same("scatter_ value column-major", xtd, xt)
z, zs = c(1).reshape(()), c(1).reshape(())
same("scatter 0-dim", z.to(d).scatter(0, torch.tensor(0).to(d), zs.to(d)), z.scatter(0, torch.tensor(0), zs))
same("scatter empty index", x.to(d).scatter(0, index[:0].to(d), src.to(d)), x.scatter(0, index[:0], src))
""")


def test_hash_tensor_runs_natively(runtime):
    # float32 (widened to double before the bit cast), int64 and bool (OpenCL has no float16 / bfloat16): exact.
    run_ops_strictly("""
def same(name, got, want):
    assert got.device.type == "hal" and got.dtype == torch.uint64, name
    assert torch.equal(got.cpu(), want), name
x = r(6, 7, 5)
x[0, 0, 0], x[0, 0, 1], x[0, 0, 2], x[0, 0, 3] = float("nan"), float("inf"), -0.0, 1e-40  # a subnormal
i = torch.randint(-2**62, 2**62, (6, 7, 5), generator=g)
b = r(6, 7, 5) > 0
for t in (x, i, b, x.transpose(0, 2), x[:, 1:, ::2]):
    same("all", torch.hash_tensor(t.to(d)), torch.hash_tensor(t))
    for dim in (0, 1, -1, (0, 2), (2, 0, 1)):
        for keepdim in (False, True):
            same(f"dim {dim} keepdim {keepdim}", torch.hash_tensor(t.to(d), dim, keepdim=keepdim),
                 torch.hash_tensor(t, dim, keepdim=keepdim))
for n in (1, 2, 3, 7, 64, 1000, 1025):  # odd and even halvings
    v = r(n)
    same(f"length {n}", torch.hash_tensor(v.to(d)), torch.hash_tensor(v))
s = torch.tensor(2.5)
same("0-dim", torch.hash_tensor(s.to(d)), torch.hash_tensor(s))
same("0-dim dim 0 keepdim", torch.hash_tensor(s.to(d), 0, keepdim=True), torch.hash_tensor(s, 0, keepdim=True))
e = torch.empty(0, 4)
same("empty kept dim", torch.hash_tensor(e.to(d), 1), torch.hash_tensor(e, 1))
out = torch.empty(3, dtype=torch.uint64).to(d)
torch.hash_tensor(x.to(d), (0, 2), out=out)
same("out=", out, torch.hash_tensor(x, (0, 2)))
for bad in (dict(mode=1), dict(dim=(1, 1)), dict(dim=3)):
    for t in (x[0], x[0].to(d)):
        try:
            torch.hash_tensor(t, **bad)
        except (RuntimeError, IndexError) as err:
            message = str(err)
        else:
            raise AssertionError(bad)
        if t.device.type == "cpu":
            want = message
    assert message == want, (bad, message, want)
try:
    torch.hash_tensor(e.to(d))
except RuntimeError as err:
    assert "Expected reduction dim to be specified" in str(err)
else:
    raise AssertionError("no error for an empty input without dim")
""")


def test_masks_run_natively(runtime):
    # nonzero's positions select their slots by int64 arithmetic (OpenCL has no int64 where): masks of every
    # density, and the ops built on them.
    run_ops_strictly("""
x, src = r(7, 9), r(63)
one = torch.zeros(7, 9, dtype=torch.bool)
one[3, 4] = True
for name, mask in [("random", r(7, 9) > 0), ("all", torch.ones(7, 9, dtype=torch.bool)),
                   ("none", torch.zeros(7, 9, dtype=torch.bool)), ("one", one)]:
    assert torch.equal(torch.nonzero(mask.to(d)).cpu(), torch.nonzero(mask)), name
    check(f"masked_select {name}", x.to(d).masked_select(mask.to(d)), x.masked_select(mask))
    check(f"masked_scatter {name}", x.to(d).masked_scatter(mask.to(d), src.to(d)), x.masked_scatter(mask, src))
    y, yd = x.clone(), x.to(d)
    y[mask] = 5.0
    yd[mask.to(d)] = 5.0
    check(f"x[mask] = v {name}", yd, y)
""")
