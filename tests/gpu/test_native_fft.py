"""torch.fft on the kernel library's DFT (dft.cuh through dft.cu) against PyTorch's CPU transforms in strict mode:
every transform kind (c2c, r2c, c2r, Hermitian), several dims, every normalization, lengths from 1 to the longest
line the kernel takes (odd, prime, powers of two), strided and conjugated inputs, out=, and the gradients; lines
longer than the kernel takes go the CPU fallback (strict mode raises), still correct outside strict mode."""
import pytest
import torch
import torch.fft as fft

from native_nn_helpers import assert_close, make


def complex_signal(shape, seed=0):
    return torch.complex(make(shape, torch.float32, seed, -1, 1), make(shape, torch.float32, seed + 1, -1, 1))


def check(actual, expected, terms):
    """A transform's result: each element sums `terms` products of size at most 1 (|x| <= sqrt(2), |w| = 1)."""
    if expected.is_complex():
        actual, expected = torch.view_as_real(actual.cpu().resolve_conj()), torch.view_as_real(expected.resolve_conj())
    assert_close(actual, expected, torch.float32, k=terms, magnitude=1.5)


def on_both(fn, *cpu_args, terms, device):
    with torch.hal.strict():
        out = fn(*[a.to(device) for a in cpu_args])
        torch.hal.synchronize(device)
    check(out, fn(*cpu_args), terms)


@pytest.mark.parametrize("n", [1, 2, 7, 13, 64, 100, 127, 1024, 4096])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_one_dimensional_transforms(gpu_device, n, norm):
    z, x = complex_signal((3, n)), make((3, n), torch.float32, 5, -1, 1)
    on_both(lambda t: fft.fft(t, norm=norm), z, terms=n, device=gpu_device)
    on_both(lambda t: fft.ifft(t, norm=norm), z, terms=n, device=gpu_device)
    on_both(lambda t: fft.rfft(t, norm=norm), x, terms=n, device=gpu_device)
    on_both(lambda t: fft.fft(t, norm=norm), x, terms=n, device=gpu_device)  # real input, two-sided
    on_both(lambda t: fft.irfft(t, n=n, norm=norm), z[:, : n // 2 + 1], terms=n, device=gpu_device)
    on_both(lambda t: fft.hfft(t, n=n, norm=norm), z[:, : n // 2 + 1], terms=n, device=gpu_device)
    on_both(lambda t: fft.ihfft(t, norm=norm), x, terms=n, device=gpu_device)


def test_several_dims_strides_padding_and_out(gpu_device):
    z, x = complex_signal((4, 6, 10)), make((4, 6, 10), torch.float32, 7, -1, 1)
    on_both(fft.fft2, z, terms=60, device=gpu_device)
    on_both(lambda t: fft.fftn(t, dim=(0, 2)), z, terms=40, device=gpu_device)
    on_both(lambda t: fft.ifftn(t, s=(5, 3, 12)), z, terms=180, device=gpu_device)
    on_both(fft.rfftn, x, terms=240, device=gpu_device)
    on_both(lambda t: fft.irfft2(t, s=(6, 9)), z, terms=54, device=gpu_device)
    on_both(lambda t: fft.fft(t.transpose(0, 2)), z, terms=4, device=gpu_device)
    on_both(lambda t: fft.fft(t[:, ::2, 1:]), z, terms=9, device=gpu_device)
    on_both(lambda t: fft.fft(t.conj()), z, terms=10, device=gpu_device)
    on_both(lambda t: fft.fft(t, out=torch.empty(0, dtype=torch.complex64, device=t.device)), z, terms=10,
            device=gpu_device)
    on_both(lambda t: fft.fftshift(fft.fft2(t)), z, terms=60, device=gpu_device)


def test_stft_and_istft(gpu_device):
    signal = make((2, 4000), torch.float32, 3, -1, 1)
    window = torch.hann_window(256)
    on_both(lambda s, w: torch.stft(s, 256, hop_length=64, window=w, return_complex=True), signal, window, terms=256,
            device=gpu_device)
    spec = torch.stft(signal, 256, hop_length=64, window=window, return_complex=True)
    on_both(lambda s, w: torch.istft(s, 256, hop_length=64, window=w, length=4000), spec, window, terms=256 * 4,
            device=gpu_device)


def test_gradients(gpu_device):
    x = make((5, 24), torch.float32, 11, -1, 1)
    z = complex_signal((5, 13), 12)
    for fn, arg, terms in [(lambda t: torch.view_as_real(fft.rfft(t)).pow(2).sum(), x, 24),
                           (lambda t: fft.irfft(t, n=24).pow(3).sum(), z, 24 * 3),
                           (lambda t: torch.view_as_real(fft.fft(t, norm="ortho")).sum(), z, 13)]:
        with torch.hal.strict():
            arg_hal = arg.to(gpu_device).requires_grad_()
            (grad_hal,) = torch.autograd.grad(fn(arg_hal), arg_hal)
        arg_cpu = arg.clone().requires_grad_()
        (grad_cpu,) = torch.autograd.grad(fn(arg_cpu), arg_cpu)
        check(grad_hal, grad_cpu, terms)


def test_lines_longer_than_the_kernel_takes_use_the_fallback(gpu_device):
    z = complex_signal((20000,))
    with torch.hal.strict(), pytest.raises(RuntimeError, match="_fft_c2c"):
        fft.fft(z.to(gpu_device))
    check(fft.fft(z.to(gpu_device)), fft.fft(z), 20000)
