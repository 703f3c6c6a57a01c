"""torch._foreach_* ops on a GPU as a hal device, in strict mode: every registered overload against
PyTorch's CPU results, with the fast route (one HAL_OP_FOREACH launch over all the tensors) shown to have
run (the profiler records no per-tensor op beneath the foreach op, and nothing reaches the CPU fallback),
and the per-tensor path, still correct, wherever the fast route does not apply. Ends with AdamW
(foreach=True) against the same steps on the CPU. Skips without a GPU hal device."""
import pytest
import torch
from torch.profiler import ProfilerActivity, profile

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
# Different sizes in one list: 0-dim, empty, odd lengths (vector tails), several dims, and 2^20+ elements.
SHAPES = [(), (0,), (1,), (7, 13), (3, 1, 5), (2, 0, 3), ((1 << 20) + 3,)]
# What the fast route may dispatch besides the foreach op itself: the allocation of functional outputs.
ALLOCATIONS = {"aten::empty_like", "aten::empty_strided", "aten::empty"}


def tol(dtype):
    return {torch.float16: (1e-2, 1e-2), torch.bfloat16: (2e-2, 2e-2), torch.float32: (1e-5, 1e-5),
            torch.float64: (1e-10, 1e-10)}.get(dtype, (0, 0))


def make_list(dtype, seed, low, high, shapes=SHAPES):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(s, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype) for s in shapes]


def per_tensor(n, start=0.5):
    """A ScalarList: one value per tensor."""
    return [start + 0.25 * i for i in range(n)]


def binary_cases():
    for name in ("add", "sub", "mul", "div"):
        f, f_ = getattr(torch, f"_foreach_{name}"), getattr(torch, f"_foreach_{name}_")
        alpha = {"alpha": 0.5} if name in ("add", "sub") else {}
        yield f"{name}.Scalar", 1, lambda L, f=f: f(L[0], 1.5)
        yield f"{name}_.Scalar", 1, lambda L, f_=f_: f_(L[0], 1.5)
        yield f"{name}_.Scalar(int)", 1, lambda L, f_=f_: f_(L[0], 3)
        yield f"{name}.ScalarList", 1, lambda L, f=f: f(L[0], per_tensor(len(L[0])))
        yield f"{name}_.ScalarList", 1, lambda L, f_=f_: f_(L[0], per_tensor(len(L[0])))
        yield f"{name}.List", 2, lambda L, f=f, kw=alpha: f(L[0], L[1], **kw)
        yield f"{name}_.List", 2, lambda L, f_=f_, kw=alpha: f_(L[0], L[1], **kw)


def pointwise_cases():
    for name in ("addcmul", "addcdiv"):
        f, f_ = getattr(torch, f"_foreach_{name}"), getattr(torch, f"_foreach_{name}_")
        yield f"{name}.Scalar", 3, lambda L, f=f: f(L[0], L[1], L[2], value=-0.75)
        yield f"{name}_.Scalar", 3, lambda L, f_=f_: f_(L[0], L[1], L[2], value=-0.75)
        yield f"{name}.ScalarList", 3, lambda L, f=f: f(L[0], L[1], L[2], per_tensor(len(L[0]), -1.0))
        yield f"{name}_.ScalarList", 3, lambda L, f_=f_: f_(L[0], L[1], L[2], per_tensor(len(L[0]), -1.0))


CASES = list(binary_cases()) + list(pointwise_cases()) + [
    ("lerp.Scalar", 2, lambda L: torch._foreach_lerp(L[0], L[1], 0.25)),
    ("lerp_.Scalar", 2, lambda L: torch._foreach_lerp_(L[0], L[1], 0.75)),
    ("lerp.List", 3, lambda L: torch._foreach_lerp(L[0], L[1], L[2])),
    ("lerp_.List", 3, lambda L: torch._foreach_lerp_(L[0], L[1], L[2])),
    ("sqrt", 1, lambda L: torch._foreach_sqrt(L[0])),
    ("sqrt_", 1, lambda L: torch._foreach_sqrt_(L[0])),
    ("zero_", 1, lambda L: torch._foreach_zero_(L[0])),
]
CASE_BY_NAME = {c[0]: c for c in CASES}


def lists_for(case, arity, dtype, shapes=SHAPES):
    """CPU lists: self in [-3, 3] (positive for sqrt), the others in [0.5, 2] (divisors, weights)."""
    self_low = 0.1 if case.startswith("sqrt") else -3
    return [make_list(dtype, 0, self_low, 3, shapes)] + [make_list(dtype, k, 0.5, 2, shapes) for k in range(1, arity)]


def run(fn, lists):
    """The op's result: the list it returns, or its first list (written in place)."""
    out = fn(lists)
    return lists[0] if out is None else out


# Groups one NVIDIA launch holds (kernels/multi_tensor.cu): a list of G tensors takes ceil(G / 32) launches.
GROUPS_PER_LAUNCH = 32


# How the profiler names a kernel launch: the runtime's call (torch.cuda) and the driver's (the adapter's
# kernels/kernel_launch.h launches through the driver; the runtime's call remains its fallback).
LAUNCH_EVENTS = ("cudaLaunchKernel", "cuLaunchKernel")


def dispatched(fn):
    """Runs fn under the profiler; returns its result, the names of the aten ops it dispatched, and the number
    of kernel launches the profiler saw (CUDA API calls, which it records for the adapter too)."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        result = fn()
    events = [e.name for e in prof.events()]
    # No CUDA API event at all: the profiler could not attach to CUDA (compute-sanitizer holds CUPTI), so
    # the number of launches is unknown (None) rather than 0.
    seen_cuda = any(n.startswith("cu") for n in events)
    launches = sum(events.count(name) for name in LAUNCH_EVENTS) if seen_cuda else None
    return result, {n for n in events if not n.startswith("cu")}, launches


def other_ops(names):
    """aten ops dispatched beneath the foreach op other than allocations: the per-tensor path's. (Events of other
    names are not ops: the first profile of a process can hold an "INVALID" one.)"""
    return {n for n in names if n.startswith("aten::") and not n.startswith("aten::_foreach_")} - ALLOCATIONS


def assert_fast_route(names, launches, groups):
    assert not other_ops(names), f"the per-tensor path ran: {sorted(other_ops(names))}"
    if launches is None:
        return
    # At least one: a launch the profiler did not see would otherwise pass as a fused one.
    assert 1 <= launches <= -(-groups // GROUPS_PER_LAUNCH), f"{launches} kernel launches for {groups} tensors"


def assert_close_lists(actual, expected, dtype):
    assert len(actual) == len(expected)
    rtol, atol = tol(dtype)
    for a, e in zip(actual, expected):
        assert a.device.type == "hal" and a.dtype == e.dtype and a.shape == e.shape
        torch.testing.assert_close(a.cpu(), e, rtol=rtol, atol=atol, equal_nan=True)


@pytest.fixture
def strict():
    torch.hal.reset_fallback_stats()
    with torch.hal.strict():
        yield
    assert torch.hal.fallback_stats() == {}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case,arity,fn", CASES, ids=[c[0] for c in CASES])
def test_overload_runs_as_one_native_launch(gpu_device, strict, case, arity, fn, dtype):
    cpu_lists = lists_for(case, arity, dtype)
    hal_lists = [[t.to(gpu_device) for t in lst] for lst in cpu_lists]
    versions = [t._version for t in hal_lists[0]]
    result, names, launches = dispatched(lambda: run(fn, hal_lists))
    torch.hal.synchronize(gpu_device)
    assert_fast_route(names, launches, len(hal_lists[0]))
    expected = run(fn, cpu_lists)
    assert_close_lists(result, expected, dtype)
    if "_." in case or case.endswith("_"):  # in place: each tensor's version bumped once, as on the CPU
        assert [t._version for t in hal_lists[0]] == [v + 1 for v in versions]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_more_groups_than_one_launch_holds(gpu_device, strict, dtype):
    g = torch.Generator().manual_seed(3)
    shapes = [(int(n),) for n in torch.randint(0, 5000, (100,), generator=g)] + [(), (0,), ((1 << 20) + 1,)]
    for case in ("add_.ScalarList", "addcdiv.ScalarList", "lerp_.List", "mul.List"):
        _, arity, fn = CASE_BY_NAME[case]
        cpu_lists = lists_for(case, arity, dtype, shapes)
        hal_lists = [[t.to(gpu_device) for t in lst] for lst in cpu_lists]
        result, names, launches = dispatched(lambda: run(fn, hal_lists))
        assert_fast_route(names, launches, len(hal_lists[0]))
        assert_close_lists(result, run(fn, cpu_lists), dtype)


def test_dense_permuted_tensors_take_the_fast_route(gpu_device, strict):
    # Dense but not contiguous, with one layout per group: each group is read as one flat array.
    hal = [torch.randn(6, 5).to(gpu_device).t(), torch.randn(2, 3, 4).to(gpu_device).permute(2, 0, 1)]
    cpu = [t.cpu() for t in hal]
    assert not any(t.is_contiguous() for t in hal)
    out, names, launches = dispatched(lambda: torch._foreach_add(hal, hal, alpha=2.0))
    assert_fast_route(names, launches, len(hal))
    assert [t.stride() for t in out] == [t.stride() for t in hal]
    assert_close_lists(out, torch._foreach_add(cpu, cpu, alpha=2.0), torch.float32)


def copy_to(t, device):
    return t.to(device, copy=True)


# Lists the fast route refuses, built per device (views made on the device itself): each must still give the
# CPU's result, through the per-tensor ops.
REFUSED = [
    ("non-dense", lambda L: torch._foreach_add_(L[0], 1.5),
     lambda d, v: [[copy_to(v[0], d)[:, ::2], copy_to(v[1], d)]]),
    ("layouts differ in a group", lambda L: torch._foreach_mul_(L[0], L[1]),
     lambda d, v: [[copy_to(v[2], d).t()], [copy_to(v[3], d)]]),
    ("integer tensor", lambda L: torch._foreach_add_(L[0], 2),
     lambda d, v: [[copy_to(v[1], d), copy_to(v[4], d)]]),
    ("mixed dtypes", lambda L: torch._foreach_mul(L[0], 2.0),
     lambda d, v: [[copy_to(v[1], d), copy_to(v[1], d).double()]]),
    ("broadcast", lambda L: torch._foreach_add(L[0], L[1]),
     lambda d, v: [[copy_to(v[3], d)], [copy_to(v[3][0], d)]]),
]


@pytest.mark.parametrize("case,fn,build", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_lists_take_the_per_tensor_path(gpu_device, strict, case, fn, build):
    g = torch.Generator().manual_seed(5)
    values = [torch.randn(8, 10, generator=g), torch.randn(5, generator=g), torch.randn(3, 4, generator=g),
              torch.randn(4, 3, generator=g), torch.arange(12, dtype=torch.int64).reshape(3, 4)]
    hal_lists, cpu_lists = build(gpu_device, values), build(torch.device("cpu"), values)
    result, names, _ = dispatched(lambda: run(fn, hal_lists))
    assert other_ops(names), "expected the per-tensor path"
    expected = run(fn, cpu_lists)
    assert len(result) == len(expected)
    for a, e in zip(result, expected):
        assert a.device.type == "hal" and a.dtype == e.dtype and a.shape == e.shape
        torch.testing.assert_close(a.cpu(), e, rtol=1e-6, atol=1e-6)


def test_in_place_aliasing_across_groups_matches_sequential_order(gpu_device, strict):
    """The slow path runs groups one after the other; the fast route would run them at once, so lists where a
    written tensor is another group's operand take the slow path."""
    a, b = torch.randn(100), torch.randn(100)
    ha, hb = a.to(gpu_device), b.to(gpu_device)
    torch._foreach_add_([ha, hb], [hb, ha])
    torch._foreach_add_([a, b], [b, a])
    torch._foreach_mul_([ha, ha], 3.0)  # the same tensor twice: multiplied by 9
    torch._foreach_mul_([a, a], 3.0)
    torch.testing.assert_close(ha.cpu(), a)
    torch.testing.assert_close(hb.cpu(), b)


def test_zero_clears_nan_and_inf(gpu_device, strict):
    t = torch.tensor([float("nan"), float("inf"), -1.0]).to(gpu_device)
    torch._foreach_zero_([t])
    assert torch.equal(t.cpu(), torch.zeros(3))


def test_mismatched_lengths_raise_before_anything_runs(gpu_device, strict):
    xs = [torch.ones(3, device=gpu_device) for _ in range(3)]
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 3 and 2"):
        torch._foreach_add_(xs, xs[:2])
    with pytest.raises(RuntimeError, match="scalar list"):
        torch._foreach_mul_(xs, [1.0, 2.0])
    assert all(torch.equal(x.cpu(), torch.ones(3)) for x in xs)


def test_cpu_tensor_in_the_list_raises_as_pytorch(gpu_device, strict):
    xs = [torch.ones(3, device=gpu_device), torch.ones(3, device=gpu_device)]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch._foreach_add_(xs, [torch.ones(3, device=gpu_device), torch.ones(3)])


def adamw_steps(params, grads_per_step):
    opt = torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1, foreach=True)
    for grads in grads_per_step:
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()


def test_adamw_foreach_step_matches_cpu(gpu_device, strict):
    shapes = [(256, 784), (256,), (128, 256), (128,), (10, 128), (10,), (), (64, 64), (64,), (3, 5, 7)]
    g = torch.Generator().manual_seed(0)
    cpu_params = [torch.randn(s, generator=g).requires_grad_() for s in shapes]
    grads = [[torch.randn(s, generator=g) for s in shapes] for _ in range(3)]
    hal_params = [p.detach().to(gpu_device).requires_grad_() for p in cpu_params]
    _, names, _ = dispatched(lambda: adamw_steps(hal_params, [[x.to(gpu_device) for x in gs] for gs in grads]))
    adamw_steps(cpu_params, grads)
    # The step's per-tensor ops on hal would be these (the CPU's step counters only add).
    assert not names & {"aten::mul_", "aten::lerp_", "aten::addcmul_", "aten::sqrt", "aten::div_", "aten::addcdiv_"}
    for h, c in zip(hal_params, cpu_params):
        torch.testing.assert_close(h.detach().cpu(), c.detach(), rtol=1e-5, atol=1e-6)
