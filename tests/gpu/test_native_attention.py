"""F.scaled_dot_product_attention on a GPU hal device through the fused attention op (csrc/torch/ops/
attention_ops.cpp) on both of its routes: GEMMs around the ATTENTION_SOFTMAX kernel (attention_by_gemm.cpp, the
default; its backward reading the probabilities the forward saved, or recomputing them with
TORCH_HAL_ATTENTION_SAVED_MB=0) and the tiled kernels (HAL_OP_ATTENTION and its backward, with
TORCH_HAL_ATTENTION_WORKSPACE_MB=0),
against ATen's math path on the CPU in float64: values and
the gradients of query, key and value over dtypes, head dims up to 256, causal and arbitrary masks (bool and
additive, broadcast), grouped-query heads, unequal query and key lengths and strided (transposed) inputs.
Each case also checks which path ran: the fused op where it takes the arguments, the math path (still
native, in strict mode) where it does not. Skips without a GPU."""
import os

import pytest
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode

from native_nn_helpers import make, native  # noqa: F401  (fixtures)

FUSED = torch.ops.aten._scaled_dot_product_fused_attention_overrideable.default
FUSED_BACKWARD = torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward.default
# float32 sums run in the same order class as the CPU's; 16-bit inputs are rounded once and summed in float32.
TOLERANCE = {torch.float32: dict(atol=2e-5, rtol=2e-5), torch.float16: dict(atol=4e-3, rtol=4e-3),
             torch.bfloat16: dict(atol=3e-2, rtol=3e-2)}


WORKSPACE = "TORCH_HAL_ATTENTION_WORKSPACE_MB"
SAVED = "TORCH_HAL_ATTENTION_SAVED_MB"


@pytest.fixture(autouse=True, params=["gemm", "gemm-recomputed", "tiled"])
def attention_route(request, monkeypatch):
    """Every case runs on both routes, the GEMM route's backward with the probabilities the forward saved and
    recomputing them (a limit of 0 on what is saved); the tiled route is what a workspace limit of 0 leaves."""
    monkeypatch.delenv(WORKSPACE, raising=False)
    monkeypatch.delenv(SAVED, raising=False)
    if request.param == "tiled":
        monkeypatch.setenv(WORKSPACE, "0")
    elif request.param == "gemm-recomputed":
        monkeypatch.setenv(SAVED, "0")
    return request.param


def gemm_route_allowed():
    return os.environ.get(WORKSPACE) != "0"


def gemm_route_ran(profiled):
    """Whether the fused op ran as GEMMs: the profiler records a torch_hal::attention_gemm scope per GEMM."""
    return "torch_hal::attention_gemm" in {e.name for e in profiled.events()}


class OpsSeen(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(func)
        return func(*args, **(kwargs or {}))


def attention_case(gpu_device, native, dtype, B, Hq, Hk, L, S, D, causal=False, mask=None, strided=False, scale=None):
    """Runs SDPA forward and backward on the GPU (in strict mode) and in float64 on the CPU; returns the ops
    the GPU run dispatched. The inputs are the same values on both sides (rounded to dtype once)."""
    q, k, v = (make(shape, dtype, seed=s, low=-1, high=1) for s, shape in
               ((1, (B, Hq, L, D)), (2, (B, Hk, S, D)), (3, (B, Hk, S, D))))
    grad = make((B, Hq, L, D), dtype, seed=4, low=-1, high=1)
    gqa = Hq != Hk

    def run(device, t_dtype):
        leaves = []
        for t in (q, k, v):
            t = t.to(device=device, dtype=t_dtype)
            if strided:  # a [B, seq, H, D] tensor seen as [B, H, seq, D], as transformers' models pass it
                t = t.transpose(1, 2).contiguous().transpose(1, 2)
            leaves.append(t.detach().requires_grad_(True))
        m = mask.to(device=device, dtype=mask.dtype if mask.dtype == torch.bool else t_dtype) if mask is not None else None
        out = F.scaled_dot_product_attention(*leaves, attn_mask=m, is_causal=causal, scale=scale, enable_gqa=gqa)
        out.backward(grad.to(device=device, dtype=t_dtype))
        return out.detach(), [leaf.grad for leaf in leaves]

    seen = OpsSeen()
    with native(), seen, profile(activities=[ProfilerActivity.CPU]) as profiled:
        got, got_grads = run(gpu_device, dtype)
    if FUSED in seen.ops:
        assert gemm_route_ran(profiled) == gemm_route_allowed()
    want, want_grads = run("cpu", torch.float64)
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(got.cpu().double(), want, **tol)
    for name, g, w in zip("qkv", got_grads, want_grads):
        # Gradients sum over a sequence: scale the tolerance with its length.
        scale = max(1.0, (max(L, S) / 64) ** 0.5)
        torch.testing.assert_close(g.cpu().double(), w, atol=tol["atol"] * 4 * scale, rtol=tol["rtol"] * 4 * scale,
                                   msg=lambda m: f"grad of {name}: {m}")
    return seen.ops


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("D", [16, 64, 80, 128, 256])
def test_head_dims_and_dtypes(gpu_device, native, dtype, D):
    ops = attention_case(gpu_device, native, dtype, B=2, Hq=3, Hk=3, L=37, S=37, D=D)
    assert FUSED in ops and FUSED_BACKWARD in ops


def test_head_dims_above_the_tiled_kernels_limit(gpu_device, native):
    """Head dim 320: the GEMM route takes it; without that route's workspace, the math path."""
    ops = attention_case(gpu_device, native, torch.float32, B=1, Hq=2, Hk=2, L=20, S=24, D=320, causal=True)
    assert (FUSED in ops) == gemm_route_allowed()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("L,S", [(64, 64), (1, 70), (70, 33), (130, 260)])
def test_causal(gpu_device, native, dtype, L, S):
    ops = attention_case(gpu_device, native, dtype, B=2, Hq=4, Hk=4, L=L, S=S, D=64, causal=True)
    assert FUSED in ops


def test_strided_inputs_and_scale(gpu_device, native):
    ops = attention_case(gpu_device, native, torch.float32, B=2, Hq=4, Hk=4, L=48, S=48, D=64, strided=True, scale=0.3,
                         causal=True)
    assert FUSED in ops


@pytest.mark.parametrize("Hq,Hk", [(8, 2), (6, 1)])
def test_grouped_query_heads(gpu_device, native, Hq, Hk):
    ops = attention_case(gpu_device, native, torch.float32, B=2, Hq=Hq, Hk=Hk, L=40, S=40, D=32, causal=True)
    assert FUSED in ops


@pytest.mark.parametrize("shape", [(2, 1, 1, 50), (1, 1, 20, 50), (2, 3, 20, 50)])
def test_boolean_masks_broadcast(gpu_device, native, shape):
    mask = torch.rand(shape, generator=torch.Generator().manual_seed(5)) > 0.3
    mask[..., 0] = True  # every query keeps a key (a fully masked row is NaN on the CPU's math path)
    ops = attention_case(gpu_device, native, torch.float32, B=2, Hq=3, Hk=3, L=20, S=50, D=64, mask=mask)
    assert FUSED in ops


def test_additive_mask(gpu_device, native):
    mask = torch.randn(2, 3, 20, 50, generator=torch.Generator().manual_seed(6))
    mask[:, :, :, 10:20] = float("-inf")
    ops = attention_case(gpu_device, native, torch.bfloat16, B=2, Hq=3, Hk=3, L=20, S=50, D=64, mask=mask)
    assert FUSED in ops


def test_fully_masked_rows_give_zeros_not_nan(gpu_device, native):
    q = torch.randn(1, 2, 4, 16).to(gpu_device).requires_grad_(True)
    k = torch.randn(1, 2, 6, 16).to(gpu_device)
    v = torch.randn(1, 2, 6, 16).to(gpu_device)
    mask = torch.ones(1, 1, 4, 6, dtype=torch.bool)
    mask[:, :, 1] = False  # query 1 sees no key
    with native():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(gpu_device))
        out.sum().backward()
    assert torch.isfinite(out.cpu()).all() and torch.equal(out[:, :, 1].cpu(), torch.zeros(1, 2, 16))
    assert torch.equal(q.grad[:, :, 1].cpu(), torch.zeros(1, 2, 16))


def test_what_the_kernels_do_not_take_runs_the_math_path(gpu_device, native):
    """Dropout and a mask that requires grad go down ATen's math path (still native kernels), with values as
    ever; TORCH_HAL_TRACE_OPS says why (not checked here: stderr)."""
    mask = torch.randn(1, 1, 8, 8, requires_grad=True)
    q, k, v = (torch.randn(1, 2, 8, 16) for _ in range(3))
    seen = OpsSeen()
    with native(), seen:
        gm = mask.detach().to(gpu_device).requires_grad_(True)
        out = F.scaled_dot_product_attention(q.to(gpu_device), k.to(gpu_device), v.to(gpu_device), attn_mask=gm)
        out.sum().backward()
    assert FUSED not in seen.ops
    want = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    want.sum().backward()
    torch.testing.assert_close(out.detach().cpu(), want.detach(), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(gm.grad.cpu(), mask.grad, atol=1e-5, rtol=1e-5)
    seen = OpsSeen()
    with native(), seen:
        F.scaled_dot_product_attention(q.to(gpu_device), k.to(gpu_device), v.to(gpu_device), dropout_p=0.5)
    # Dropout: only the GEMM route has it; without its workspace it is the math path's.
    assert (FUSED in seen.ops) == gemm_route_allowed()


def test_sdpa_kernel_math_turns_the_fused_path_off(gpu_device, native):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(1, 2, 8, 16).to(gpu_device)
    seen = OpsSeen()
    with native(), seen, sdpa_kernel(SDPBackend.MATH):
        F.scaled_dot_product_attention(q, q, q)
    assert FUSED not in seen.ops


@pytest.mark.parametrize("causal", [False, True])
def test_slices_of_a_fused_projection(gpu_device, native, attention_route, causal):
    """q, k and v as GPT-2 passes them: heads sliced out of one [B, L, 3, H, D] projection and seen as
    [B, H, L, D] (strides (3 L H D, D, 3 H D, 1): no single stride across batch and head). The GEMM route reads
    them, and writes the output and the gradients, where they lie (4-D GEMMs); gradients land in the projection's
    gradient. Checked against float64 on the CPU."""
    B, H, L, D = 3, 4, 40, 32
    q, k, v = (make((B, H, L, D), torch.float32, seed=s, low=-1, high=1) for s in (21, 22, 23))
    grad = make((B, H, L, D), torch.float32, seed=24, low=-1, high=1)
    fused = torch.stack([t.transpose(1, 2) for t in (q, k, v)], dim=2).to(gpu_device).requires_grad_(True)
    views = [fused[:, :, i].transpose(1, 2) for i in range(3)]
    assert views[0].stride() == (3 * L * H * D, D, 3 * H * D, 1)
    with native(), profile(activities=[ProfilerActivity.CPU]) as profiled:
        out = F.scaled_dot_product_attention(*views, is_causal=causal)
        out.backward(grad.to(gpu_device))
    assert gemm_route_ran(profiled) == gemm_route_allowed()
    # Laid out as the query (PyTorch's meta function: dense in the query's stride order, [B, L, H, D] in memory).
    assert out.stride() == (L * H * D, D, H * D, 1)
    ref = [t.double().requires_grad_(True) for t in (q, k, v)]
    want = F.scaled_dot_product_attention(*ref, is_causal=causal)
    want.backward(grad.double())
    tol = TOLERANCE[torch.float32]
    torch.testing.assert_close(out.detach().cpu().double(), want.detach(), **tol)
    for i, name in enumerate("qkv"):
        torch.testing.assert_close(fused.grad[:, :, i].transpose(1, 2).cpu().double(), ref[i].grad,
                                   atol=tol["atol"] * 4, rtol=tol["rtol"] * 4, msg=lambda m: f"grad of {name}: {m}")


@pytest.mark.parametrize("limit_pairs", [5, 3])
def test_gemm_route_in_chunks(gpu_device, native, monkeypatch, attention_route, limit_pairs):
    """A workspace of a few (batch, head) pairs' scores: the GEMM route runs in chunks of whole batches (5 pairs
    of the backward's two score matrices: one batch of 4 heads; the forward's one matrix: two batches, then
    one) or of heads within a batch (3 pairs: heads 0-2, then 3), with the values of one pass."""
    if attention_route != "gemm":
        pytest.skip("the GEMM route's chunks: once")
    B, H, L, S, D = 3, 4, 40, 40, 32
    bytes_per_pair = L * S * 4 * 2  # the backward's two f32 score matrices
    monkeypatch.setenv(WORKSPACE, repr(limit_pairs * bytes_per_pair / 2**20))
    mask = torch.randn(B, 1, L, S, generator=torch.Generator().manual_seed(7))
    ops = attention_case(gpu_device, native, torch.float32, B=B, Hq=H, Hk=2, L=L, S=S, D=D, mask=mask)
    assert FUSED in ops and FUSED_BACKWARD in ops


def dropout_case(gpu_device, native, p, mask=None, causal=False, dtype=torch.float32):
    """SDPA with dropout whose value is the identity ([S, S], S == D), so that the output is the dropped and
    rescaled probabilities themselves: the mask the GEMM route drew is read off the output (a kept probability
    is never 0 here), and the gradients are checked against float64 CPU autograd of softmax(q k^T s) * mask /
    (1 - p) @ v with that mask."""
    B, H, L, S = 2, 3, 24, 32
    q, k = (make((B, H, n, S), dtype, seed=s, low=-1, high=1) for s, n in ((11, L), (12, S)))
    v = torch.eye(S, dtype=dtype).expand(B, H, S, S).contiguous()
    grad = make((B, H, L, S), dtype, seed=13, low=-1, high=1)
    leaves = [t.to(gpu_device).requires_grad_(True) for t in (q, k, v)]
    m = mask.to(gpu_device) if mask is not None else None
    with native():
        out = F.scaled_dot_product_attention(*leaves, attn_mask=m, dropout_p=p, is_causal=causal)
        out.backward(grad.to(gpu_device))
    keep = (out.detach().cpu() != 0).double()
    ref = [t.double().requires_grad_(True) for t in (q, k, v)]
    scores = ref[0] @ ref[1].transpose(-1, -2) / S ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    if causal:
        scores = scores.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf"))
    want = (torch.softmax(scores, -1) * keep / (1 - p)) @ ref[2]
    want.backward(grad.double())
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(out.detach().cpu().double(), want.detach(), **tol)
    for name, g, w in zip("qkv", leaves, ref):
        torch.testing.assert_close(g.grad.cpu().double(), w.grad, atol=tol["atol"] * 4, rtol=tol["rtol"] * 4,
                                   msg=lambda msg: f"grad of {name}: {msg}")
    return keep


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dropout_on_the_gemm_route(gpu_device, native, attention_route, dtype):
    if attention_route == "tiled":
        pytest.skip("dropout runs on the GEMM route only (the math path otherwise, checked above)")
    torch.hal.manual_seed(0)
    keep = dropout_case(gpu_device, native, p=0.3, dtype=dtype)
    assert abs(1 - keep.mean().item() - 0.3) < 0.03  # 4,608 draws: a standard deviation of 0.007
    # The same seed draws the same mask; the next call draws another.
    torch.hal.manual_seed(0)
    assert torch.equal(dropout_case(gpu_device, native, p=0.3, dtype=dtype), keep)
    assert not torch.equal(dropout_case(gpu_device, native, p=0.3, dtype=dtype), keep)


def test_dropout_with_masks_and_in_chunks(gpu_device, native, monkeypatch, attention_route):
    """Dropout with a causal mask, and with a boolean mask in chunks of one head: each chunk's draws continue
    the counters of the one before (the mask of one pass, as the backward redraws it)."""
    if attention_route == "tiled":
        pytest.skip("dropout runs on the GEMM route only")
    torch.hal.manual_seed(1)
    whole = dropout_case(gpu_device, native, p=0.2, causal=True)
    monkeypatch.setenv(WORKSPACE, repr(3 * 24 * 32 * 4 / 2**20))  # the backward's three matrices of one head
    torch.hal.manual_seed(1)
    assert torch.equal(dropout_case(gpu_device, native, p=0.2, causal=True), whole)
    mask = torch.rand(2, 1, 24, 32, generator=torch.Generator().manual_seed(8)) > 0.4
    mask[..., 0] = True
    dropout_case(gpu_device, native, p=0.2, mask=mask)


def gemm_products(profiled):
    return sum(e.name == "torch_hal::attention_gemm" for e in profiled.events())


def test_backward_reads_the_saved_probabilities(gpu_device, native, attention_route):
    """The forward saves the probabilities with its log-sum-exp (one allocation, counted by the memory
    statistics and freed with the graph); the backward then runs four GEMMs instead of five, with the values
    of the recomputing one, and a second backward (retain_graph) reads them again unchanged, dropout too."""
    if attention_route == "tiled":
        pytest.skip("the GEMM route's own")
    B, H, L, S, D = 2, 3, 48, 40, 32
    leaves = [make(shape, torch.float32, seed=s, low=-1, high=1).to(gpu_device).requires_grad_(True)
              for s, shape in ((21, (B, H, L, D)), (22, (B, H, S, D)), (23, (B, H, S, D)))]
    grad = make((B, H, L, D), torch.float32, seed=24, low=-1, high=1).to(gpu_device)
    saved = attention_route == "gemm"
    torch.hal.synchronize()
    before = torch.hal.memory_allocated(gpu_device)
    with native():
        torch.hal.manual_seed(3)
        out = F.scaled_dot_product_attention(*leaves, dropout_p=0.25)
        held = torch.hal.memory_allocated(gpu_device) - before - out.numel() * 4
        probs_bytes = B * H * L * S * 4
        assert (held >= probs_bytes) == saved, held
        grads = []
        for _ in range(2):
            with profile(activities=[ProfilerActivity.CPU]) as profiled:
                out.backward(grad, retain_graph=True)
            assert gemm_products(profiled) == (4 if saved else 5)
            grads.append([leaf.grad.clone() for leaf in leaves])
            for leaf in leaves:
                leaf.grad = None
    for first, second in zip(*grads):
        torch.testing.assert_close(first, second, atol=0, rtol=0)
    del out
    torch.hal.synchronize()
    assert torch.hal.memory_allocated(gpu_device) - before == sum(g.numel() * 4 for g in grads[0] + grads[1])


def test_saved_probabilities_backward_keeps_to_the_workspace_limit(gpu_device, native, monkeypatch, attention_route):
    """A workspace limit between one and two probability matrices: the forward saves them (they fit), and the
    backward with dropout, whose workspace holds two matrices a pair (the scores' gradient and the mask), runs
    in chunks of whole batches that fit the limit, reading each chunk's slice of the saved probabilities, with
    the gradients of a run without the limit."""
    if attention_route != "gemm":
        pytest.skip("the GEMM route's saved probabilities")
    B, H, L, S, D = 2, 3, 48, 40, 32
    probs_bytes = B * H * L * S * 4

    def run():
        leaves = [make(shape, torch.float32, seed=s, low=-1, high=1).to(gpu_device).requires_grad_(True)
                  for s, shape in ((41, (B, H, L, D)), (42, (B, H, S, D)), (43, (B, H, S, D)))]
        grad = make((B, H, L, D), torch.float32, seed=44, low=-1, high=1).to(gpu_device)
        with native():
            torch.hal.manual_seed(5)
            out = F.scaled_dot_product_attention(*leaves, dropout_p=0.25)
            with profile(activities=[ProfilerActivity.CPU]) as profiled:
                out.backward(grad)
        return [leaf.grad.cpu() for leaf in leaves], gemm_products(profiled)

    unlimited, products = run()
    assert products == 4  # one chunk, the saved probabilities read
    monkeypatch.setenv(WORKSPACE, repr(1.5 * probs_bytes / 2**20))
    limited, products = run()
    assert products == 8  # two chunks (one batch each) of four GEMMs: still reading the saved probabilities
    for g, w, name in zip(limited, unlimited, "qkv"):
        torch.testing.assert_close(g, w, msg=lambda m: f"grad of {name}: {m}")


def test_saved_probabilities_only_for_their_own_operands(gpu_device, native, attention_route):
    """The backward op handed a log-sum-exp with saved probabilities but other operands (a caller of the op
    itself), or no log-sum-exp at all, recomputes: its gradients are those of the operands it was given."""
    if attention_route != "gemm":
        pytest.skip("the GEMM route's saved probabilities")
    B, H, L, D = 1, 2, 16, 16
    q, k, v, q2, dout = (make((B, H, L, D), torch.float32, seed=s, low=-1, high=1).to(gpu_device)
                         for s in range(30, 35))
    with native():
        out, lse = FUSED(q, k, v, None, 0.0, False, False)[:2]
        out2, lse2 = FUSED(q2, k, v, None, 0.0, False, False)[:2]
        rng = torch.empty((), dtype=torch.long)
        args = (None, [True, True, True, False])
        got = FUSED_BACKWARD(dout, q2, k, v, *args, out2, lse, None, None, L, L, 0.0, False, rng, rng)
        want = FUSED_BACKWARD(dout, q2, k, v, *args, out2, lse2, None, None, L, L, 0.0, False, rng, rng)
        without = FUSED_BACKWARD(dout, q2, k, v, *args, out2, None, None, None, L, L, 0.0, False, rng, rng)
    for g, w, n in zip(got[:3], want[:3], without[:3]):
        torch.testing.assert_close(g, w)
        torch.testing.assert_close(n, w)
