"""Batch/group/RMS norm, pooling and upsampling on devices without native kernels for them (the host
reference device, in place and through the counted copy fallback): the registrations of
csrc/torch/ops/{batch_norm,group_norm,pooling,upsample}_ops.cpp must leave these paths as they were, and
RMS norm, whose fused op has no CPU kernel, runs its composite there. The GPU kernels themselves are tested
in tests/gpu/test_native_norm_pool.py."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from conftest import run_python


def _forward_backward(fn, inputs, device):
    leaves = [t.detach().to(device).requires_grad_(t.is_floating_point()) for t in inputs]
    out = fn(*leaves)
    g = torch.Generator().manual_seed(3)
    out.backward(torch.randn(out.shape, generator=g, dtype=out.dtype).to(device))
    return out.detach().cpu(), [leaf.grad.cpu() for leaf in leaves]


CASES = {
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, torch.zeros_like(w), torch.ones_like(w), w, b, training=True),
                         [(3, 4, 5, 6), (4,), (4,)]),
    "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, torch.zeros_like(w) + 0.5, torch.ones_like(w) * 2, w, b),
                        [(3, 4, 5, 6), (4,), (4,)]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), [(3, 4, 5, 6), (4,), (4,)]),
    "rms_norm": (lambda x, w: F.rms_norm(x, (5, 6), w), [(3, 4, 5, 6), (5, 6)]),
    "rms_norm_no_weight": (lambda x: F.rms_norm(x, (6,), eps=1e-3), [(3, 4, 5, 6)]),
    "max_pool": (lambda x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 9, 8)]),
    "avg_pool": (lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [(2, 3, 9, 8)]),
    "adaptive_avg_pool": (lambda x: F.adaptive_avg_pool2d(x, (4, 3)), [(2, 3, 9, 8)]),
    "adaptive_max_pool": (lambda x: F.adaptive_max_pool2d(x, (4, 3)), [(2, 3, 9, 8)]),
    "nearest": (lambda x: F.interpolate(x, scale_factor=2), [(2, 3, 5, 4)]),
    "bilinear": (lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True), [(2, 3, 5, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_host_device_matches_cpu(hal0, name):
    fn, shapes = CASES[name]
    g = torch.Generator().manual_seed(0)
    inputs = [torch.randn(s, generator=g, dtype=torch.float64) for s in shapes]
    want, want_grads = _forward_backward(fn, inputs, "cpu")
    got, got_grads = _forward_backward(fn, inputs, hal0)
    torch.testing.assert_close(got, want)
    for a, b in zip(got_grads, want_grads):
        torch.testing.assert_close(a, b)


def test_rms_norm_module_on_host_device(hal0):
    """nn.RMSNorm reaches aten::_fused_rms_norm, which hal registers for every device: here (no native
    kernel) it runs the composite, forward and backward (_fused_rms_norm_backward)."""
    torch.manual_seed(0)
    cpu = nn.RMSNorm(16, dtype=torch.bfloat16)
    dev = nn.RMSNorm(16, dtype=torch.bfloat16).to(hal0)
    with torch.no_grad():
        cpu.weight.uniform_(0.5, 2)
    dev.load_state_dict(cpu.state_dict())
    x = torch.randn(4, 7, 16).to(torch.bfloat16)
    y = dev(x.to(hal0).requires_grad_())
    assert "FusedRmsNorm" in type(y.grad_fn).__name__
    y.float().square().sum().backward()
    want = cpu(x)
    want.float().square().sum().backward()
    assert y.dtype == torch.bfloat16
    torch.testing.assert_close(y.detach().cpu(), want.detach())
    torch.testing.assert_close(dev.weight.grad.cpu(), cpu.weight.grad)


SCRIPT = r"""
import torch, torch_hal, torch.nn.functional as F
assert not torch.hal.get_device_properties(0).host_accessible
d = torch.device('hal:0')
g = torch.Generator().manual_seed(0)
x, w = torch.randn(6, 5, 8, generator=g), torch.randn(8, generator=g)
checks = {}
for name, fn in {'rms': lambda t, w: F.rms_norm(t, (8,), w),
                 'bn': lambda t, w: F.batch_norm(t.transpose(1, 2), None, None, w, None, training=True),
                 'pool': lambda t, w: F.max_pool2d(t.unsqueeze(0), 2) * w[:4].sum()}.items():
    out = {}
    for dev in ('cpu', d):
        a, b = x.detach().to(dev).requires_grad_(), w.detach().to(dev).requires_grad_()
        y = fn(a, b)
        y.square().sum().backward()
        out[str(dev)] = (y.detach().cpu(), a.grad.cpu(), b.grad.cpu())
    checks[name] = all(torch.allclose(p, q, atol=1e-5, rtol=1e-5) for p, q in zip(out['cpu'], out['hal:0']))
print('CHECKS', checks)
assert all(checks.values()), checks
stats = torch.hal.fallback_stats()
assert stats.get('aten::native_batch_norm', 0) >= 1 and stats.get('aten::max_pool2d_with_indices', 0) >= 1, stats
"""


def test_copy_fallback_path():
    out = run_python(SCRIPT, TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 0, out.stdout + out.stderr
