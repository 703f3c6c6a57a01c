"""F.unfold and F.fold (ATen's im2col and col2im, each other's backward: compositions of native views, copies and
index_add) and the separable resamplings (linear, bicubic and trilinear upsampling, 3-D adaptive average pooling:
one small matrix per spatial dimension applied with the GEMM) on a GPU, against PyTorch's CPU results in strict
mode (any op reaching the CPU fallback fails): geometries, batched and unbatched, empty batches, gradients."""
import pytest
import torch
import torch.nn.functional as F

from test_native_elementwise import make, run_both

GEOMETRIES = [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
              dict(kernel_size=3, padding=1, stride=2), dict(kernel_size=(1, 4), dilation=2, padding=2)]


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_unfold_and_fold_match_cpu(gpu_device, dtype, geometry):
    x = make((2, 3, 9, 10), dtype)
    run_both(lambda t: F.unfold(t, **geometry), x, device=gpu_device)
    run_both(lambda t: F.unfold(t, **geometry), x[0], device=gpu_device)       # unbatched
    run_both(lambda t: F.unfold(t, **geometry), x[:0], device=gpu_device)      # an empty batch
    columns = F.unfold(x, **geometry)
    run_both(lambda t: F.fold(t, (9, 10), **geometry), columns, device=gpu_device)
    run_both(lambda t: F.fold(t, (9, 10), **geometry), columns[0], device=gpu_device)


def test_unfold_of_other_dtypes_and_gradients(gpu_device):
    for dtype in (torch.bool, torch.complex64):  # (the CPU's im2col refuses integers)
        run_both(lambda t: F.unfold(t, kernel_size=2, stride=2), make((2, 3, 6, 6), torch.float32).to(dtype),
                 device=gpu_device)
    x = make((2, 3, 7, 8), torch.float32).requires_grad_()
    with torch.hal.strict():
        x_hal = x.detach().to(gpu_device).requires_grad_()
        F.unfold(x_hal, kernel_size=3, padding=1).square().sum().backward()
    F.unfold(x, kernel_size=3, padding=1).square().sum().backward()
    torch.testing.assert_close(x_hal.grad.cpu(), x.grad, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(torch.zeros(1, 1, 4, 4, device=gpu_device), kernel_size=0)


RESAMPLINGS = [((2, 3, 7), dict(size=12, mode="linear")),
               ((2, 3, 7), dict(scale_factor=1.7, mode="linear", align_corners=True)),
               ((2, 3, 5, 6), dict(size=(9, 4), mode="bicubic")),
               ((1, 2, 5, 6), dict(scale_factor=2.5, mode="bicubic", align_corners=True)),
               ((1, 2, 3, 4, 5), dict(size=(5, 3, 8), mode="trilinear")),
               ((2, 3, 6, 7, 5), dict(size=(4, 3, 5), mode="area")),
               ((0, 3, 6, 7, 5), dict(size=(4, 3, 5), mode="area"))]


@pytest.mark.parametrize("shape,kwargs", RESAMPLINGS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_separable_resampling_matches_cpu(gpu_device, dtype, shape, kwargs):
    x = make(shape, dtype)
    run_both(lambda t: F.interpolate(t, **kwargs), x, device=gpu_device)
    leaf = x.clone().requires_grad_()
    with torch.hal.strict():
        on_device = x.to(gpu_device).requires_grad_()
        F.interpolate(on_device, **kwargs).square().sum().backward()
    F.interpolate(leaf, **kwargs).square().sum().backward()
    torch.testing.assert_close(on_device.grad.cpu(), leaf.grad, rtol=1e-4, atol=1e-4)
