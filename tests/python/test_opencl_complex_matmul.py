"""complex64 matrix products composed of the kernel library's float32 GEMM over the real and imaginary parts
(csrc/torch/ops/complex_matmul.cpp: four real GEMMs, conjugate and negative views folded into their signs, complex
alpha and beta applied as ATen applies them), run on Intel's OpenCL CPU runtime in strict mode against PyTorch's
CPU ops, through test_opencl_adapter.py's harness. complex128 runs on the float64 GEMM (the SPIR-V float64 module,
kernels/float64.cl), natively, to float64's precision (in place included)."""
from test_opencl_adapter import run_on_opencl, run_ops_strictly, runtime  # noqa: F401  (runtime is a fixture)
from test_opencl_complex import COMPLEX_PRELUDE

# Sums of K products: float32 GEMMs sum in another order than the CPU's BLAS, which moves a result by a few ulps of
# its largest partial sums (a complex part is a difference of two such sums: it may cancel to near zero).
MATMUL_PRELUDE = COMPLEX_PRELUDE + """
def mc(name, got, want):
    cc(name, got, want, rtol=1e-5, atol=2e-5)
"""


def test_complex_mm_with_transposed_conjugated_and_negated_operands(runtime):
    run_ops_strictly(MATMUL_PRELUDE + """
for m, k, n in [(1, 1, 1), (17, 33, 65), (64, 16, 3), (33, 100, 1), (5, 0, 7), (0, 4, 3), (3, 4, 0)]:
    a, b = c(m, k), c(k, n)
    da, db = a.to(d), b.to(d)
    mc(f"mm {m}x{k}x{n}", da @ db, a @ b)
    mc(f"mm of transposes {m}x{k}x{n}", a.t().contiguous().to(d).t() @ b.t().contiguous().to(d).t(), a @ b)
    mc(f"conj a {m}x{k}x{n}", da.conj() @ db, a.conj() @ b)
    mc(f"conj b {m}x{k}x{n}", da @ db.conj(), a @ b.conj())
    mc(f"adjoints {m}x{k}x{n}", db.mH @ da.mH, b.mH @ a.mH)
    mc(f"negative view {m}x{k}x{n}", torch._neg_view(da) @ db, torch._neg_view(a) @ b)
    mc(f"conj negative views {m}x{k}x{n}", torch._neg_view(da.conj()) @ torch._neg_view(db).conj(),
       torch._neg_view(a.conj()) @ torch._neg_view(b).conj())
    out = torch.empty(2, dtype=torch.complex64, device=d)  # resized, as ATen resizes it
    torch.mm(da, db, out=out)
    mc(f"mm out= {m}x{k}x{n}", out, a @ b)
a, b = c(6, 9), c(9, 5)
strided = torch.empty(5, 12, dtype=torch.complex64, device=d)[:, ::2].t()  # written through a strided real view
torch.mm(a.to(d), b.to(d), out=strided)
mc("mm strided out=", strided, a @ b)
s = c(9, 9)
mc("mm of itself", s.to(d) @ s.to(d), s @ s)
mc("mm of its adjoint", s.to(d) @ s.to(d).mH, s @ s.mH)
v = c(9)
mc("mv", a.to(d) @ v.to(d), a @ v)
w = c(18)
mc("mv strided conj", a.to(d) @ w.to(d)[::2].conj(), a @ w[::2].conj())
mc("vector @ matrix", v.to(d) @ b.to(d), v @ b)
""")


def test_complex_addmm_alpha_beta_and_broadcast_self(runtime):
    run_ops_strictly(MATMUL_PRELUDE + """
a, b = c(7, 11), c(11, 5)
da, db = a.to(d), b.to(d)
for self_shape in [(7, 5), (5,), (1, 5), (7, 1), ()]:
    s = c(*self_shape)
    for beta, alpha in [(1, 1), (0.5, -2.0), (1 + 2j, 2 + 3j), (0.5j, 1), (1, 0.25 - 1j), (-1, 1j)]:
        name = f"addmm self {self_shape} beta {beta} alpha {alpha}"
        mc(name, torch.addmm(s.to(d), da, db, beta=beta, alpha=alpha), torch.addmm(s, a, b, beta=beta, alpha=alpha))
    mc(f"addmm conj self {self_shape}", torch.addmm(s.to(d).conj(), da, db, beta=2, alpha=0.5),
       torch.addmm(s.conj(), a, b, beta=2, alpha=0.5))
    mc(f"addmm conj self, complex beta {self_shape}", torch.addmm(s.to(d).conj(), da.conj(), db, beta=1 - 1j),
       torch.addmm(s.conj(), a.conj(), b, beta=1 - 1j))
nan = float("nan")
s = c(7, 5)
s[0, 0], s[1, 1] = complex(nan, 0), complex(0, nan)
for beta in (0, 0j):
    mc(f"beta {beta!r} ignores NaN in self", torch.addmm(s.to(d), da, db, beta=beta, alpha=1 + 1j),
       torch.addmm(s, a, b, beta=beta, alpha=1 + 1j))
mc("addmm k = 0", torch.addmm(s[2:].to(d), c(5, 0).to(d), c(0, 5).to(d), beta=2j),
   torch.addmm(s[2:], torch.zeros(5, 0, dtype=torch.complex64), torch.zeros(0, 5, dtype=torch.complex64), beta=2j))
for beta, alpha in [(0.25, 3), (1j, 0.5), (2, 1 - 1j)]:
    s = c(7, 5)
    x = s.to(d)
    x.addmm_(da, db, beta=beta, alpha=alpha)
    mc(f"addmm_ beta {beta} alpha {alpha}", x, torch.addmm(s, a, b, beta=beta, alpha=alpha))
    x = s.t().contiguous().to(d).t()  # a column-major self: written through a temporary
    x.addmm_(da, db, beta=beta, alpha=alpha)
    mc(f"addmm_ column-major self beta {beta} alpha {alpha}", x, torch.addmm(s, a, b, beta=beta, alpha=alpha))
sq = c(6, 6)
x = sq.to(d)
x.addmm_(x, x, beta=1j, alpha=2)  # self is also both factors
mc("addmm_ self @ self", x, torch.addmm(sq, sq, sq, beta=1j, alpha=2))
out = torch.empty(0, dtype=torch.complex64, device=d)
s = c(5)
torch.addmm(s.to(d), da, db, beta=1 + 1j, alpha=-1j, out=out)
mc("addmm out=", out, torch.addmm(s, a, b, beta=1 + 1j, alpha=-1j))
""")


def test_complex_small_batched_products_round_as_atens_loop(runtime):
    # ATen's CPU sums a bmm / baddbmm with K * M * N < 400 by a loop of rounded complex products, k after k: the
    # composition sums such products in that order, so OpInfo's samples (entries in [-9, 9], whose parts cancel
    # by several times complex64's tolerance) come out as the CPU's to the bit.
    run_ops_strictly(MATMUL_PRELUDE + """
from torch.testing import make_tensor
for shapes in [((5, 5, 5), (5, 5, 10)), ((5, 10, 5), (5, 5, 5)), ((2, 1, 399), (2, 399, 1))]:
    x, y, s = (make_tensor(shape, dtype=torch.complex64, device="cpu") for shape in (*shapes, (1,)))
    cc(f"bmm {shapes}", torch.bmm(x.to(d), y.to(d)), torch.bmm(x, y), rtol=0, atol=0)
    cc(f"bmm conj {shapes}", torch.bmm(x.to(d).conj(), torch._neg_view(y.to(d))), torch.bmm(x.conj(), torch._neg_view(y)),
       rtol=0, atol=0)
    for beta, alpha in [(1, 1), (0.2, 0.6), (1 + 2j, 2 + 3j), (0, 1.2 + 1.8j)]:
        cc(f"baddbmm {shapes} {beta} {alpha}", torch.baddbmm(s.to(d), x.to(d), y.to(d), beta=beta, alpha=alpha),
           torch.baddbmm(s, x, y, beta=beta, alpha=alpha), rtol=0, atol=0)
""")


def test_complex_batched_products_and_vectors(runtime):
    run_ops_strictly(MATMUL_PRELUDE + """
for shapes in [((3, 17, 33), (3, 33, 9)), ((2, 20, 20), (2, 20, 1))]:  # K * M * N >= 400: real GEMMs
    x, y, s = c(*shapes[0]), c(*shapes[1]), c(shapes[0][1], shapes[1][2])
    mc(f"bmm {shapes}", torch.bmm(x.to(d), y.to(d)), torch.bmm(x, y))
    mc(f"bmm adjoints {shapes}", y.to(d).mH @ x.to(d).mH, y.mH @ x.mH)
    mc(f"baddbmm {shapes}", torch.baddbmm(s.to(d), x.to(d), y.to(d).conj(), beta=1 - 2j, alpha=0.5j),
       torch.baddbmm(s, x, y.conj(), beta=1 - 2j, alpha=0.5j))
    z = s.expand_as(torch.bmm(x, y)).contiguous()
    zd = z.to(d)
    zd.baddbmm_(x.to(d), y.to(d), beta=0.5, alpha=2)
    mc(f"baddbmm_ {shapes}", zd, torch.baddbmm(z, x, y, beta=0.5, alpha=2))
x, y = c(4, 5, 6), c(4, 6, 3)
dx, dy = x.to(d), y.to(d)
mc("bmm", torch.bmm(dx, dy), torch.bmm(x, y))
mc("bmm of transposes", x.transpose(1, 2).contiguous().to(d).transpose(1, 2) @ dy.conj(),
   x @ y.conj())
mc("bmm adjoints", dy.mH @ dx.mH, y.mH @ x.mH)
mc("bmm empty batch", torch.bmm(c(0, 5, 6).to(d), c(0, 6, 3).to(d)), torch.bmm(c(0, 5, 6), c(0, 6, 3)))
mc("bmm k = 0", torch.bmm(c(4, 5, 0).to(d), c(4, 0, 3).to(d)), torch.zeros(4, 5, 3, dtype=torch.complex64))
out = torch.empty(0, dtype=torch.complex64, device=d)
torch.bmm(dx, dy, out=out)
mc("bmm out=", out, torch.bmm(x, y))
p, q = c(3, 1, 5, 6), c(4, 6, 2)
mc("matmul batch broadcast", p.to(d) @ q.to(d), p @ q)
mc("matmul batch @ matrix", dx @ y[0].to(d).conj(), x @ y[0].conj())
mc("einsum", torch.einsum("bij,bkj->bik", dx, dx.conj()), torch.einsum("bij,bkj->bik", x, x.conj()))
t = c(6, 3, 2)
mc("tensordot", torch.tensordot(dx, t.to(d), dims=([2], [0])),
   torch.tensordot(x, t, dims=([2], [0])))
for beta, alpha in [(1, 1), (0.6, 0.2), (1 + 2j, 2 + 3j), (0, 1j)]:
    s = c(4, 5, 3)
    mc(f"baddbmm {beta} {alpha}", torch.baddbmm(s.to(d), dx, dy, beta=beta, alpha=alpha),
       torch.baddbmm(s, x, y, beta=beta, alpha=alpha))
    mc(f"baddbmm broadcast self {beta} {alpha}", torch.baddbmm(s[0, 0].to(d), dx, dy, beta=beta, alpha=alpha),
       torch.baddbmm(s[0, 0], x, y, beta=beta, alpha=alpha))
    z = s.to(d)
    z.baddbmm_(dx, dy.conj(), beta=beta, alpha=alpha)
    mc(f"baddbmm_ {beta} {alpha}", z, torch.baddbmm(s, x, y.conj(), beta=beta, alpha=alpha))
    s = c(5, 3)
    mc(f"addbmm {beta} {alpha}", torch.addbmm(s.to(d), dx, dy, beta=beta, alpha=alpha),
       torch.addbmm(s, x, y, beta=beta, alpha=alpha))
    z = s.to(d)
    z.addbmm_(dx.conj(), dy, beta=beta, alpha=alpha)
    mc(f"addbmm_ {beta} {alpha}", z, torch.addbmm(s, x.conj(), y, beta=beta, alpha=alpha))
    out = torch.empty(0, dtype=torch.complex64, device=d)
    torch.addbmm(s[0].to(d), dx, dy, beta=beta, alpha=alpha, out=out)
    mc(f"addbmm out= {beta} {alpha}", out, torch.addbmm(s[0], x, y, beta=beta, alpha=alpha))
    m, v, s = c(7, 9), c(9), c(7)
    mc(f"addmv {beta} {alpha}", torch.addmv(s.to(d), m.to(d), v.to(d), beta=beta, alpha=alpha),
       torch.addmv(s, m, v, beta=beta, alpha=alpha))
    mc(f"addmv scalar self {beta} {alpha}", torch.addmv(s[0].to(d), m.to(d).mH[:7, :7], v[:7].to(d), beta=beta,
       alpha=alpha), torch.addmv(s[0], m.mH[:7, :7], v[:7], beta=beta, alpha=alpha))
    z = s.to(d)
    z.addmv_(m.to(d), v.to(d).conj(), beta=beta, alpha=alpha)
    mc(f"addmv_ {beta} {alpha}", z, torch.addmv(s, m, v.conj(), beta=beta, alpha=alpha))
    out = torch.empty(0, dtype=torch.complex64, device=d)
    torch.addmv(s.to(d), m.to(d), v.to(d), beta=beta, alpha=alpha, out=out)
    mc(f"addmv out= {beta} {alpha}", out, torch.addmv(s, m, v, beta=beta, alpha=alpha))
s = c(5, 3)
mc("addbmm no batches", torch.addbmm(s.to(d), c(0, 5, 6).to(d), c(0, 6, 3).to(d), beta=2j),
   torch.addbmm(s, c(0, 5, 6), c(0, 6, 3), beta=2j))
""")


def test_complex128_products_run_natively_on_the_float64_gemm(runtime):
    # The four real GEMMs of each complex128 product run on the float64 module's GEMM, with no fallback.
    out = run_on_opencl("""
import torch, torch_hal
d = "hal:0"
g = torch.Generator().manual_seed(0)
def c(*shape):
    return torch.randn(shape, dtype=torch.complex128, generator=g)
a, b, s = c(5, 7), c(7, 3), c(5, 3)
torch.hal.reset_fallback_stats()
pairs = {"mm": (a.to(d) @ b.to(d), a @ b), "mm conj": (a.to(d).conj() @ b.to(d), a.conj() @ b),
         "addmm": (torch.addmm(s.to(d), a.to(d), b.to(d), beta=1j, alpha=2), torch.addmm(s, a, b, beta=1j, alpha=2))}
x = s.to(d)
x.addmm_(a.to(d), b.to(d), beta=0.5 + 1j, alpha=1 - 1j)
pairs["addmm_"] = (x, torch.addmm(s, a, b, beta=0.5 + 1j, alpha=1 - 1j))
p, q, t = c(3, 4, 5), c(3, 5, 2), c(3, 4, 2)  # small batches: summed in ATen's loop order
pairs["bmm"] = (p.to(d) @ q.to(d).conj(), p @ q.conj())
x = t.to(d)
x.baddbmm_(p.to(d), q.to(d), beta=2j, alpha=0.5)
pairs["baddbmm_"] = (x, torch.baddbmm(t, p, q, beta=2j, alpha=0.5))
for name, (got, want) in pairs.items():
    torch.testing.assert_close(got.cpu(), want, rtol=1e-12, atol=1e-12, msg=name)
print("fallbacks", sum(torch.hal.fallback_stats().values()) > 0)
""")
    assert "fallbacks False" in out, out
