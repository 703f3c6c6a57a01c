"""Distances and resamplings composed from native ops in the glue, on Intel's OpenCL CPU runtime in strict mode
against PyTorch's CPU ops, forward and backward, through test_opencl_adapter.py's harness: grid_sample forward and
grid gradient (grid_sampler_ops.cpp), cdist and pdist (distance_ops.cpp: every p and compute_mode, the CPU's gradient
conventions at zero differences, p < 1 and inf ties), antialiased bilinear interpolation
(separable_resampling_ops.cpp) and transposed convolutions whose output_padding reaches the stride
(convolution_ops.cpp)."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)

GRADIENTS = """
def both_gradients(name, fn, *xs, rtol=1e-4, atol=1e-4):
    on_device = [x.to(d).requires_grad_() for x in xs]
    on_cpu = [x.clone().requires_grad_() for x in xs]
    check(name, fn(*on_device), fn(*on_cpu), rtol=rtol, atol=atol)
    fn(*on_device).square().sum().backward()
    fn(*on_cpu).square().sum().backward()
    for i, (a, b) in enumerate(zip(on_device, on_cpu)):
        check(f"{name} grad {i}", a.grad, b.grad, rtol=rtol, atol=atol)
"""


def test_cdist_every_p_and_compute_mode(runtime):
    run_ops_strictly(GRADIENTS + """
x1, x2 = r(2, 5, 4), r(2, 6, 4)
x2[0, 1] = x1[0, 2]  # a zero distance: its gradient is 0
x2[1, 0, :2] = x1[1, 0, :2]  # zero differences in some coordinates (p < 1: 0 there)
x2[1, 3] = x1[1, 3] + torch.tensor([1.0, -1.0, 0.5, 1.0])  # inf-norm ties: each gets the full gradient
for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")):
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        both_gradients(f"cdist p={p} {mode}", lambda a, b: torch.cdist(a, b, p=p, compute_mode=mode), x1, x2)
both_gradients("cdist broadcast batch", lambda a, b: torch.cdist(a, b, p=1.0), r(3, 1, 5, 4), r(2, 7, 4))
both_gradients("cdist 30 rows (the GEMM form)", lambda a, b: torch.cdist(a, b), r(30, 3), r(4, 3))
check("cdist no columns", torch.cdist(r(3, 0).to(d), r(4, 0).to(d)), torch.cdist(r(3, 0), r(4, 0)))
check("cdist no rows", torch.cdist(r(0, 2).to(d), r(4, 2).to(d)), torch.cdist(r(0, 2), r(4, 2)))
""")


def test_pdist_every_p(runtime):
    run_ops_strictly(GRADIENTS + """
x = r(6, 3)
x[4] = x[1]  # a zero distance
x[5, 0] = x[2, 0]
for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")):
    both_gradients(f"pdist p={p}", lambda a: F.pdist(a, p=p), x)
check("pdist one row", F.pdist(r(1, 3).to(d)), F.pdist(r(1, 3)))
""")


def test_antialiased_bilinear_interpolation(runtime):
    run_ops_strictly(GRADIENTS + """
cases = [(r(2, 3, 17, 13), dict(size=(5, 6))),          # downsampling: the triangle widened
         (r(1, 2, 4, 5), dict(size=(9, 7))),            # upsampling: plain bilinear weights
         (r(1, 2, 11, 9), dict(scale_factor=(0.3, 0.6))),
         (r(1, 1, 12, 10), dict(size=(4, 4), align_corners=True))]
for x, kwargs in cases:
    both_gradients(f"bilinear antialias {kwargs}",
                   lambda u: F.interpolate(u, mode="bilinear", antialias=True, **kwargs), x)
""")


def test_transposed_convolution_with_output_padding_past_the_stride(runtime):
    run_ops_strictly(GRADIENTS + """
# output_padding 3 >= stride 2 (allowed below the dilation 4): zero input rows complete the kernel's geometry
x, w, b = r(2, 2, 4, 4), r(2, 2, 4, 5), r(4)
geometry = dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=(4, 4))
both_gradients("conv_transpose2d", lambda u, v, c: F.conv_transpose2d(u, v, c, **geometry), x, w, b)
both_gradients("conv_transpose1d", lambda u, v: F.conv_transpose1d(u, v, stride=1, output_padding=1, dilation=2),
               r(2, 3, 5), r(3, 2, 3))
""")


def test_grid_sample_forward_and_grid_gradient(runtime):
    # grid_sampler_ops.cpp. The input's gradient is a scatter-add (atomics, which this runtime lacks): here the
    # grid alone requires grad; tests/gpu/test_native_distance_and_sampling.py checks both.
    run_ops_strictly("""
x2, g2 = r(2, 3, 5, 7), torch.rand(2, 4, 6, 2, generator=g) * 2.4 - 1.2  # some points outside [-1, 1]
x3, g3 = r(2, 3, 4, 5, 6), torch.rand(2, 3, 2, 4, 3, generator=g) * 2.4 - 1.2
g2[0, 0, 0] = torch.tensor([1.0, -1.0])  # corners: the border counts as clipped in the gradient
for mode in ("bilinear", "nearest", "bicubic"):
    for padding in ("zeros", "border", "reflection"):
        for align in (False, True):
            kwargs = dict(mode=mode, padding_mode=padding, align_corners=align)
            cases = [(x2, g2)] + ([(x3, g3)] if mode != "bicubic" else [])
            for x, grid in cases:
                name = f"grid_sample {x.dim()}-D {kwargs}"
                check(name, F.grid_sample(x.to(d), grid.to(d), **kwargs), F.grid_sample(x, grid, **kwargs))
                gd, gc = grid.to(d).requires_grad_(), grid.clone().requires_grad_()
                F.grid_sample(x.to(d), gd, **kwargs).square().sum().backward()
                F.grid_sample(x, gc, **kwargs).square().sum().backward()
                check(name + " grid grad", gd.grad, gc.grad, rtol=1e-4, atol=1e-4)
""")
