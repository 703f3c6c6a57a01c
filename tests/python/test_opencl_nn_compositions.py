"""nn ops composed from native ones, on Intel's OpenCL CPU runtime in strict mode (any CPU fallback fails) against
PyTorch's CPU ops, forward and backward, through test_opencl_adapter.py's harness: reflection padding with negative
padding and its atomic-free backward (padding_ops.cpp), avg_pool2d with a negative divisor_override
(pooling_ops.cpp), unfold_backward by slice additions (unfold_backward_ops.cpp), sgn's zero-tensor gradient
(zero_tensor_ops.cpp), _segment_reduce (segment_reduce_ops.cpp), embedding's max_norm (embedding_ops.cpp) and the
margin losses (margin_loss_ops.cpp)."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)

# Forward and the gradient of (output * weights).sum() on hal and on the CPU, compared; `fn` takes the input first.
GRAD_HELPER = """
def both(name, fn, x, *args, rtol=1e-5, atol=1e-5, **kwargs):
    def on(device):
        leaf = x.detach().clone().to(device).requires_grad_()
        moved = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
        out = fn(leaf, *moved, **kwargs)
        w = torch.linspace(-1, 2, out.numel()).reshape(out.shape).to(out.dtype)
        (out * w.to(device)).sum().abs().backward()
        return out, leaf.grad
    got, got_grad = on(d)
    want, want_grad = on("cpu")
    check(name, got, want, rtol, atol)
    check(name + " backward", got_grad, want_grad, rtol, atol)
"""


def test_reflection_and_replication_pad_crops_and_backward(runtime):
    run_ops_strictly(GRAD_HELPER + """
for shape, pad in [((1, 3, 4, 4), (-1, 1, -2, 1)), ((2, 3, 5, 6), (4, -3, 2, 3)), ((3, 5, 5), (0, 2, 0, 1)),
                   ((2, 3, 7), (3, 6)), ((1, 2, 3, 4, 5), (1, 1, 2, 2, -1, 1)), ((2, 3, 4, 4), (3, 3, 3, 3))]:
    both(f"reflect {shape} {pad}", lambda u: F.pad(u, pad, mode="reflect"), r(*shape))
for shape, pad in [((1, 3, 4, 4), (-1, 1, -2, 1)), ((2, 3, 5, 6), (7, -3, 2, 3)), ((2, 3, 7), (3, 9)),
                   ((1, 2, 3, 4, 5), (1, 1, 2, 2, -1, 1))]:
    both(f"replicate {shape} {pad}", lambda u: F.pad(u, pad, mode="replicate"), r(*shape), rtol=1e-5, atol=1e-5)
z = torch.complex(r(2, 3, 4, 4), r(2, 3, 4, 4))
check("reflect complex crop", F.pad(z.to(d), (-1, 1, -2, 1), mode="reflect"), F.pad(z, (-1, 1, -2, 1), mode="reflect"))
for mode in ("reflect", "replicate"):
    zd = z.to(d).requires_grad_()
    F.pad(zd, (2, 1, -1, 3), mode=mode).abs().sum().backward()
    zc = z.clone().requires_grad_()
    F.pad(zc, (2, 1, -1, 3), mode=mode).abs().sum().backward()
    check(f"{mode} complex backward", zd.grad, zc.grad)
""")


def test_avg_pool2d_negative_divisor(runtime):
    run_ops_strictly(GRAD_HELPER + """
for divisor in (-2, -3, 5):
    both(f"avg_pool2d divisor {divisor}", lambda u: F.avg_pool2d(u, 2, padding=1, ceil_mode=True,
                                                                   divisor_override=divisor), r(2, 3, 5, 6))
    both(f"avg_pool2d unbatched divisor {divisor}", lambda u: F.avg_pool2d(u, (3, 2), divisor_override=divisor),
         r(3, 7, 6))
""")


def test_unfold_backward_without_atomics(runtime):
    run_ops_strictly(GRAD_HELPER + """
both("unfold of a 0-dim tensor", lambda u: u.unfold(0, 1, 1), r())
for shape, dim, size, step in [((5, 5, 5), 0, 3, 1), ((5, 6, 7), 2, 3, 2), ((10,), 0, 3, 3), ((1000,), 0, 3, 11),
                               ((4, 30), 1, 20, 1), ((4, 9), 1, 1, 4), ((6, 4), 0, 6, 1), ((3, 17), -1, 5, 2)]:
    both(f"unfold {shape} {dim} {size} {step}", lambda u: u.unfold(dim, size, step), r(*shape))
""")


def test_sgn_gradient_zero_tensor(runtime):
    run_ops_strictly(GRAD_HELPER + """
both("sgn", torch.sgn, r(20, 20))
z = torch._efficientzerotensor((3, 4), device=d)
assert z._is_zerotensor() and z.device.type == "hal"
x = r(3, 4)
check("zero tensor plus", z + x.to(d), x)
check("zero tensor times", (z * x.to(d)).sin(), torch.zeros(3, 4))
""")


def test_segment_reduce(runtime):
    run_ops_strictly(GRAD_HELPER + """
data = r(5)
data2 = r(2, 6, 3)
data2[0, 1, 0] = data2[0, 2, 0]  # a tie for max / min
data2[1, 0, 2] = 0.0  # a zero for prod
data2[1, 4, 1] = data2[1, 5, 1]
cases = [(data, dict(lengths=torch.tensor([0, 1, 2, 2]), axis=0)),
         (data, dict(lengths=torch.tensor([2, 0, 3, 0]), axis=0)),
         (data, dict(offsets=torch.tensor([0, 0, 1, 3, 5]), axis=0)),
         (data2, dict(lengths=torch.tensor([[1, 3, 0, 2], [2, 2, 2, 0]]), axis=1)),
         (data2, dict(offsets=torch.tensor([[0, 1, 4, 4, 6], [0, 2, 4, 6, 6]]), axis=1)),
         (data2, dict(lengths=torch.tensor([[1, 2, 0], [2, 0, 1]]), axis=1, unsafe=True))]
for x, kw in cases:
    for reduce in ("sum", "mean", "max", "min", "prod"):
        for initial in (None, 2.0):
            extra = {k: v.to(d) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
            def on_hal(u, extra=extra, reduce=reduce, initial=initial):
                return torch._segment_reduce(u, reduce, initial=initial, **extra)
            got = on_hal(x.to(d))
            want = torch._segment_reduce(x, reduce, initial=initial, **kw)
            check(f"segment {reduce} {initial} {kw}", got, want)
            xd = x.to(d).requires_grad_()
            xc = x.clone().requires_grad_()
            on_hal(xd).sum().backward()
            torch._segment_reduce(xc, reduce, initial=initial, **kw).sum().backward()
            check(f"segment {reduce} {initial} {kw} backward", xd.grad, xc.grad)
# the CPU kernel's tie rule: only positive gradients are divided among the tied elements
x = torch.tensor([3.0, 3.0, 1.0, 3.0, 2.0, 2.0])
for sign in (1.0, -1.0):
    grad = torch.tensor([6.0 * sign, 4.0])
    xd = x.to(d).requires_grad_()
    torch._segment_reduce(xd, "max", lengths=torch.tensor([4, 2]).to(d)).backward(grad.to(d))
    xc = x.clone().requires_grad_()
    torch._segment_reduce(xc, "max", lengths=torch.tensor([4, 2])).backward(grad)
    check(f"max ties {sign}", xd.grad, xc.grad)
try:
    torch._segment_reduce(data.to(d), "sum", lengths=torch.tensor([1, 1]).to(d))
    raise AssertionError("no error for lengths not summing to the size")
except RuntimeError as e:
    assert "Expected all rows of lengths along axis" in str(e)
""")


def test_embedding_max_norm(runtime):
    run_ops_strictly("""
w = r(6, 5) * 2
idx = torch.tensor([[0, 1, 1], [4, 0, 3]])
for max_norm, norm_type in [(1.0, 2.0), (1.0, 1.0), (3.0, 2.0)]:
    wd, wc = w.to(d), w.clone()
    check(f"embedding max_norm {max_norm} {norm_type}",
          F.embedding(idx.to(d), wd, max_norm=max_norm, norm_type=norm_type),
          F.embedding(idx, wc, max_norm=max_norm, norm_type=norm_type))
    check(f"renormed weight {max_norm} {norm_type}", wd, wc)
""")


def test_margin_losses(runtime):
    run_ops_strictly(GRAD_HELPER + """
y = torch.tensor([2, 0, 4, 1, 1, 3, 0])
w = torch.rand(5, generator=g) * 2
for reduction in ("none", "mean", "sum"):
    for p in (1, 2):
        for margin in (1.0, -0.5):
            for weight in (None, w):
                kwargs = dict(p=p, margin=margin, reduction=reduction)
                name = f"multi_margin {reduction} p={p} margin={margin} weight={weight is not None}"
                both(name, lambda u, t, *ws: F.multi_margin_loss(u, t, weight=ws[0] if ws else None, **kwargs),
                     r(7, 5), y, *([] if weight is None else [weight]))
    both(f"multi_margin 1-D {reduction}", lambda u, t: F.multi_margin_loss(u, t, reduction=reduction), r(5),
         torch.tensor([3]))
    both(f"multi_margin 0-D {reduction}", lambda u, t: F.multi_margin_loss(u, t, reduction=reduction), r(),
         torch.tensor(0))
    t = torch.tensor([[1, 3, -1, 0, 2], [4, 4, 0, -1, -1], [-1, 1, 2, 3, 4], [0, 1, 2, 3, 4]])
    both(f"multilabel_margin {reduction}", lambda u, t: F.multilabel_margin_loss(u, t, reduction=reduction),
         r(4, 5), t)
    both(f"multilabel_margin 1-D {reduction}", lambda u, t: F.multilabel_margin_loss(u, t, reduction=reduction),
         r(5), torch.tensor([1, 1, 0, 1, 4]))
    both(f"multilabel_margin 0-D {reduction}", lambda u, t: F.multilabel_margin_loss(u, t, reduction=reduction),
         r(), torch.tensor(0))
""")


def test_adaptive_and_fractional_max_pool(runtime):
    # max_pool_compositions_ops.cpp: values and indices exactly the CPU's (ties: the first; NaN: the last), given
    # the same random samples; gradients (gathered back, no atomics) exactly the CPU's sums.
    run_ops_strictly(GRAD_HELPER + """
for shape, out in [((2, 3, 7, 8, 9), (3, 4, 5)), ((3, 5, 6, 7), (5, 6, 7)), ((1, 1, 5, 3, 4), (7, 2, 3))]:
    x = r(*shape).round()  # ties
    x.view(-1)[5] = float("nan")
    values, indices = F.adaptive_max_pool3d(x.to(d), out, return_indices=True)
    want_values, want_indices = F.adaptive_max_pool3d(x, out, return_indices=True)
    check(f"adaptive_max_pool3d {shape} {out}", values, want_values, 0, 0)
    assert torch.equal(indices.cpu(), want_indices), shape
    both(f"adaptive_max_pool3d {shape} {out}", lambda u: F.adaptive_max_pool3d(u, out), x.nan_to_num(), rtol=0, atol=0)
for shape, k, out in [((2, 3, 9, 10), (2, 3), (4, 5)), ((3, 9, 10), 2, (5, 4)), ((1, 1, 10, 12), (3, 2), (8, 11)),
                      ((2, 3, 7, 8, 9), (2, 2, 3), (3, 4, 5)), ((3, 7, 8, 9), 2, (5, 6, 7))]:
    x = r(*shape).round()
    spatial = len(out)
    samples = torch.rand(shape[0] if len(shape) == spatial + 2 else 1, shape[-spatial - 1], spatial, generator=g)
    fn = F.fractional_max_pool2d if spatial == 2 else F.fractional_max_pool3d
    values, indices = fn(x.to(d), k, output_size=out, return_indices=True, _random_samples=samples.to(d))
    want_values, want_indices = fn(x, k, output_size=out, return_indices=True, _random_samples=samples)
    check(f"fractional {shape} {k} {out}", values, want_values, 0, 0)
    assert torch.equal(indices.cpu(), want_indices), shape
    both(f"fractional {shape} {k} {out}", lambda u, s: fn(u, k, output_size=out, _random_samples=s), x, samples,
         rtol=0, atol=0)
x = r(0, 1, 4, 5, 4)
check("fractional empty batch", F.fractional_max_pool3d(x.to(d), 2, output_size=2, _random_samples=torch.rand(0, 1, 3).to(d)),
      F.fractional_max_pool3d(x, 2, output_size=2, _random_samples=torch.rand(0, 1, 3)))
""")
