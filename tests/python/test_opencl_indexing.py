"""GATHER, SCATTER (set) and INDEX_PUT (without accumulate) on the SPIR-V kernels (spirv_kernels/kernels/indexing.cl
around the library's indexing_elements.cuh), run on Intel's OpenCL CPU runtime in strict mode against PyTorch's
CPU ops, through test_opencl_adapter.py's harness: gather, scatter of tensors and values, advanced-index
assignment, index_copy, index_fill, put_ and take over dims, strides, negative and out-of-order indices, float32,
int64, int32 and bool. (The accumulating forms need atomics the SPIR-V kernels lack: they take the fallback.)"""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_gather_scatter_and_index_put_run_natively(runtime):
    run_ops_strictly("""
def same(name, got, want):
    assert got.device.type == "hal" and torch.equal(got.cpu(), want), name
ints = torch.randint(-9, 9, (5, 7), generator=g)
for x in (r(5, 7), ints, ints.int(), ints > 0):
    i0, i1 = torch.randint(0, 5, (4, 7), generator=g), torch.randint(0, 7, (5, 3), generator=g)
    same("gather dim 0", torch.gather(x.to(d), 0, i0.to(d)), torch.gather(x, 0, i0))
    same("gather dim 1", torch.gather(x.to(d), 1, i1.to(d)), torch.gather(x, 1, i1))
    same("gather of a transpose", torch.gather(x.to(d).t(), 1, i0.t().to(d)), torch.gather(x.t(), 1, i0.t()))
    rows = torch.stack([torch.randperm(5, generator=g)[:4] for _ in range(7)], 1)  # distinct per column
    src = x[:4].flip(0)
    same("scatter", x.to(d).scatter(0, rows.to(d), src.to(d)), x.scatter(0, rows, src))
    same("scatter value", x.to(d).scatter(0, rows.to(d), 1), x.scatter(0, rows, 1))
    same("scatter int32 index", x.to(d).scatter(0, rows.int().to(d), src.to(d)), x.scatter(0, rows, src))
    for index, value in ((torch.tensor([4, 0, 2]), x[:3]), (torch.tensor([-1, 1]), x[3:]), (torch.tensor([3]), x[0])):
        got, want = x.to(d).clone(), x.clone()
        got[index.to(d)] = value.to(d)
        want[index] = value
        same("index_put", got, want)
    cols, source = torch.tensor([6, 0, 3]), x[:, :3].clone()
    same("index_copy", x.to(d).index_copy(1, cols.to(d), source.to(d)), x.index_copy(1, cols, source))
    same("index_fill", x.to(d).index_fill(1, cols.to(d), 0), x.index_fill(1, cols, 0))
    flat = torch.tensor([0, 34, 17])
    same("put_", x.to(d).put_(flat.to(d), x.view(-1)[:3].to(d)), x.clone().put_(flat, x.view(-1)[:3]))
    same("take", torch.take(x.to(d), flat.view(3, 1).to(d)), torch.take(x, flat.view(3, 1)))
out_of_range = torch.tensor([[0, 9], [1, 2]])  # the kernels cannot raise: a bad index gathers 0 (CPU raises)
got = torch.gather(r(2, 3).to(d), 1, out_of_range.to(d)).cpu()
assert got[0, 1].item() == 0.0, got
""")
