"""Native GPU kernels for index_select, gather, scatter / scatter_add, x[idx], index_put_ and cat,
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
    got[mask.to(gpu_device)] = 0.0  # a mask needs nonzero (a sync): ATen's path, still correct
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
