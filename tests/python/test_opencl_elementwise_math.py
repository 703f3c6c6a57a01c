"""The library's elementwise math added with issue 39's OpInfo sweep (one source for CUDA, HIP and SPIR-V:
elementwise_ops.cuh) with its autograd, and compositions of native kernels that need nothing the OpenCL adapter
lacks (the regression losses, round(decimals), linalg.cross, floor_divide, the exponential distribution), run on
Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU ops, through test_opencl_adapter.py's harness."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_new_elementwise_math_losses_and_compositions_run_natively(runtime):
    run_ops_strictly("""
x = r(64).clamp(-0.9, 0.9)
for name, fn in [("asin", torch.asin), ("atanh", torch.atanh), ("sinh", torch.sinh), ("tan", torch.tan),
                 ("lgamma", torch.lgamma), ("digamma", torch.digamma), ("erfc", torch.erfc), ("sinc", torch.sinc),
                 ("logit", lambda t: torch.logit(t.abs(), 0.05)), ("mish", F.mish), ("logsigmoid", F.logsigmoid),
                 ("softplus", lambda t: F.softplus(t, 2.0, 1.0)), ("elu", F.elu), ("selu", F.selu),
                 ("softshrink", F.softshrink), ("hardshrink", F.hardshrink), ("hardtanh", F.hardtanh)]:
    xd, xc = x.to(d).requires_grad_(), x.clone().requires_grad_()
    yd, yc = fn(xd), fn(xc)
    check(name, yd, yc.detach())
    (gd,), (gc,) = torch.autograd.grad(yd.sum(), xd), torch.autograd.grad(yc.sum(), xc)
    check(name + " backward", gd, gc)
y = r(64)
for name, fn in [("logaddexp", torch.logaddexp), ("xlogy", lambda a, b: torch.xlogy(a, b.abs())),
                 ("copysign", torch.copysign), ("fmax", torch.fmax), ("hypot", torch.hypot),
                 ("floor_divide", torch.floor_divide), ("heaviside", torch.heaviside),
                 ("zeta", lambda a, b: torch.special.zeta(a.abs() + 1.5, b.abs() + 0.5))]:
    check(name, fn(x.to(d), y.to(d)), fn(x, y))
check("polygamma 2", torch.polygamma(2, x.abs().to(d) + 0.5), torch.polygamma(2, x.abs() + 0.5))
check("round 2 decimals", torch.round(y.to(d) * 100, decimals=-1), torch.round(y * 100, decimals=-1))
a, b = r(4, 3, 5), r(4, 3, 5)
check("linalg.cross", torch.linalg.cross(a.to(d), b.to(d), dim=1), torch.linalg.cross(a, b, dim=1))
for loss in (F.mse_loss, F.smooth_l1_loss, F.huber_loss, F.l1_loss):
    ad, ac = a.to(d).requires_grad_(), a.clone().requires_grad_()
    ld, lc = loss(ad, b.to(d)), loss(ac, b)
    check(loss.__name__, ld, lc.detach())
    (gd,), (gc,) = torch.autograd.grad(ld, ad), torch.autograd.grad(lc, ac)
    check(loss.__name__ + " backward", gd, gc)
e = torch.empty(1 << 16, device=d).exponential_(2.0)
assert e.min().item() >= 0 and abs(e.mean().item() - 0.5) < 0.02, "exponential_"
""")
