"""The ops of a standard training step that once took the CPU fallback on GPUs (issue 14): all/any,
isposinf/isneginf, linalg.vector_norm and torch._foreach_norm (clip_grad_norm_), tril/triu (causal masks),
cumsum/cumprod (position ids), and GradScaler's _amp_foreach_non_finite_check_and_unscale_ and
_amp_update_scale_. Each against PyTorch's CPU result in strict mode (any op reaching the CPU fallback
raises), over dtypes, empty and non-contiguous shapes, dims and keepdim; then whole training steps (GPT-2 with
clip_grad_norm_, a mixed-precision step with GradScaler) under torch.hal.strict(). Skips without a GPU."""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from test_native_elementwise import check, make, run_both, tol

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int64, torch.int32, torch.int8, torch.uint8]
INF, NAN = float("inf"), float("nan")


def with_specials(x):
    """x (floating, at least 8 elements) with inf, -inf and NaN at fixed places."""
    if x.dtype.is_floating_point and x.numel() >= 8:
        flat = x.view(-1)
        flat[1], flat[4], flat[6] = INF, -INF, NAN
    return x


# ---- all / any -----------------------------------------------------------------------------------------

LOGICAL_SHAPES = [(), (0,), (7, 13), (3, 5, 7), (1 << 20,), (0, 4)]


@pytest.mark.parametrize("shape", LOGICAL_SHAPES)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
def test_all_any(gpu_device, dtype, shape):
    # Mostly nonzero (so all() is not trivially false) with some zeros: values in [0, 3] for integers.
    x = make(shape, dtype, 0, 3)
    ones = torch.ones(shape, dtype=dtype)
    for t in (x, ones, with_specials(x.clone())):
        run_both(torch.all, t, device=gpu_device)
        run_both(torch.any, t, device=gpu_device)
        for d in range(len(shape)):
            run_both(lambda u: u.all(d), t, device=gpu_device)
            run_both(lambda u: u.any(d, keepdim=True), t, device=gpu_device)
            run_both(lambda u: torch.all(u, dim=-1 - d, keepdim=True), t, device=gpu_device)
        if len(shape) >= 2:
            run_both(lambda u: torch.any(u, dim=(0, len(shape) - 1)), t, device=gpu_device)
            run_both(lambda u: torch.all(u, dim=[]), t, device=gpu_device)  # no dim reduced: u != 0


def test_all_any_noncontiguous_and_out(gpu_device):
    x = make((64, 33), torch.float32, 0, 3)
    x[5, :] = 0
    run_both(lambda u: u.t().all(0), x, device=gpu_device)
    run_both(lambda u: u[:, ::2].any(1), x, device=gpu_device)
    run_both(lambda u: (u > 1).all(1), x, device=gpu_device)
    # out= as the CPU writes it (a uint8 out= of a non-uint8 input is left 0 by PyTorch's CPU kernel: not tested).
    for source in (x, (x * 2).to(torch.uint8)):
        out_dtype = torch.uint8 if source.dtype == torch.uint8 else torch.bool
        for fn, args in ((torch.all, (1,)), (torch.any, ())):
            out = torch.empty(0, dtype=out_dtype, device=gpu_device)
            with torch.hal.strict():
                fn(source.to(gpu_device), *args, out=out)
            expected = torch.empty(0, dtype=out_dtype)
            fn(source, *args, out=expected)
            check(out, expected)
    with pytest.raises(RuntimeError, match="bool tensor for result"):
        torch.all(x.to(gpu_device), 1, out=torch.empty(0, device=gpu_device))


# ---- isposinf / isneginf / isinf / isfinite ------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
@pytest.mark.parametrize("fn", [torch.isneginf, torch.isposinf, torch.isinf, torch.isnan, torch.isfinite])
def test_infinity_tests(gpu_device, fn, dtype):
    for shape in [(), (0,), (7, 13), (1 << 20,)]:
        x = with_specials(make(shape, dtype))
        run_both(fn, x, device=gpu_device)
    run_both(lambda u: fn(u.t()), with_specials(make((9, 5), dtype)), device=gpu_device)
    x = with_specials(make((7, 13), dtype))
    out = torch.empty(0, dtype=torch.bool, device=gpu_device)
    if fn in (torch.isneginf, torch.isposinf):
        with torch.hal.strict():
            fn(x.to(gpu_device), out=out)
        check(out, fn(x))
        with pytest.raises(RuntimeError, match="non-boolean outputs"):
            fn(x.to(gpu_device), out=torch.empty(0, device=gpu_device))


# ---- linalg.vector_norm, torch.norm --------------------------------------------------------------------

ORDS = [2, 1, INF, -INF, 0, 3, 0.5, -1.5]
NORM_SHAPES_DIMS = [((), None), ((7, 13), None), ((7, 13), 0), ((7, 13), 1), ((3, 5, 7), (0, 2)),
                    ((1 << 20,), None), ((4096, 256), 0), ((256, 4096), 1), ((3, 1 << 18), 0)]


def norm_tol(dtype, ord):
    rtol, atol = tol(dtype)
    # pow() of a general order loses a few more bits than a sum of squares.
    return (rtol * 4, atol * 4) if ord not in (1, 2, INF, -INF, 0) else (rtol, atol)


@pytest.mark.parametrize("shape,dim", NORM_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", ORDS)
def test_vector_norm(gpu_device, ord, dtype, shape, dim):
    x = make(shape, dtype, -2, 2)
    rtol, atol = norm_tol(dtype, ord)
    for keepdim in (False, True):
        with torch.hal.strict():
            actual = torch.linalg.vector_norm(x.to(gpu_device), ord, dim, keepdim)
        expected = torch.linalg.vector_norm(x, ord, dim, keepdim)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        torch.testing.assert_close(actual.cpu(), expected, rtol=rtol, atol=atol)


def test_vector_norm_dtype_noncontiguous_specials_out(gpu_device):
    x = make((33, 65), torch.float16, -2, 2)
    run_both(lambda u: torch.linalg.vector_norm(u, dtype=torch.float32), x, device=gpu_device)
    run_both(lambda u: torch.linalg.vector_norm(u.t(), 2, dim=0), make((33, 65), torch.float32), device=gpu_device)
    run_both(lambda u: torch.linalg.vector_norm(u[:, ::3], INF, dim=1), make((33, 65), torch.float32),
             device=gpu_device)
    run_both(lambda u: torch.norm(u), make((33, 65), torch.float32), device=gpu_device)
    run_both(lambda u: u.norm(p=1, dim=1), make((33, 65), torch.float32), device=gpu_device)
    specials = with_specials(make((4, 8), torch.float32))
    for ord in (2, INF, -INF, 0, 1):
        run_both(lambda u: torch.linalg.vector_norm(u, ord, dim=1), specials, device=gpu_device)
    out = torch.empty(0, device=gpu_device)
    with torch.hal.strict():
        torch.linalg.vector_norm(x.float().to(gpu_device), 2, 1, out=out)
    check(out, torch.linalg.vector_norm(x.float(), 2, 1))
    # Empty reductions: 0 for the orders with an identity, ATen's error for the others.
    run_both(lambda u: torch.linalg.vector_norm(u, 2), torch.zeros(0, 3), device=gpu_device)
    run_both(lambda u: torch.linalg.vector_norm(u, -0.5, dim=1), torch.zeros(0, 3), device=gpu_device)
    with pytest.raises(RuntimeError, match="on an empty tensor"):
        torch.linalg.vector_norm(torch.zeros(0, 3, device=gpu_device), INF)
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64, device=gpu_device))
    with pytest.raises(RuntimeError, match="without narrowing"):
        torch.linalg.vector_norm(torch.ones(3, device=gpu_device), dtype=torch.float16)


# ---- torch._foreach_norm -------------------------------------------------------------------------------

# What the one launch may dispatch beneath _foreach_norm: the allocation of its results.
ALLOCATIONS = {"aten::empty", "aten::empty_strided", "aten::empty_like"}


def foreach_norm_list(dtypes, seed=0):
    """Gradients of a model: mixed sizes (0-dim, odd lengths, several chunks of 16384, an empty one),
    more tensors than one launch holds (96), and the given dtypes in turn."""
    shapes = [(), (1,), (7, 13), (16384,), (16385,), (3, 100000), (0,)] + [(17 * i + 1,) for i in range(120)]
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(s, generator=g, dtype=torch.float64) * 4 - 2).to(dtypes[i % len(dtypes)])
            for i, s in enumerate(shapes)]


@pytest.mark.parametrize("ord", [2, 1, INF, 0, 3.0])
@pytest.mark.parametrize("dtypes", [[torch.float32], [torch.float16], [torch.bfloat16], [torch.float64],
                                    [torch.float32, torch.float16, torch.bfloat16]])
def test_foreach_norm_is_one_native_launch(gpu_device, dtypes, ord):
    # The infinite order has no identity: ATen refuses empty tensors for it (tested below).
    tensors = [t for t in foreach_norm_list(dtypes) if t.numel() > 0 or ord != INF]
    on_device = [t.to(gpu_device) for t in tensors]
    with torch.hal.strict(), profile(activities=[ProfilerActivity.CPU]) as prof:
        actual = torch._foreach_norm(on_device, ord)
        torch.hal.synchronize(gpu_device)
    beneath = {e.name for e in prof.events() if not e.name.startswith("cu")} - ALLOCATIONS
    assert beneath <= {"aten::_foreach_norm"}, f"the per-tensor path ran: {sorted(beneath)}"
    expected = torch._foreach_norm(tensors, ord)
    for a, e, t in zip(actual, expected, tensors):
        rtol, atol = norm_tol(t.dtype, ord)
        assert a.dtype == e.dtype and a.shape == e.shape == ()
        torch.testing.assert_close(a.cpu(), e, rtol=rtol, atol=atol)
    # Deterministic: the same bits on every run.
    again = torch._foreach_norm(on_device, ord)
    assert all(torch.equal(a.cpu(), b.cpu()) for a, b in zip(actual, again))


def test_foreach_norm_dtype_and_slow_path(gpu_device):
    tensors = foreach_norm_list([torch.float16])[:20]
    run_both(lambda *ts: torch.stack(torch._foreach_norm(list(ts), 2, dtype=torch.float32)), *tensors,
             device=gpu_device)
    # Non-contiguous tensors take the per-tensor path, still native and correct.
    views = [make((8, 6), torch.float32).t(), make((5, 9), torch.float32)[:, ::2]]
    run_both(lambda *ts: torch.stack(torch._foreach_norm(list(ts), 2)), *views, device=gpu_device)
    with pytest.raises(RuntimeError, match="empty tensor"):
        torch._foreach_norm([torch.zeros(0, device=gpu_device)], INF)


@pytest.mark.parametrize("name", ["mul", "div", "add"])
def test_foreach_tensor_overloads_promote_0dim_tensors_like_cpu(gpu_device, name):
    """Two 0-dim tensors promote (float16 times a float32 0-dim tensor is float32); dimensioned ones keep their dtype."""
    tensors = [torch.tensor(1.5, dtype=torch.float16), torch.arange(5, dtype=torch.float16), torch.tensor(3),
               torch.tensor(2.0, dtype=torch.float64)]
    other = torch.tensor(0.37, dtype=torch.float32)
    functional = getattr(torch, f"_foreach_{name}")
    results = functional([t.to(gpu_device) for t in tensors], other.to(gpu_device))
    for actual, expected in zip(results, functional(tensors, other)):
        check(actual, expected)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["mul", "div", "add"])
def test_foreach_tensor_overloads_are_one_native_launch(gpu_device, name, dtype):
    """_foreach_mul_(grads, coef) with coef a 0-dim device tensor, as clip_grad_norm_ calls it. (A 0-dim tensor
    of the list promotes with coef: test_foreach_tensor_overloads_promote_0dim_tensors_like_cpu.)"""
    tensors = [t for t in foreach_norm_list([dtype], seed=5) if t.dim() > 0]
    other = torch.tensor(0.37, dtype=torch.float32)
    kwargs = {"alpha": 0.5} if name == "add" else {}
    functional, in_place = getattr(torch, f"_foreach_{name}"), getattr(torch, f"_foreach_{name}_")
    on_device = [t.to(gpu_device) for t in tensors]
    with torch.hal.strict(), profile(activities=[ProfilerActivity.CPU]) as prof:
        results = functional(on_device, other.to(gpu_device), **kwargs)
        in_place(on_device, other.to(gpu_device), **kwargs)
        torch.hal.synchronize(gpu_device)
    beneath = {e.name for e in prof.events() if not e.name.startswith("cu")} - ALLOCATIONS
    beneath -= {"aten::to", "aten::_to_copy", "aten::copy_", "aten::_copy_from"}  # other's move to the device
    assert beneath <= {f"aten::_foreach_{name}", f"aten::_foreach_{name}_"}, sorted(beneath)
    expected = functional(tensors, other, **kwargs)
    in_place(tensors, other, **kwargs)
    for a, b, e, t in zip(results, on_device, expected, tensors):
        check(a, e)
        check(b, t)


def test_clip_grad_norm_matches_cpu(gpu_device):
    torch.manual_seed(0)
    cpu = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 10))
    dev = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 10)).to(gpu_device)
    dev.load_state_dict(cpu.state_dict())
    x = make((32, 64), torch.float32)
    for model, inp in ((cpu, x), (dev, x.to(gpu_device))):
        model(inp).square().sum().backward()
    for norm_type in (2.0, INF):
        with torch.hal.strict():
            total = nn.utils.clip_grad_norm_(dev.parameters(), 0.5, norm_type=norm_type)
        expected = nn.utils.clip_grad_norm_(cpu.parameters(), 0.5, norm_type=norm_type)
        torch.testing.assert_close(total.cpu(), expected, rtol=1e-5, atol=1e-6)
        for a, e in zip(dev.parameters(), cpu.parameters()):
            torch.testing.assert_close(a.grad.cpu(), e.grad, rtol=1e-5, atol=1e-7)


# ---- tril / triu ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
@pytest.mark.parametrize("fn", [torch.tril, torch.triu])
def test_triangle(gpu_device, fn, dtype):
    for shape in [(5, 7), (7, 5), (3, 4, 6), (2, 3, 1, 8), (0, 3), (2, 0, 3), (1024, 1024)]:
        x = make(shape, dtype, 1, 5)
        for diagonal in (0, 1, -2, 3, 100, -100):
            run_both(lambda u: fn(u, diagonal), x, device=gpu_device)
    x = make((4, 6, 5), dtype, 1, 5)
    run_both(lambda u: fn(u.transpose(1, 2), 1), x, device=gpu_device)   # non-contiguous input
    run_both(lambda u: fn(u[:, ::2], -1), x, device=gpu_device)
    run_both(lambda u: u.clone().tril_(1) if fn is torch.tril else u.clone().triu_(1), x, device=gpu_device)
    run_both(lambda u: getattr(u.transpose(1, 2).clone().transpose(1, 2), fn.__name__ + "_")(), x,
             device=gpu_device)  # in place on a non-contiguous tensor
    out = torch.empty(0, dtype=dtype, device=gpu_device)
    with torch.hal.strict():
        fn(x.to(gpu_device), -1, out=out)
    check(out, fn(x, -1))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        fn(torch.ones(3, device=gpu_device))


def test_causal_mask(gpu_device):
    # The masks of causal attention, as transformers builds them.
    run_both(lambda u: torch.ones(64, 64, dtype=torch.bool, device=u.device).tril(), torch.zeros(1),
             device=gpu_device)
    run_both(lambda u: torch.full((64, 64), torch.finfo(torch.float32).min, device=u.device).triu(1),
             torch.zeros(1), device=gpu_device)


# ---- cumsum / cumprod ----------------------------------------------------------------------------------

SCAN_SHAPES_DIMS = [((), 0), ((0,), 0), ((7, 13), 0), ((7, 13), 1), ((7, 13), -1), ((3, 5, 7), 1),
                    ((1 << 16,), 0), ((4, 1000), 1), ((1000, 4), 0), ((2, 3, 300), 2), ((300, 2, 3), 0), ((5, 0, 3), 1)]


def run_scan(fn, x, dim, device):
    """fn(x) on the device in strict mode against the CPU, with the dtype's tolerance grown by the square root
    of the run's length: the GPU scans a long run as a tree of partial results, the CPU one after another."""
    with torch.hal.strict():
        actual = fn(x.to(device))
        torch.hal.synchronize(device)
    expected = fn(x)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    growth = math.sqrt(max(1, x.shape[dim] if x.dim() else 1))
    rtol, atol = tol(expected.dtype)
    torch.testing.assert_close(actual.cpu(), expected, rtol=rtol * growth, atol=atol * growth)


@pytest.mark.parametrize("shape,dim", SCAN_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
def test_cumsum(gpu_device, dtype, shape, dim):
    x = make(shape, dtype, -1, 1)
    run_scan(lambda u: torch.cumsum(u, dim), x, dim, gpu_device)
    if dtype.is_floating_point:
        run_scan(lambda u: torch.cumsum(u, dim, dtype=torch.float64), x, dim, gpu_device)


@pytest.mark.parametrize("shape,dim", SCAN_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32])
def test_cumprod(gpu_device, dtype, shape, dim):
    # Values near 1 (floats) or in {-1, 0, 1} (integers), so that products stay in range.
    x = make(shape, dtype, 0.9, 1.1) if dtype.is_floating_point else make(shape, dtype, -1, 1)
    run_scan(lambda u: torch.cumprod(u, dim), x, dim, gpu_device)


def test_cumsum_long_rows_half_and_forms(gpu_device):
    # Long rows in half precision: each element within the dtype's tolerance of a float64 reference.
    x = make((2, 1 << 16), torch.float16, 0, 1)
    with torch.hal.strict():
        actual = torch.cumsum(x.to(gpu_device), 1).cpu()
    expected = torch.cumsum(x.double(), 1)
    torch.testing.assert_close(actual.double(), expected, rtol=1e-2, atol=1e-2 * math.sqrt(1 << 16))
    y = make((6, 9), torch.float32)
    run_both(lambda u: u.t().cumsum(1), y, device=gpu_device)           # non-contiguous
    run_both(lambda u: u.clone().cumsum_(0), y, device=gpu_device)      # in place
    run_both(lambda u: u.t().clone().t().cumsum_(1), y, device=gpu_device)
    out = torch.empty(0, dtype=torch.float64, device=gpu_device)
    with torch.hal.strict():
        torch.cumsum(y.to(gpu_device), 1, dtype=torch.float64, out=out)
    check(out, torch.cumsum(y, 1, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="more than one element"):
        torch.ones(1, 4, device=gpu_device).expand(3, 4).cumsum_(0)
    # Position ids from an attention mask, as transformers computes them.
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    run_both(lambda m: (m.cumsum(-1) - 1).masked_fill(m == 0, 1), mask, device=gpu_device)


# ---- sort / topk -----------------------------------------------------------------------------------------

# Lines a block sorts (up to 4096 4-byte keys, 2048 8-byte ones), and longer ones (sort_long_lines.cu: runs
# merged), of odd lengths that leave a short last run and a run without a partner.
SORT_SHAPES_DIMS = [((), 0), ((0,), 0), ((1,), 0), ((7, 13), 1), ((7, 13), 0), ((3, 5, 7), 1), ((4, 2048), 1),
                    ((2, 4096), -1), ((1000, 3), 0), ((2, 0, 3), 1), ((3, 4097), 1), ((2, 50257), -1),
                    ((20001, 2), 0), ((3, 12289), 1)]


def assert_sorted_like_cpu(actual, expected, x, dim):
    """Values equal to the CPU's; indices equal too (a stable sort has one answer), and they gather the values."""
    (values, indices), (ev, ei) = actual, expected
    check(values, ev)
    check(indices, ei)
    if x.dim():
        torch.testing.assert_close(x.gather(dim, indices.cpu()), ev, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("shape,dim", SORT_SHAPES_DIMS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
def test_sort(gpu_device, dtype, shape, dim):
    x = with_specials(make(shape, dtype, -3, 3))  # few distinct integers: many ties
    for descending in (False, True):
        with torch.hal.strict():
            actual = torch.sort(x.to(gpu_device), dim=dim, descending=descending, stable=True)
            argsorted = torch.argsort(x.to(gpu_device), dim=dim, descending=descending, stable=True)
        expected = torch.sort(x, dim=dim, descending=descending, stable=True)
        assert_sorted_like_cpu(actual, expected, x, dim)
        check(argsorted, expected[1])


def test_sort_forms(gpu_device):
    x = make((9, 31), torch.float32)
    run_both(lambda u: torch.sort(u.t(), 1).values, x, device=gpu_device)      # non-contiguous
    run_both(lambda u: torch.sort(u, 0, descending=True).indices, x, device=gpu_device)
    values, indices = torch.empty(0, device=gpu_device), torch.empty(0, dtype=torch.int64, device=gpu_device)
    with torch.hal.strict():
        torch.sort(x.to(gpu_device), 1, out=(values, indices))
    assert_sorted_like_cpu((values, indices), torch.sort(x, dim=1, stable=True), x, 1)
    long = make((2, 10000), torch.float32)  # runs merged (sort_long_lines.cu)
    with torch.hal.strict():
        values = torch.sort(long.to(gpu_device), 1).values
    check(values, torch.sort(long, 1).values)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64, torch.int32, torch.uint8])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(gpu_device, largest, dtype):
    for shape, dim, k in [((7, 13), 1, 3), ((7, 13), 0, 7), ((50, 1000), -1, 10), ((5,), 0, 0), ((), 0, 1),
                          ((3, 2048 if dtype.itemsize == 8 else 4096), 1, 100), ((4, 50257), 1, 50),
                          ((2, 9000), 1, 1)]:  # a vocabulary's logits: top-k sampling
        x = make(shape, dtype, -100, 100)
        if dtype.is_floating_point:
            x = with_specials(x)
        with torch.hal.strict():
            values, indices = torch.topk(x.to(gpu_device), k, dim=dim, largest=largest)
        ev, _ = torch.topk(x, k, dim=dim, largest=largest)
        check(values, ev)
        if x.dim():
            torch.testing.assert_close(x.gather(dim, indices.cpu()), ev, equal_nan=True, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="out of range"):
        torch.topk(torch.ones(3, device=gpu_device), 4)


# ---- one_hot, argmax (already made of native ops: zeros, scatter_, max) ---------------------------------

def test_one_hot_and_argmax(gpu_device):
    labels = torch.tensor([[0, 3, 9], [2, 2, 5]])
    run_both(lambda u: F.one_hot(u, 10), labels, device=gpu_device)
    run_both(F.one_hot, labels, device=gpu_device)  # num_classes from max()
    run_both(lambda u: u.argmax(-1), make((6, 1000), torch.float16), device=gpu_device)


# ---- GradScaler's ops ----------------------------------------------------------------------------------

def unscale_case(dtypes, poison):
    tensors = foreach_norm_list(dtypes, seed=3)[:40]
    if poison is not None:
        tensors[5].view(-1)[2] = poison
    return tensors


@pytest.mark.parametrize("poison", [None, INF, -INF, NAN])
@pytest.mark.parametrize("dtypes", [[torch.float32], [torch.float16], [torch.bfloat16], [torch.float64]])
def test_amp_unscale(gpu_device, dtypes, poison):
    tensors = unscale_case(dtypes, poison)
    found, inv = torch.zeros(1), torch.full((1,), 1 / 1024.0)
    on_device = [t.to(gpu_device) for t in tensors]
    found_d, inv_d = found.to(gpu_device), inv.to(gpu_device)
    with torch.hal.strict():
        torch._amp_foreach_non_finite_check_and_unscale_(on_device, found_d, inv_d)
        torch.hal.synchronize(gpu_device)
    torch._amp_foreach_non_finite_check_and_unscale_(tensors, found, inv)
    check(found_d, found)
    for a, e in zip(on_device, tensors):
        check(a, e)


def test_amp_update_scale(gpu_device):
    # A run of steps with and without infinities, against the CPU's kernel, step by step.
    scale, tracker = torch.full((1,), 65536.0), torch.zeros(1, dtype=torch.int32)
    scale_d, tracker_d = scale.to(gpu_device), tracker.to(gpu_device)
    for found in [0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0]:
        f = torch.full((1,), float(found))
        with torch.hal.strict():
            torch._amp_update_scale_(scale_d, tracker_d, f.to(gpu_device), 2.0, 0.5, 3)
        torch._amp_update_scale_(scale, tracker, f, 2.0, 0.5, 3)
        check(scale_d, scale)
        check(tracker_d, tracker)
    # Growth that would overflow float32 keeps the scale.
    big, t = torch.full((1,), 3e38), torch.full((1,), 2, dtype=torch.int32)
    big_d, t_d = big.to(gpu_device), t.to(gpu_device)
    with torch.hal.strict():
        torch._amp_update_scale_(big_d, t_d, torch.zeros(1, device=gpu_device), 2.0, 0.5, 3)
    torch._amp_update_scale_(big, t, torch.zeros(1), 2.0, 0.5, 3)
    check(big_d, big)
    check(t_d, t)


# ---- whole training steps under torch.hal.strict() -----------------------------------------------------

class MiniGPT(nn.Module):
    """A causal decoder that builds what GPT-2 and Llama build per step: a tril causal mask, position ids
    from cumsum over an attention mask, an all() check of that mask, and an isneginf test of the scores."""

    def __init__(self, vocab=500, dim=64, heads=4, seq=32):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.norm1, self.norm2, self.norm_out = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens, attention_mask):
        b, s = tokens.shape
        positions = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        x = self.embed(tokens) + self.pos(positions)
        causal = torch.ones(s, s, dtype=torch.bool, device=tokens.device).tril()
        if not torch.all(attention_mask == 1):  # the check transformers makes before dropping the mask
            causal = causal & attention_mask[:, None, None, :].bool()
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~causal, float("-inf"))
        # Rows that attend nowhere (the padded queries) attend everywhere instead, as transformers unmasks them.
        scores = scores.masked_fill(torch.isneginf(scores).all(-1, keepdim=True), 0.0)
        attn = scores.softmax(-1) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, -1))
        x = x + self.ff(self.norm2(x))
        return self.head(self.norm_out(x))


def mini_batch(vocab=500, batch=4, seq=32):
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, vocab, (batch, seq + 1), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[0, :3] = 0  # left padding in one row
    return tokens[:, :-1].contiguous(), mask, tokens[:, 1:].contiguous()


def mini_gpt_losses(device, steps, scaler_on=None):
    torch.manual_seed(0)
    model = MiniGPT().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens, mask, targets = (t.to(device) for t in mini_batch())
    scaler = torch.amp.GradScaler(scaler_on, init_scale=2.0 ** 10, growth_interval=2) if scaler_on else None
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        if scaler is None:
            loss = F.cross_entropy(model(tokens, mask).flatten(0, 1), targets.flatten())
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        else:
            with torch.autocast(device.type, dtype=torch.float16):
                loss = F.cross_entropy(model(tokens, mask).flatten(0, 1).float(), targets.flatten())
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
        losses.append(loss.item())
    return losses, scaler


@pytest.fixture
def strict():
    torch.hal.reset_fallback_stats()
    torch.hal.set_strict(True)
    yield
    torch.hal.set_strict(False)


def test_mini_gpt_step_with_clipping_is_fully_native(gpu_device, strict):
    losses, _ = mini_gpt_losses(gpu_device, steps=4)
    torch.hal.set_strict(False)
    expected, _ = mini_gpt_losses(torch.device("cpu"), steps=4)
    assert losses[-1] < losses[0]
    assert losses == pytest.approx(expected, rel=2e-3, abs=1e-3)
    assert torch.hal.fallback_stats() == {}


def test_mixed_precision_step_with_grad_scaler_is_fully_native(gpu_device, strict):
    losses, scaler = mini_gpt_losses(gpu_device, steps=6, scaler_on="hal")
    assert all(math.isfinite(v) for v in losses) and losses[-1] < losses[0]
    # No overflow at this scale: it doubled every growth_interval (2) steps.
    assert scaler.get_scale() == 2.0 ** 10 * 2 ** 3
    assert torch.hal.fallback_stats() == {}


def test_grad_scaler_skips_a_step_with_an_infinite_gradient(gpu_device, strict):
    model = nn.Linear(8, 4).to(gpu_device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("hal", init_scale=256.0)
    before = [p.detach().clone() for p in model.parameters()]
    scaler.scale(model(torch.ones(2, 8, device=gpu_device)).sum()).backward()
    model.weight.grad[0, 0] = float("inf")
    scaler.step(opt)
    scaler.update()
    assert all(torch.equal(p.detach().cpu(), b.cpu()) for p, b in zip(model.parameters(), before))
    assert scaler.get_scale() == 128.0
    assert torch.hal.fallback_stats() == {}


def test_gpt2_training_step_with_clipping_is_fully_native(gpu_device, strict):
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=500, n_layer=2, n_embd=64, n_head=4, n_positions=64,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    tokens, _, _ = mini_batch()

    def losses_on(device, steps=3):
        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(config).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        ids = tokens.to(device)
        out = []
        for _ in range(steps):
            opt.zero_grad(set_to_none=True)
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            out.append(loss.item())
        return out

    losses = losses_on(gpu_device)
    torch.hal.set_strict(False)
    expected = losses_on(torch.device("cpu"))
    assert losses == pytest.approx(expected, rel=2e-3, abs=1e-3)
    assert torch.hal.fallback_stats() == {}
