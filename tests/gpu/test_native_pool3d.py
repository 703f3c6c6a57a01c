"""F.max_pool3d (with indices) and F.avg_pool3d and their gradients on a GPU (pool3d_ops.cpp: windows of the
padded input as a strided view, reductions, scatter_add / index_add back), against PyTorch's CPU results in strict
mode (any op reaching the CPU fallback fails): kernel, stride, padding, dilation, ceil_mode, count_include_pad,
divisor_override, ties and -inf at the padding, batched and unbatched."""
import pytest
import torch
import torch.nn.functional as F

from test_native_elementwise import check, make, run_both

MAX_GEOMETRIES = [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0)),
                  dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True)]
AVG_GEOMETRIES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                  dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                  dict(kernel_size=(2, 3, 2), padding=(1, 1, 0), divisor_override=5)]


@pytest.mark.parametrize("geometry", MAX_GEOMETRIES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64])
def test_max_pool3d_values_and_indices(gpu_device, dtype, geometry):
    x = make((2, 3, 7, 8, 9), dtype, -3, 3)
    if dtype.is_floating_point:
        x = x.round()  # ties: the first largest in the window wins, as on the CPU
        x[0, 0, 0, 0, :4] = -float("inf")  # -inf next to the padding: the index stays inside the input
    for t in (x, x[0]):
        with torch.hal.strict():
            values, indices = F.max_pool3d(t.to(gpu_device), return_indices=True, **geometry)
        want_values, want_indices = F.max_pool3d(t, return_indices=True, **geometry)
        check(values, want_values)
        assert torch.equal(indices.cpu(), want_indices)


@pytest.mark.parametrize("geometry", AVG_GEOMETRIES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_avg_pool3d_and_both_gradients(gpu_device, dtype, geometry):
    x = make((2, 3, 7, 8, 9), dtype)
    run_both(lambda u: F.avg_pool3d(u, **geometry), x, device=gpu_device)
    run_both(lambda u: F.avg_pool3d(u, **geometry), x[0], device=gpu_device)
    for fn in (lambda u: F.avg_pool3d(u, **geometry),
               lambda u: F.max_pool3d(u, kernel_size=2, stride=2, padding=1)):
        leaf = x.clone().requires_grad_()
        with torch.hal.strict():
            on_device = x.to(gpu_device).requires_grad_()
            fn(on_device).square().sum().backward()
        fn(leaf).square().sum().backward()
        torch.testing.assert_close(on_device.grad.cpu(), leaf.grad, rtol=1e-5, atol=1e-5)
