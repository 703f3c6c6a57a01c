"""Convolutions and the CPU kernels that take scratch memory through Allocator::raw_allocate (oneDNN's
convolutions and bfloat16 matmuls), on the host device.

ATen sends convolutions of a PrivateUse1 device to convolution_overrideable, which has no CPU kernel, so
nn.Conv2d used to raise NotImplementedError on hal; and a oneDNN kernel's scratch allocation inside an
output-capture scope used to fail an internal assert of PyTorch's Allocator::raw_allocate. Both paths run
here against the same ops on CPU tensors: in place on host-accessible memory (this process), and through
the counted copy fallback (a subprocess with host access switched off).
"""
import pytest
import torch

from conftest import run_python

HAL = torch.device("hal:0")

CONVOLUTIONS = {
    "conv2d": (lambda: torch.nn.Conv2d(3, 8, 3, padding=1), (2, 3, 9, 9)),
    "conv2d_grouped_strided": (lambda: torch.nn.Conv2d(4, 8, 3, stride=2, groups=2, bias=False), (2, 4, 10, 10)),
    "conv1d_dilated": (lambda: torch.nn.Conv1d(3, 5, 4, dilation=2), (2, 3, 20)),
    "conv_transpose2d": (lambda: torch.nn.ConvTranspose2d(4, 3, 3, stride=2, output_padding=1), (1, 4, 5, 5)),
    "conv3d": (lambda: torch.nn.Conv3d(2, 3, 2), (1, 2, 4, 4, 4)),
}


def forward_and_backward(make_module, shape, device):
    """Output, input gradient and weight gradient of one module, built from seed 0, on `device`."""
    torch.manual_seed(0)
    module = make_module().to(device)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1)).to(device).requires_grad_()
    y = module(x)
    y.square().sum().backward()
    return y, x.grad, module.weight.grad


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_convolution_matches_cpu_in_place_on_host_memory(name):
    make, shape = CONVOLUTIONS[name]
    torch.hal.reset_fallback_stats()
    hal = forward_and_backward(make, shape, HAL)
    cpu = forward_and_backward(make, shape, torch.device("cpu"))
    for got, want in zip(hal, cpu):
        assert got.device == HAL
        torch.testing.assert_close(got.cpu(), want)
    assert not torch.hal.fallback_stats(), "host-accessible memory runs CPU kernels in place, uncounted"


@pytest.mark.parametrize("n", [64, 128, 257])
def test_bfloat16_matmul_of_onednn_sizes(n):
    g = torch.Generator().manual_seed(n)
    a = torch.randn(n, n, generator=g).bfloat16()
    b = torch.randn(n, n, generator=g).bfloat16()
    torch.testing.assert_close((a.to(HAL) @ b.to(HAL)).cpu(), a @ b, rtol=0, atol=0)


def test_onednn_scratch_memory_is_returned():
    """Scratch memory a oneDNN kernel allocates and frees by raw pointer goes back to the hal allocator."""
    a = torch.randn(128, 128).bfloat16().to(HAL)
    for _ in range(3):  # warm: the allocator's cache and oneDNN's primitive cache
        (a @ a).sum().item()
    torch.hal.synchronize()
    before = torch.hal.memory_allocated(HAL)
    for _ in range(20):
        r = a @ a
        del r
    torch.hal.synchronize()
    assert torch.hal.memory_allocated(HAL) == before


COUNTED = r"""
import torch, torch_hal
assert not torch.hal.get_device_properties(0).host_accessible
torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 4, 3, padding=1)
x = torch.randn(2, 3, 8, 8, requires_grad=True)
hal_conv = torch.nn.Conv2d(3, 4, 3, padding=1).to('hal:0')
hal_conv.load_state_dict(conv.state_dict())
hx = x.detach().to('hal:0').requires_grad_()
conv(x).square().sum().backward()
hal_conv(hx).square().sum().backward()
torch.testing.assert_close(hx.grad.cpu(), x.grad)
torch.testing.assert_close(hal_conv.weight.grad.cpu(), conv.weight.grad)
stats = torch.hal.fallback_stats()
print('STATS', stats)
assert stats['aten::convolution'] == 1 and stats['aten::convolution_backward'] == 1, stats
"""


def test_convolution_takes_the_counted_fallback_without_host_access():
    out = run_python(COUNTED, TORCH_HAL_HOST_ACCESSIBLE=0)
    assert out.returncode == 0, out.stdout + out.stderr
