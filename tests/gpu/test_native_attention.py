"""F.scaled_dot_product_attention on a GPU hal device through the fused attention kernels (HAL_OP_ATTENTION and
its backward, csrc/torch/native/attention_ops.cpp), against ATen's math path on the CPU in float64: values and
the gradients of query, key and value over dtypes, head dims up to 256, causal and arbitrary masks (bool and
additive, broadcast), grouped-query heads, unequal query and key lengths and strided (transposed) inputs.
Each case also checks which path ran: the fused op where it takes the arguments, the math path (still
native, in strict mode) where it does not. Skips without a GPU."""
import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from native_nn_helpers import make, native  # noqa: F401  (fixtures)

FUSED = torch.ops.aten._scaled_dot_product_fused_attention_overrideable.default
FUSED_BACKWARD = torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward.default
# float32 sums run in the same order class as the CPU's; 16-bit inputs are rounded once and summed in float32.
TOLERANCE = {torch.float32: dict(atol=2e-5, rtol=2e-5), torch.float16: dict(atol=4e-3, rtol=4e-3),
             torch.bfloat16: dict(atol=3e-2, rtol=3e-2)}


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
    with native(), seen:
        got, got_grads = run(gpu_device, dtype)
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
    assert FUSED not in seen.ops


def test_sdpa_kernel_math_turns_the_fused_path_off(gpu_device, native):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(1, 2, 8, 16).to(gpu_device)
    seen = OpsSeen()
    with native(), seen, sdpa_kernel(SDPBackend.MATH):
        F.scaled_dot_product_attention(q, q, q)
    assert FUSED not in seen.ops
