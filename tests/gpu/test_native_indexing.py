"""Native GPU kernels for index_select, gather, scatter / scatter_add, x[...] and index_put_ in general, nonzero and
the ops built on it (masked_select, masked_scatter_, count_nonzero), take / put_, index_add / index_copy /
index_fill_, repeat_interleave, cat and isin,
compared with the CPU over dtypes, layouts and shapes, in strict mode."""
import pytest
import torch

from native_nn_helpers import ALL_DTYPES, FLOAT_DTYPES, assert_close, make, native  # noqa: F401  (fixtures)

ATOMIC_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64]


def _index(n, high, seed=0, dtype=torch.int64):
    return torch.randint(0, high, (n,), generator=torch.Generator().manual_seed(seed)).to(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_index_select_matches_cpu(gpu_device, native, dtype, dim, index_dtype):
    x = make((7, 13, 5), dtype)
    index = _index(11, x.shape[dim], dtype=index_dtype)
    with native():
        got = x.to(gpu_device).index_select(dim, index.to(gpu_device))
        got_strided = x.to(gpu_device).transpose(0, 2)[::2].index_select(dim, index.to(gpu_device) % 3)
    assert_close(got, x.index_select(dim, index))
    assert_close(got_strided, x.transpose(0, 2)[::2].index_select(dim, index % 3))


@pytest.mark.parametrize("row", [1, 3, 8, 64, 1000])
def test_index_select_rows_all_widths(gpu_device, native, row):
    x = make((300, row), torch.float16)
    index = _index(1 << 11, 300)
    with native():
        got = x.to(gpu_device).index_select(0, index.to(gpu_device))
        empty = x.to(gpu_device).index_select(0, index[:0].to(gpu_device))
    assert_close(got, x.index_select(0, index))
    assert empty.shape == (0, row)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1])
def test_gather_and_backward(gpu_device, native, dtype, dim):
    x = make((9, 17), dtype)
    index = torch.randint(0, x.shape[dim], (6, 10), generator=torch.Generator().manual_seed(2))
    with native():
        got = torch.gather(x.to(gpu_device), dim, index.to(gpu_device))
    assert_close(got, torch.gather(x, dim, index))
    if dtype in FLOAT_DTYPES:
        leaf = x.to(gpu_device).requires_grad_()
        with native():
            torch.gather(leaf, dim, index.to(gpu_device)).backward(make((6, 10), dtype, seed=3).to(gpu_device))
        ref = x.double().requires_grad_()
        torch.gather(ref, dim, index).backward(make((6, 10), dtype, seed=3).double())
        # The backward adds every upstream gradient (each <= 3) gathered from an element into it: compared with
        # the float64 sums rounded once, at k = the most times one element was gathered.
        repeats = max(int(torch.bincount(index[:, j] if dim == 0 else index[j]).max())
                      for j in range(index.shape[1 - dim]))
        assert_close(leaf.grad, ref.grad.to(dtype), k=repeats, magnitude=3.0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_set_and_value(gpu_device, native, dtype):
    x = make((8, 12), dtype)
    # A permutation per row: no two writes hit one element, so the result is unique.
    index = torch.stack([torch.randperm(12, generator=torch.Generator().manual_seed(r))[:5] for r in range(8)])
    src = make((8, 7), dtype, seed=4)
    with native():
        got = x.to(gpu_device).scatter(1, index.to(gpu_device), src.to(gpu_device))
        inplace = x.to(gpu_device)
        inplace.scatter_(1, index.to(gpu_device), 1)
    assert_close(got, x.scatter(1, index, src))
    assert_close(inplace, x.clone().scatter_(1, index, 1))


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_scatter_add_with_repeats(gpu_device, native, dtype):
    x = make((5, 40), dtype)
    index = torch.randint(0, 5, (60, 40), generator=torch.Generator().manual_seed(5))
    src = make((60, 40), dtype, seed=6)
    with native():
        got = x.to(gpu_device).scatter_add(0, index.to(gpu_device), src.to(gpu_device))
        inplace = x.to(gpu_device)
        inplace.scatter_add_(0, index.to(gpu_device), src.to(gpu_device))
    want = x.double().scatter_add(0, index, src.double()).to(dtype)
    # An element sums x and every src value (each <= 3) scattered into it.
    k = 1 + max(int(torch.bincount(index[:, j], minlength=5).max()) for j in range(index.shape[1]))
    assert_close(got, want, k=k, magnitude=3.0)
    assert_close(inplace, want, k=k, magnitude=3.0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_advanced_indexing_get(gpu_device, native, dtype):
    x = make((20, 3, 4), dtype)
    index = torch.tensor([[0, -1, 5], [19, 2, -20]])
    with native():
        got = x.to(gpu_device)[index.to(gpu_device)]
        from_cpu_index = x.to(gpu_device)[index]
    assert_close(got, x[index])
    assert_close(from_cpu_index, x[index])


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(gpu_device, native, dtype, accumulate):
    x = make((30, 6), dtype)
    index = torch.tensor([1, 4, -1, 7, 4, 4]) if accumulate else torch.tensor([1, 4, -1, 7])
    values = make((index.numel(), 6), dtype, seed=7)
    with native():
        got = x.to(gpu_device).index_put_((index.to(gpu_device),), values.to(gpu_device), accumulate)
        broadcast = x.to(gpu_device)
        broadcast[index.to(gpu_device)] = values[0].to(gpu_device)
    want = x.double().index_put_((index,), values.double(), accumulate).to(dtype)
    # Accumulating: row 4 sums x and three values (each <= 3); otherwise each row is one value, copied.
    assert_close(got, want, k=4 if accumulate else 1, magnitude=3.0)
    expected_broadcast = x.clone()
    expected_broadcast[index] = values[0]
    assert_close(broadcast, expected_broadcast)


def test_index_put_bool_mask_still_works(gpu_device):
    x = make((10, 3), torch.float32)
    mask = x[:, 0] > 0
    got = x.to(gpu_device)
    got[mask.to(gpu_device)] = 0.0  # a 0-dim value with a mask: index_put_ takes masked_fill_
    want = x.clone()
    want[mask] = 0.0
    assert_close(got, want)


@pytest.mark.parametrize("dtypes", [(torch.float32, torch.float32), (torch.float16, torch.float32),
                                    (torch.int64, torch.bool), (torch.int8, torch.uint8)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_matches_cpu(gpu_device, native, dtypes, dim):
    a = make((4, 5, 6), dtypes[0])
    b = make((4, 5, 6), dtypes[1], seed=1).transpose(0, 2).contiguous().transpose(0, 2)  # permuted strides
    c = make((4, 5, 6), dtypes[0], seed=2)[:, :, :6]
    with native():
        got = torch.cat([a.to(gpu_device), b.to(gpu_device), c.to(gpu_device)], dim)
        with_legacy_empty = torch.cat([torch.empty(0, device=gpu_device), a.to(gpu_device)], dim)
    assert_close(got, torch.cat([a, b, c], dim))
    assert_close(with_legacy_empty, torch.cat([torch.empty(0), a], dim))


def test_cat_large_and_errors(gpu_device, native):
    parts = [make((1 << 18, 3), torch.float32, seed=s) for s in range(4)]
    with native():
        got = torch.cat([p.to(gpu_device) for p in parts], 0)
        assert_close(got, torch.cat(parts, 0))
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        torch.cat([torch.zeros(2, 3, device=gpu_device), torch.zeros(2, 4, device=gpu_device)], 0)
    with pytest.raises(RuntimeError, match="zero-dimensional"):
        torch.cat([torch.zeros((), device=gpu_device)])


def test_channels_last_cat_keeps_format(gpu_device, native):
    a = make((2, 3, 4, 5), torch.float32).contiguous(memory_format=torch.channels_last)
    with native():
        got = torch.cat([a.to(gpu_device), a.to(gpu_device)], 1)
    assert got.is_contiguous(memory_format=torch.channels_last)
    assert_close(got, torch.cat([a, a], 1))


# ---- isin: comparisons against every test element, in chunks (generate()'s end-of-sequence check) ----------

@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_cpu(gpu_device, native, dtype, invert):
    g = torch.Generator().manual_seed(3)
    elements = torch.randint(0, 50, (6, 33), generator=g).to(dtype)
    for tests in (torch.tensor([7, 3, 7, 49]), torch.randint(0, 50, (3, 5), generator=g),
                  torch.tensor([], dtype=torch.int64), torch.randint(0, 50, (2000,), generator=g)):
        tests = tests.to(dtype)
        with native():
            got = torch.isin(elements.to(gpu_device), tests.to(gpu_device), invert=invert)
            got_t = torch.isin(elements.to(gpu_device).t(), tests.to(gpu_device), invert=invert)  # strided
            got_scalar = torch.isin(elements.to(gpu_device), 7, invert=invert)
            got_element = torch.isin(7, tests.to(gpu_device), invert=invert)
            out = torch.empty(0, dtype=torch.bool, device=gpu_device)
            torch.isin(elements.to(gpu_device), tests.to(gpu_device), invert=invert, out=out)
        want = torch.isin(elements, tests, invert=invert)
        assert torch.equal(got.cpu(), want) and torch.equal(out.cpu(), want)
        assert torch.equal(got_t.cpu(), torch.isin(elements.t(), tests, invert=invert))
        assert torch.equal(got_scalar.cpu(), torch.isin(elements, 7, invert=invert))
        assert torch.equal(got_element.cpu(), torch.isin(7, tests, invert=invert))


def test_isin_in_chunks_and_mixed_dtypes(gpu_device, native):
    # More elements x tests than one chunk's 2^24 comparisons: several chunks.
    elements = torch.randint(0, 100000, (1 << 16,))
    tests = torch.randint(0, 100000, (600,))
    with native():
        got = torch.isin(elements.to(gpu_device), tests.to(gpu_device).to(torch.int32))
    assert torch.equal(got.cpu(), torch.isin(elements, tests))


# ---- advanced indexing in general: several index tensors, None gaps, masks, negative and CPU indices ----------
# x[...] and x[...] = v are one INDEX_SELECT / INDEX_PUT over an as_strided view of self (advanced_indexing_ops.cpp);
# masks go through the native nonzero (nonzero_ops.cpp).

def _x(dtype, shape=(5, 6, 7), seed=0):
    return make(shape, dtype, seed=seed)


def _get_cases():
    """name -> f(x, at): x[...] with its index tensors placed by `at` (left on the CPU, or moved to the device)."""
    i0, i2 = torch.tensor([0, -1, 3, 4, -5]), torch.tensor([6, 0, -7, 2, 3])
    col = torch.tensor([[1], [5], [-6]])
    g = torch.Generator().manual_seed(9)
    m0, m12 = torch.rand(5, generator=g) > 0.4, torch.rand(6, 7, generator=g) > 0.5
    return {
        "dim1": lambda x, at: x[:, at(col)],                            # a None gap: the index shape replaces dim 1
        "last_dim": lambda x, at: x[..., at(torch.tensor([[0, 1], [-1, 3]]))],
        "separated": lambda x, at: x[at(i0), :, at(i2)],                # not adjacent: the index shape goes first
        "adjacent_broadcast": lambda x, at: x[:, at(col), at(torch.tensor([0, 6, -7, 2]))],
        "three": lambda x, at: x[at(i0), at(torch.tensor([1])), at(i2)],
        "int32": lambda x, at: x[at(torch.tensor([1, -2], dtype=torch.int32)), at(torch.tensor([2, 3], dtype=torch.int32))],
        "transposed_self": lambda x, at: x.transpose(0, 2)[at(i2), at(col)],
        "sliced_self": lambda x, at: x[1:4, ::2][at(torch.tensor([0, -1])), at(torch.tensor([2, 1]))],
        "int_and_index": lambda x, at: x[1, at(torch.tensor([0, -1]))],
        "mask": lambda x, at: x[at(m0)],
        "mask_2d": lambda x, at: x[:, at(m12)],
        "mask_and_index": lambda x, at: x[at(torch.tensor([[1], [3]])), at(m12)],
        "empty": lambda x, at: x[:, at(torch.tensor([], dtype=torch.long)), at(torch.tensor([], dtype=torch.long))],
        "all_false_mask": lambda x, at: x[at(torch.zeros(5, dtype=torch.bool))],
    }


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("case", list(_get_cases()))
def test_advanced_indexing_general(gpu_device, native, dtype, case):
    x = _x(dtype)
    f = _get_cases()[case]
    want = f(x, lambda t: t)
    with native():
        got_cpu_indices = f(x.to(gpu_device), lambda t: t)
        got_device_indices = f(x.to(gpu_device), lambda t: t.to(gpu_device))
    assert_close(got_cpu_indices, want)
    assert_close(got_device_indices, want)


def test_advanced_indexing_out_of_range_reads_zero(gpu_device, native):
    # CUDA asserts and the CPU raises; the native kernels cannot raise without a synchronization, so a tuple with
    # an index out of range reads as 0 (documented in indexing_ops.cpp / advanced_indexing_ops.cpp).
    x = _x(torch.float32, (4, 5))
    with native():
        got = x.to(gpu_device)[torch.tensor([0, 9, 1], device=gpu_device), torch.tensor([1, 1, -6], device=gpu_device)]
    assert got.cpu()[0] == x[0, 1]
    assert (got.cpu()[1:] == 0).all()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_put_general(gpu_device, native, dtype):
    x = _x(dtype)
    v = make((5, 6), dtype, seed=3)
    mask = make((6, 7), torch.bool, seed=4)
    cases = [
        ([torch.tensor([0, -1, 3, 2, 1]), None, torch.tensor([6, 0, -7, 2, 3])], v),      # separated: [5, 6] values
        ([None, torch.tensor([1, 2, 3]), torch.tensor([0, -1, 4])], v[0, 0]),             # a 0-dim value, broadcast
        ([None, torch.tensor([[1], [4]]), torch.tensor([0, 6, 2])], v[:, :3].unsqueeze(1)),  # [5, 2, 3] values
        ([None, mask], v[:, :1]),                                                         # a mask on dims 1, 2
        ([torch.tensor([True, False, True, True, False])], v[0, :1].expand(6, 7)),       # a mask on dim 0
    ]
    for indices, values in cases:
        want = x.clone()
        torch.ops.aten.index_put_(want, indices, values, False)
        for layout in ("contiguous", "transposed"):
            got = x.to(gpu_device) if layout == "contiguous" else x.transpose(0, 2).contiguous().to(gpu_device).transpose(0, 2)
            with native():
                torch.ops.aten.index_put_(got, [None if i is None else i.to(gpu_device) for i in indices],
                                          values.to(gpu_device), False)
            assert_close(got, want)


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_index_put_accumulate_repeats_several_indices(gpu_device, native, dtype):
    x = _x(dtype)
    a, b = torch.tensor([0, 1, 0, 0, -5, 2]), torch.tensor([2, 2, 2, -5, 2, 6])  # (0, 2) three times, (-5, 2) = (0, 2)
    b1 = torch.tensor([2, 2, 2, -4, 2, 5])
    v = make((6, 6), dtype, seed=5)
    got = x.to(gpu_device)
    with native():
        torch.ops.aten.index_put_(got, [a.to(gpu_device), None, b.to(gpu_device)], v.to(gpu_device), True)
        # Index tensors on the CPU, dims 0 and 1 (-4 is 2 there too).
        got_vals_cpu_index = x.to(gpu_device).index_put_((a, b1), v[:, :1].expand(6, 7).contiguous().to(gpu_device),
                                                         accumulate=True)
    want = x.double().clone()  # (x.double() is x itself for float64)
    torch.ops.aten.index_put_(want, [a, None, b], v.double(), True)
    assert_close(got, want.to(dtype), k=5, magnitude=3.0)
    want2 = x.double().index_put_((a, b1), v[:, :1].expand(6, 7).double(), accumulate=True)
    assert_close(got_vals_cpu_index, want2.to(dtype), k=5, magnitude=3.0)


def test_index_put_mask_and_backward_of_getitem(gpu_device, native):
    x = _x(torch.float32)
    mask = x[:, 0, 0] > 0
    got = x.to(gpu_device)
    with native():
        got[mask.to(gpu_device), 1:3] = make((int(mask.sum()), 2, 7), torch.float32, seed=2).to(gpu_device)
    want = x.clone()
    want[mask, 1:3] = make((int(mask.sum()), 2, 7), torch.float32, seed=2)
    assert_close(got, want)
    # x[i, :, j].backward: index's gradient is an accumulating index_put_ with two index tensors.
    i, j = torch.tensor([0, 0, 4, -1]), torch.tensor([1, 1, 2, 3])
    leaf = x.to(gpu_device).requires_grad_()
    grad = make((4, 6), torch.float32, seed=8)
    with native():
        leaf[i.to(gpu_device), :, j.to(gpu_device)].backward(grad.to(gpu_device))
    ref = x.double().requires_grad_()
    ref[i, :, j].backward(grad.double())
    assert_close(leaf.grad, ref.grad.float(), k=3, magnitude=3.0)


# ---- nonzero and the ops built on a mask's positions (one synchronization for the count, as on CUDA) ----------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_nonzero_family(gpu_device, native, dtype):
    x = make((4, 5, 6), dtype)
    x[0, 0, :3] = 0
    for t in (x, x.transpose(0, 2), x[1, 1], x[:0], x[:, ::2], torch.zeros((3, 4), dtype=dtype)):
        td = t.to(gpu_device)
        with native():
            got = torch.nonzero(td)
            got_static = torch.nonzero_static(td, size=7, fill_value=-3)
            got_static_big = torch.nonzero_static(td, size=200)
            got_count = torch.count_nonzero(td, dim=0)
            got_count_all = torch.count_nonzero(td)
            got_tuple = torch.nonzero(td, as_tuple=True)
        assert_close(got, torch.nonzero(t))
        assert_close(got_static, torch.nonzero_static(t, size=7, fill_value=-3))
        assert_close(got_static_big, torch.nonzero_static(t, size=200))
        assert_close(got_count, torch.count_nonzero(t, dim=0))
        assert_close(got_count_all, torch.count_nonzero(t))
        for g, w in zip(got_tuple, torch.nonzero(t, as_tuple=True)):
            assert_close(g, w)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_select_and_scatter(gpu_device, native, dtype):
    x = make((4, 5, 6), dtype)
    mask = make((4, 5, 6), torch.bool, seed=1)
    source = make((150,), dtype, seed=2)
    for t, m in ((x, mask), (x.transpose(0, 2), mask.transpose(0, 2)), (x, mask[:1, :, :1]), (x[:1], mask),
                 (x[:0], mask[:0])):
        with native():
            got = torch.masked_select(t.to(gpu_device), m.to(gpu_device))
        assert_close(got, torch.masked_select(t, m))
    for layout in ("contiguous", "transposed"):
        self_ = x.clone() if layout == "contiguous" else x.transpose(0, 2).contiguous().transpose(0, 2)
        got = self_.to(gpu_device) if layout == "contiguous" else self_.transpose(0, 2).to(gpu_device).transpose(0, 2)
        with native():
            got.masked_scatter_(mask.to(gpu_device), source.to(gpu_device))
            got_bcast = x.to(gpu_device).masked_scatter(mask[:, :1].to(gpu_device), source.to(gpu_device))
        assert_close(got, x.clone().masked_scatter_(mask, source))
        assert_close(got_bcast, x.masked_scatter(mask[:, :1], source))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_take_and_put(gpu_device, native, dtype):
    x = make((4, 5, 6), dtype)
    index = torch.tensor([[0, -1, 7], [118, 3, -100]])  # -1 is 119: no element written twice (no winner to pick)
    source = make((6,), dtype, seed=3)
    with native():
        got = torch.take(x.to(gpu_device), index.to(gpu_device))
        got_strided = torch.take(x.to(gpu_device).transpose(0, 2), index.to(gpu_device))
        put = x.to(gpu_device).put_(index.to(gpu_device), source.to(gpu_device))
    assert_close(got, torch.take(x, index))
    assert_close(got_strided, torch.take(x.transpose(0, 2), index))
    assert_close(put, x.clone().put_(index, source))
    if dtype in ATOMIC_DTYPES:
        repeated = torch.tensor([5, 5, -115, 0, 5, 1])  # -115 is 5 too
        with native():
            acc = x.to(gpu_device).put_(repeated.to(gpu_device), source.to(gpu_device), accumulate=True)
        want = x.double().put_(repeated, source.double(), accumulate=True).to(dtype)
        assert_close(acc, want, k=5, magnitude=3.0)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_copy_and_fill(gpu_device, native, dtype, dim):
    x = make((4, 5, 6), dtype)
    index = torch.tensor([x.shape[dim] - 1, 0, 2])
    shape = list(x.shape)
    shape[dim] = 3
    source = make(shape, dtype, seed=4)
    strided = x.transpose(0, 1).contiguous().transpose(0, 1)
    with native():
        got = x.to(gpu_device).index_copy(dim, index.to(gpu_device), source.to(gpu_device))
        got_strided = strided.to(gpu_device).index_copy_(dim, index.to(gpu_device), source.to(gpu_device))
        filled = x.to(gpu_device).index_fill_(dim, torch.tensor([0, -1], device=gpu_device), 1)
        filled_t = x.to(gpu_device).index_fill_(dim, torch.tensor([1], device=gpu_device),
                                                 x[0, 0, 0].to(gpu_device))
    assert_close(got, x.index_copy(dim, index, source))
    assert_close(got_strided, strided.clone().index_copy_(dim, index, source))
    assert_close(filled, x.clone().index_fill_(dim, torch.tensor([0, -1]), 1))
    assert_close(filled_t, x.clone().index_fill_(dim, torch.tensor([1]), x[0, 0, 0]))


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_index_add(gpu_device, native, dtype, dim, index_dtype):
    x = make((4, 5, 6), dtype)
    index = torch.tensor([1, 1, 0, 1], dtype=index_dtype)  # repeated: accumulated
    shape = list(x.shape)
    shape[dim] = 4
    source = make(shape, dtype, seed=5)
    with native():
        got = x.to(gpu_device).index_add(dim, index.to(gpu_device), source.to(gpu_device), alpha=2)
        inplace = x.to(gpu_device).index_add_(dim, index.to(gpu_device), source.to(gpu_device))
        out = torch.empty(0, dtype=dtype, device=gpu_device)
        torch.index_add(x.to(gpu_device), dim, index.to(gpu_device), source.to(gpu_device), out=out)
    want = x.double().index_add(dim, index, source.double(), alpha=2).to(dtype)
    want1 = x.double().index_add(dim, index, source.double()).to(dtype)
    assert_close(got, want, k=4, magnitude=6.0)
    assert_close(inplace, want1, k=4, magnitude=3.0)
    assert_close(out, want1, k=4, magnitude=3.0)


@pytest.mark.parametrize("repeats_dtype", [torch.int64, torch.int32])
def test_repeat_interleave(gpu_device, native, repeats_dtype):
    for r in ([2, 0, 3, 1], [0, 0, 1], [0], [], [3], [1, 0, 0], [0, 2, 0, 0], list(range(50))):
        repeats = torch.tensor(r, dtype=repeats_dtype)
        with native():
            got = torch.repeat_interleave(repeats.to(gpu_device))
            got_sized = torch.repeat_interleave(repeats.to(gpu_device), output_size=sum(r))
        assert_close(got, torch.repeat_interleave(repeats))
        assert_close(got_sized, torch.repeat_interleave(repeats))
    x = make((3, 4), torch.float32)
    repeats = torch.tensor([1, 0, 2, 3])
    with native():
        got = x.to(gpu_device).repeat_interleave(repeats.to(gpu_device), dim=1)
    assert_close(got, x.repeat_interleave(repeats, dim=1))


def test_zero_dim_nonzero_and_index_select(gpu_device):
    with torch.hal.strict():
        ones = torch.nonzero(torch.tensor(2.5, device=gpu_device))
        none = torch.nonzero(torch.tensor(0.0, device=gpu_device))
        static = torch.nonzero_static(torch.tensor(1, device=gpu_device), size=3)
        picked = torch.index_select(torch.tensor(7.0, device=gpu_device), 0, torch.tensor([0], device=gpu_device))
    assert ones.shape == (1, 0) and none.shape == (0, 0) and static.shape == (3, 0)
    assert picked.dim() == 0 and picked.item() == 7.0


@pytest.mark.parametrize("name", ["index_add", "index_copy", "index_fill", "index_fill_tensor"])
def test_zero_dim_index_updates(gpu_device, name):
    x, source, index = torch.tensor(1.5), torch.tensor(4.0), torch.tensor([0])
    ops = {"index_add": lambda t, i, s: t.index_add(0, i, s, alpha=2),
           "index_copy": lambda t, i, s: t.index_copy(0, i, s), "index_fill": lambda t, i, s: t.index_fill(0, i, -3.0),
           "index_fill_tensor": lambda t, i, s: t.clone().index_fill_(0, i, s)}
    with torch.hal.strict():
        got = ops[name](x.to(gpu_device), index.to(gpu_device), source.to(gpu_device))
    want = ops[name](x, index, source)
    assert got.dim() == 0 and got.item() == want.item()
