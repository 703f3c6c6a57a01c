"""Ops composed from native ones in the glue, on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU
ops, forward and backward, through test_opencl_adapter.py's harness: linear, bicubic and trilinear upsampling and
3-D adaptive average pooling (separable_resampling_ops.cpp: one small matrix per spatial dimension, applied with
the device's GEMM), F.unfold (im2col_ops.cpp) and binary_cross_entropy (binary_cross_entropy_ops.cpp)."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_separable_resampling_runs_natively(runtime):
    run_ops_strictly("""
import torch.nn.functional as F
cases = [
    ("linear", r(2, 3, 7), dict(size=12, mode="linear")),
    ("linear aligned", r(2, 3, 7), dict(scale_factor=1.7, mode="linear", align_corners=True)),
    ("bicubic", r(2, 3, 5, 6), dict(size=(9, 4), mode="bicubic")),
    ("bicubic aligned", r(1, 2, 5, 6), dict(scale_factor=2.5, mode="bicubic", align_corners=True)),
    ("trilinear", r(1, 2, 3, 4, 5), dict(size=(5, 3, 8), mode="trilinear")),
    ("area 3-D", r(2, 3, 6, 7, 5), dict(size=(4, 3, 5), mode="area")),
]
for name, x, kwargs in cases:
    check(name, F.interpolate(x.to(d), **kwargs), F.interpolate(x, **kwargs))
    xd = x.to(d).requires_grad_()
    F.interpolate(xd, **kwargs).square().sum().backward()
    xc = x.clone().requires_grad_()
    F.interpolate(xc, **kwargs).square().sum().backward()
    check(name + " backward", xd.grad, xc.grad, rtol=1e-4, atol=1e-4)
x = r(2, 3, 9, 8, 7)
check("adaptive_avg_pool3d", F.adaptive_avg_pool3d(x.to(d), (4, 3, 5)), F.adaptive_avg_pool3d(x, (4, 3, 5)))
check("adaptive_avg_pool3d empty batch", F.adaptive_avg_pool3d(x[:0].to(d), 2), F.adaptive_avg_pool3d(x[:0], 2))
""")


def test_unfold_and_fold_run_natively(runtime):
    run_ops_strictly("""
import torch.nn.functional as F
x = r(2, 3, 9, 10)
for geometry in (dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))):
    check(f"unfold {geometry}", F.unfold(x.to(d), **geometry), F.unfold(x, **geometry))
    check(f"unfold unbatched {geometry}", F.unfold(x[0].to(d), **geometry), F.unfold(x[0], **geometry))
    assert torch.equal(F.unfold((x > 0).to(d), **geometry).cpu(), F.unfold(x > 0, **geometry))
""")


def test_binary_cross_entropy_runs_natively(runtime):
    # binary_cross_entropy_ops.cpp: the CPU kernel's formulas from native elementwise ops and reductions.
    run_ops_strictly("""
import torch.nn.functional as F
x = torch.rand(6, 7, generator=g) * 0.98 + 0.01
x[0, 0], x[0, 1] = 0.0, 1.0  # log clamped at -100
y = torch.rand(6, 7, generator=g)
w = torch.rand(7, generator=g)
for reduction in ("mean", "sum", "none"):
    for weight in (None, w):
        kwargs = dict(weight=None if weight is None else weight.to(d), reduction=reduction)
        check(f"bce {reduction}", F.binary_cross_entropy(x.to(d), y.to(d), **kwargs),
              F.binary_cross_entropy(x, y, weight=weight, reduction=reduction), rtol=1e-5, atol=1e-4)
        xd = x.to(d).requires_grad_()
        F.binary_cross_entropy(xd, y.to(d), **kwargs).sum().backward()
        xc = x.clone().requires_grad_()
        F.binary_cross_entropy(xc, y, weight=weight, reduction=reduction).sum().backward()
        check(f"bce backward {reduction}", xd.grad, xc.grad, rtol=1e-5, atol=1e-4)
try:
    F.binary_cross_entropy((x + 1).to(d), y.to(d))
    raise AssertionError("no error for an input above 1")
except RuntimeError as e:
    assert "all elements of input should be between 0 and 1" in str(e)
""")
