"""cdist / pdist (distance_ops.cpp), grid_sample (grid_sampler_ops.cpp), antialiased bilinear interpolation
(separable_resampling_ops.cpp), transposed convolutions whose output_padding reaches the stride (convolution_ops.cpp)
and the float32 special functions that follow the CPU's own float arithmetic (log_ndtr's t rounded to float, the
Hermite recurrences in float with fused multiply-adds: gaussian_functions.cuh, orthogonal_polynomials.cuh) on a GPU,
against PyTorch's CPU results in strict mode (any op reaching the CPU fallback fails), values and gradients."""
import pytest
import torch
import torch.nn.functional as F

from test_native_elementwise import make


def both_gradients(fn, *xs, device, rtol=1e-4, atol=1e-4):
    on_cpu = [x.clone().requires_grad_() for x in xs]
    with torch.hal.strict():
        on_device = [x.to(device).requires_grad_() for x in xs]
        got = fn(*on_device)
        got.square().sum().backward()
        torch.hal.synchronize(device)
    want = fn(*on_cpu)
    want.square().sum().backward()
    torch.testing.assert_close(got.detach().cpu(), want.detach(), rtol=rtol, atol=atol)
    for a, b in zip(on_device, on_cpu):
        torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cdist(gpu_device, p, mode, dtype, request):
    if p == 0.5 and dtype == torch.float32:
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "measured on the H200: p < 1 scales each difference's gradient by |d|^(p-1), which magnifies float32 "
            "rounding where d is near zero; hal and the CPU differ by 5e-4 relative in 1 of 240 elements")))
    x1, x2 = make((2, 5, 4), dtype, seed=1), make((2, 30, 4), dtype, seed=2)
    x2[0, 1] = x1[0, 2]  # a zero distance
    x2[1, 0, :2] = x1[1, 0, :2]  # zero differences in some coordinates
    both_gradients(lambda a, b: torch.cdist(a, b, p=p, compute_mode=mode), x1, x2, device=gpu_device)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_pdist(gpu_device, p):
    x = make((7, 3), torch.float32, seed=3)
    x[4] = x[1]
    both_gradients(lambda a: F.pdist(a, p=p), x, device=gpu_device)


@pytest.mark.parametrize("kwargs", [dict(size=(5, 6)), dict(size=(9, 7)), dict(scale_factor=(0.3, 0.6)),
                                    dict(size=(4, 4), align_corners=True)])
def test_antialiased_bilinear(gpu_device, kwargs):
    x = make((2, 3, 17, 13), torch.float32, seed=4)
    both_gradients(lambda u: F.interpolate(u, mode="bilinear", antialias=True, **kwargs), x, device=gpu_device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_conv_transpose2d_output_padding_past_the_stride(gpu_device, dtype):
    x, w, b = make((2, 2, 4, 4), dtype, seed=5), make((2, 2, 4, 5), dtype, seed=6), make((4,), dtype, seed=7)
    geometry = dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=(4, 4))
    both_gradients(lambda u, v, c: F.conv_transpose2d(u, v, c, **geometry), x, w, b, device=gpu_device)


def test_float32_special_functions_follow_the_cpu(gpu_device):
    g = torch.Generator().manual_seed(8)
    x = torch.cat([torch.rand(5000, generator=g) * 20 - 10, torch.rand(5000, generator=g) * 8])
    with torch.hal.strict():
        got = torch.special.log_ndtr(x.to(gpu_device)).cpu()
    torch.testing.assert_close(got, torch.special.log_ndtr(x), rtol=1.3e-6, atol=1e-5)
    hx = torch.rand(10000, generator=g) * 10 - 5
    hn = torch.randint(0, 14, (10000,), generator=g).float()
    for fn in (torch.special.hermite_polynomial_he, torch.special.hermite_polynomial_h):
        with torch.hal.strict():
            got = fn(hx.to(gpu_device), hn.to(gpu_device)).cpu()
        torch.testing.assert_close(got, fn(hx, hn), rtol=1.3e-6, atol=1e-5)  # bit-equal on the host build


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("spatial", [2, 3])
def test_grid_sample_both_gradients(gpu_device, mode, padding, align, spatial):
    if mode == "bicubic" and spatial == 3:
        pytest.skip("bicubic is 2-D only")
    x = make((2, 3, 5, 7) if spatial == 2 else (2, 3, 4, 5, 6), torch.float32, seed=9)
    grid = make((2, 4, 6, 2) if spatial == 2 else (2, 3, 2, 4, 3), torch.float32, -1.2, 1.2, seed=10)
    kwargs = dict(mode=mode, padding_mode=padding, align_corners=align)
    both_gradients(lambda u, v: F.grid_sample(u, v, **kwargs), x, grid, device=gpu_device)
