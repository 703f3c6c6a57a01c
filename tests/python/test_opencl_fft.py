"""torch.fft on the kernel library's DFT (adapter_ops.def: DFT; one source for CUDA, HIP and SPIR-V: dft.cuh), run
on Intel's OpenCL CPU runtime in strict mode against PyTorch's CPU transforms, through test_opencl_adapter.py's
harness: complex and real transforms, their inverses, several dims, every normalization, odd and prime lengths,
padding and trimming (n=), non-contiguous and conjugated inputs, and the gradients autograd takes through them."""
from test_opencl_adapter import run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)


def test_fft_family_runs_natively(runtime):
    run_ops_strictly("""
import torch.fft as fft
def tol(n):  # float32: a few ulps, plus the rounding of a sum of n terms of magnitude about 1
    return dict(rtol=4e-6, atol=2e-6 * n)
z = torch.complex(r(3, 13, 8), r(3, 13, 8))
x = r(4, 10, 7)
for norm in (None, "ortho", "forward"):
    check(f"fft {norm}", fft.fft(z.to(d), norm=norm), fft.fft(z, norm=norm), **tol(13 * 8))
    check(f"ifft {norm}", fft.ifft(z.to(d), dim=1, norm=norm), fft.ifft(z, dim=1, norm=norm), **tol(13))
    check(f"fftn {norm}", fft.fftn(z.to(d), norm=norm), fft.fftn(z, norm=norm), **tol(3 * 13 * 8))
    check(f"rfft {norm}", fft.rfft(x.to(d), norm=norm), fft.rfft(x, norm=norm), **tol(7))
    check(f"irfft {norm}", fft.irfft(z.to(d), norm=norm), fft.irfft(z, norm=norm), **tol(14))
    check(f"rfft2 {norm}", fft.rfft2(x.to(d), norm=norm), fft.rfft2(x, norm=norm), **tol(70))
    check(f"irfftn {norm}", fft.irfftn(z.to(d), s=(5, 9), norm=norm), fft.irfftn(z, s=(5, 9), norm=norm), **tol(45))
    check(f"hfft {norm}", fft.hfft(z.to(d), n=11, norm=norm), fft.hfft(z, n=11, norm=norm), **tol(11))
    check(f"ihfft {norm}", fft.ihfft(x.to(d), norm=norm), fft.ihfft(x, norm=norm), **tol(7))
check("fft of a real signal", fft.fft(x.to(d)), fft.fft(x), **tol(7))
check("fft n= pads", fft.fft(z.to(d), n=17), fft.fft(z, n=17), **tol(17))
check("fft n= trims", fft.fft(z.to(d), n=5, dim=0), fft.fft(z, n=5, dim=0), **tol(5))
check("fft of a transposed view", fft.fft(z.to(d).transpose(0, 2)), fft.fft(z.transpose(0, 2)), **tol(3))
check("fft of a conjugate", fft.fft(z.to(d).conj()), fft.fft(z.conj()), **tol(8))
check("fft out=", fft.fft(z.to(d), out=torch.empty(0, dtype=z.dtype, device=d)), fft.fft(z), **tol(8))
check("fftshift of fft2", fft.fftshift(fft.fft2(z.to(d))), fft.fftshift(fft.fft2(z)), **tol(104))
xd, xc = x.to(d).requires_grad_(), x.clone().requires_grad_()
yd, yc = torch.view_as_real(fft.rfft(xd)).pow(2).sum(), torch.view_as_real(fft.rfft(xc)).pow(2).sum()
(gd,), (gc,) = torch.autograd.grad(yd, xd), torch.autograd.grad(yc, xc)
check("rfft backward", gd, gc, **tol(7))
zd, zc = z.to(d).requires_grad_(), z.clone().requires_grad_()
yd, yc = fft.irfft(zd, n=16).pow(2).sum(), fft.irfft(zc, n=16).pow(2).sum()
(gd,), (gc,) = torch.autograd.grad(yd, zd), torch.autograd.grad(yc, zc)
check("irfft backward", gd, gc, **tol(16 * 8))
""")
