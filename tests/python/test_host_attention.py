"""scaled_dot_product_attention on the host reference device: ATen's CPU flash-attention kernels run in place
on hal memory (csrc/torch/ops/attention_on_host.h), as SDPA on CPU tensors runs them, instead of the math
path. Values and gradients against SDPA on CPU tensors; the profiler shows which kernels ran; what the CPU
kernels refuse (dropout, a mask that requires grad) still takes the math path, named under TORCH_HAL_TRACE_OPS.
"""
import pytest
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from conftest import run_python

HAL = torch.device("hal:0")
B, H, L, S, D = 2, 4, 6, 9, 16


def inputs(dtype, kv_heads=H, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, L, D, generator=g, dtype=dtype)
    k = torch.randn(B, kv_heads, S, D, generator=g, dtype=dtype)
    v = torch.randn(B, kv_heads, S, D, generator=g, dtype=dtype)
    grad = torch.randn(B, H, L, D, generator=g, dtype=dtype)
    return q, k, v, grad


def attend(q, k, v, grad, device, **kwargs):
    """Output and q/k/v gradients of SDPA on `device`, as CPU tensors; and the names of the ops that ran."""
    leaves = [t.to(device).requires_grad_() for t in (q, k, v)]
    if isinstance(kwargs.get("attn_mask"), torch.Tensor):
        kwargs["attn_mask"] = kwargs["attn_mask"].to(device)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        out = F.scaled_dot_product_attention(*leaves, **kwargs)
        out.backward(grad.to(device))
    ran = {e.key for e in prof.key_averages()}
    return [t.cpu() for t in (out, *[leaf.grad for leaf in leaves])], ran


CASES = {
    "plain": {},
    "causal": {"is_causal": True},
    "bool_mask": {"attn_mask": torch.rand(L, S, generator=torch.Generator().manual_seed(3)) > 0.3},
    "additive_padding_mask": {"attn_mask": torch.randn(B, 1, 1, S, generator=torch.Generator().manual_seed(4))},
    "scale": {"scale": 0.3, "is_causal": True},
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sdpa_runs_cpu_flash_kernels_in_place(case, dtype):
    kwargs = CASES[case]
    mask = kwargs.get("attn_mask")
    if dtype != torch.float32 and isinstance(mask, torch.Tensor) and mask.is_floating_point():
        kwargs = dict(kwargs, attn_mask=mask.to(dtype))
    q, k, v, grad = inputs(dtype)
    torch.hal.reset_fallback_stats()
    got, ran = attend(q, k, v, grad, HAL, **dict(kwargs))
    want, _ = attend(q, k, v, grad, "cpu", **dict(kwargs))
    for g, w in zip(got, want):
        # The same kernels on the same values: equal up to the order of threads' partial sums.
        torch.testing.assert_close(g, w, rtol=0, atol=0) if dtype == torch.float64 else torch.testing.assert_close(g, w)
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in ran
    assert "aten::_scaled_dot_product_flash_attention_for_cpu_backward" in ran
    assert "aten::_scaled_dot_product_fused_attention_overrideable" in ran
    assert not torch.hal.fallback_stats()


def test_grouped_query_heads_and_strided_query():
    q, k, v, grad = inputs(torch.float32, kv_heads=2)
    q = q.transpose(1, 2).contiguous().transpose(1, 2)  # [B, L, H, D] memory, as a projection's reshape leaves it
    got, ran = attend(q, k, v, grad, HAL, is_causal=True, enable_gqa=True)
    want, _ = attend(q, k, v, grad, "cpu", is_causal=True, enable_gqa=True)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    assert got[2].shape == k.shape
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in ran


def test_what_the_cpu_kernels_refuse_takes_the_math_path_and_says_why():
    code = """
import torch, torch_hal, torch.nn.functional as F
q = torch.randn(1, 2, 4, 8, device="hal:0")
F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
mask = torch.zeros(4, 4, device="hal:0", requires_grad=True)
out = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
out.sum().backward()
assert mask.grad is not None and mask.grad.shape == (4, 4)
print("done")
"""
    result = run_python(code, TORCH_HAL_TRACE_OPS=1)
    assert result.returncode == 0, result.stderr
    assert "done" in result.stdout
    dropout = "takes ATen's math path: it has dropout, which ATen's CPU flash-attention kernels do not take"
    assert dropout in result.stderr
    assert "takes ATen's math path: its mask requires grad" in result.stderr


def test_sdpa_on_another_device_names_it():
    q = torch.randn(1, 2, 4, 8, device=HAL)
    with pytest.raises(RuntimeError, match="device"):
        F.scaled_dot_product_attention(q, q.cpu(), q)


def test_results_are_laid_out_as_the_meta_functions_say():
    """Slices of a fused QKV projection (not dense): outputs and gradients follow the input's stride order, as
    PyTorch's meta functions allocate them, so compiled graphs' stride checks hold."""
    qkv = torch.randn(B, L, 3, H, D, device=HAL)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    op = torch.ops.aten._scaled_dot_product_fused_attention_overrideable.default
    out, lse = op(q, k, v, None, 0.0, True)[:2]
    on_meta = [torch.empty_strided(t.shape, t.stride(), device="meta") for t in (q, k, v)]
    meta_out, meta_lse = op(*on_meta, None, 0.0, True)[:2]
    assert out.stride() == meta_out.stride() and lse.stride() == meta_lse.stride()
    backward = torch.ops.aten._scaled_dot_product_fused_attention_overrideable_backward.default
    no_rng = torch.empty((), dtype=torch.long)
    grads = backward(torch.randn_like(out), q, k, v, None, [True, True, True, False], out, lse, None, None, L, L,
                     0.0, True, no_rng, no_rng)
    for grad, t in zip(grads[:3], on_meta):
        assert grad.stride() == torch.empty_like(t).stride()
