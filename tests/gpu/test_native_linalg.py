"""torch.linalg on a GPU through the kernel library's linalg family (csrc/torch/ops/linalg_ops.cpp over
linalg_stubs.cpp and kernels/dense_linalg.cuh), in strict mode (any op reaching the CPU fallback fails) against
PyTorch's CPU (LAPACK) results: LU and its solves, determinants, inverses, triangular solves in every form,
Cholesky and its solves and inverse, QR and its reflectors, Hermitian eigenvalues and vectors, singular values and
vectors (thin, full, wide, rank-deficient), pseudo-inverse, rank and norms, batched, real and complex, with
gradients. Decompositions unique only up to signs or phases are checked by what they promise (factors that
multiply back, orthonormal columns) besides their invariant parts. The tolerances come from the dtype's epsilon,
scaled by the matrix side, on well-conditioned matrices (diagonally dominant, or with a chosen spectrum)."""
import pytest
import torch

DTYPES = [torch.float32, torch.float64, torch.complex64]
N = 6


def tolerance(dtype, n=N):
    eps = torch.finfo(dtype).eps
    return dict(rtol=32 * n * eps, atol=32 * n * eps)


def well_conditioned(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(shape, generator=g, dtype=torch.complex128 if dtype.is_complex else torch.float64)
    n = min(shape[-2:])
    a[..., :n, :n] += 2 * n * torch.eye(n, dtype=a.dtype)
    return a.to(dtype)


def hermitian_positive(shape, dtype, seed=0):
    b = well_conditioned(shape, dtype, seed).to(torch.complex128 if dtype.is_complex else torch.float64)
    return (b @ b.mH + shape[-1] * torch.eye(shape[-1], dtype=b.dtype)).to(dtype)


def on_gpu(device, fn, *args):
    with torch.hal.strict():
        out = fn(*[a.to(device) if isinstance(a, torch.Tensor) else a for a in args])
        torch.hal.synchronize(device)
    return out


def close(actual, expected, dtype, n=N):
    actual = actual.cpu() if isinstance(actual, torch.Tensor) else actual
    torch.testing.assert_close(actual, expected, **tolerance(dtype, n))


def orthonormal_columns(q, dtype):
    q = q.cpu().to(torch.complex128 if q.is_complex() else torch.float64)
    eye = torch.eye(q.shape[-1], dtype=q.dtype).expand(q.shape[:-2] + (q.shape[-1], q.shape[-1]))
    torch.testing.assert_close(q.mH @ q, eye, **tolerance(dtype, q.shape[-2]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(N, N), (3, N, N), (2, 1, 4, 4)])
def test_solve_inverse_and_determinants(gpu_device, dtype, shape):
    a = well_conditioned(shape, dtype)
    b = well_conditioned(shape[:-1] + (3,), dtype, seed=1)
    for fn in (torch.linalg.inv, torch.linalg.det, lambda x: torch.linalg.slogdet(x)[0],
               lambda x: torch.linalg.slogdet(x)[1]):
        close(on_gpu(gpu_device, fn, a), fn(a), dtype)
    close(on_gpu(gpu_device, torch.linalg.solve, a, b), torch.linalg.solve(a, b), dtype)
    bt = b.mT
    close(on_gpu(gpu_device, lambda x, y: torch.linalg.solve(x, y, left=False), a, bt),
          torch.linalg.solve(a, bt, left=False), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_factor_pivots_and_unpack_match_lapack(gpu_device, dtype):
    for shape in [(N, N), (2, 7, 4), (2, 3, 5)]:
        a = well_conditioned(shape, dtype) * torch.linspace(1, 3, shape[-1]).to(dtype)  # distinct pivots
        lu, piv = on_gpu(gpu_device, torch.linalg.lu_factor, a)
        lu_cpu, piv_cpu = torch.linalg.lu_factor(a)
        assert torch.equal(piv.cpu(), piv_cpu)
        close(lu, lu_cpu, dtype)
        p, l, u = on_gpu(gpu_device, torch.linalg.lu, a)
        for got, want in zip((p, l, u), torch.linalg.lu(a)):
            close(got, want, dtype)
        rhs = well_conditioned(shape[:-2] + (shape[-2], 2), dtype, seed=2)
        if shape[-1] == shape[-2]:
            for adjoint in (False, True):
                close(on_gpu(gpu_device, lambda x, q, y: torch.linalg.lu_solve(x, q, y, adjoint=adjoint),
                             lu_cpu, piv_cpu, rhs),
                      torch.linalg.lu_solve(lu_cpu, piv_cpu, rhs, adjoint=adjoint), dtype)
    info = on_gpu(gpu_device, torch.linalg.lu_factor_ex, torch.zeros(3, 3, dtype=dtype))[2]
    assert info.item() == 1


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solves(gpu_device, dtype, upper, left, unit):
    a = well_conditioned((2, N, N), dtype)
    b = well_conditioned((2, N, 3) if left else (2, 3, N), dtype, seed=3)
    fn = lambda x, y: torch.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit)  # noqa: E731
    close(on_gpu(gpu_device, fn, a, b), fn(a, b), dtype)
    fn_t = lambda x, y: torch.linalg.solve_triangular(x.mH, y, upper=not upper, left=left)  # noqa: E731
    close(on_gpu(gpu_device, fn_t, a, b), fn_t(a, b), dtype)
    if left:
        for transpose in (False, True):
            old = lambda y, x: torch.triangular_solve(y, x, upper=upper, transpose=transpose,  # noqa: E731
                                                      unitriangular=unit)[0]
            close(on_gpu(gpu_device, old, b, a), old(b, a), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(gpu_device, dtype, upper):
    a = hermitian_positive((3, N, N), dtype)
    b = well_conditioned((3, N, 2), dtype, seed=4)
    factor = torch.linalg.cholesky(a, upper=upper)
    close(on_gpu(gpu_device, lambda x: torch.linalg.cholesky(x, upper=upper), a), factor, dtype)
    close(on_gpu(gpu_device, lambda x: torch.cholesky(x, upper=upper), a), factor, dtype)
    close(on_gpu(gpu_device, lambda y, f: torch.cholesky_solve(y, f, upper=upper), b, factor),
          torch.cholesky_solve(b, factor, upper=upper), dtype)
    close(on_gpu(gpu_device, lambda f: torch.cholesky_inverse(f, upper=upper), factor[0]),
          torch.cholesky_inverse(factor[0], upper=upper), dtype)
    not_positive = a.clone()
    not_positive[1, 2, 2] = -1
    info = on_gpu(gpu_device, lambda x: torch.linalg.cholesky_ex(x, upper=upper).info, not_positive)
    assert info.cpu().tolist() == torch.linalg.cholesky_ex(not_positive, upper=upper).info.tolist()
    with pytest.raises(torch.linalg.LinAlgError, match="not positive-definite"):
        on_gpu(gpu_device, torch.linalg.cholesky, not_positive)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ldl_factor_and_solve_match_lapack(gpu_device, dtype):
    """Bunch-Kaufman LDL^T on OpInfo's kind of matrix (random symmetric positive definite, often with a small
    pivot): the pivots equal LAPACK's, the factors and the solves agree with its. float32 matrices are factored in
    float32, rounded step by step as LAPACK's SSYTRF rounds them; how closely that follows LAPACK's own rounding
    (OpInfo's float32 tolerance, which float64 factors rounded once missed) is checked by the OpInfo run."""
    # OpInfo's random_symmetric_pd_matrix, made here: importing torch.testing._internal.common_utils freezes the
    # torch.backends flags for the rest of the process (disable_global_flags), which later tests set.
    n = 5
    b = torch.randn(256, n, n, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    a = (b @ b.mT + 1e-5 * torch.eye(n, dtype=torch.float64)).to(dtype)
    ld, piv = on_gpu(gpu_device, torch.linalg.ldl_factor, a)
    ld_cpu, piv_cpu = torch.linalg.ldl_factor(a)
    assert torch.equal(piv.cpu(), piv_cpu)
    close(ld.tril(), ld_cpu.tril(), dtype, n)
    b = well_conditioned((256, n, 2), dtype, seed=5)
    close(on_gpu(gpu_device, torch.linalg.ldl_solve, ld_cpu, piv_cpu, b), torch.linalg.ldl_solve(ld_cpu, piv_cpu, b),
          dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(N, N), (2, 7, 4), (2, 3, 5)])
def test_qr_and_householder(gpu_device, dtype, shape):
    a = well_conditioned(shape, dtype)
    for mode in ("reduced", "complete", "r"):
        q, r = on_gpu(gpu_device, lambda x: torch.linalg.qr(x, mode=mode), a)
        q_cpu, r_cpu = torch.linalg.qr(a, mode=mode)
        close(r, r_cpu, dtype)  # LAPACK's convention makes R unique: same reflectors, same signs
        if mode != "r":
            close(q, q_cpu, dtype)
    reflectors, tau = torch.geqrf(a)
    got = on_gpu(gpu_device, torch.geqrf, a)
    close(got[0], reflectors, dtype)
    close(got[1], tau, dtype)
    if shape[-2] >= shape[-1]:
        close(on_gpu(gpu_device, torch.linalg.householder_product, reflectors, tau),
              torch.linalg.householder_product(reflectors, tau), dtype)
    m = shape[-2]
    c = well_conditioned(shape[:-2] + (m, 3), dtype, seed=5)
    for left in (True, False):
        for transpose in (False, True):
            other = c if left else c.mT
            fn = lambda v, t, o: torch.ormqr(v, t, o, left=left, transpose=transpose)  # noqa: E731
            close(on_gpu(gpu_device, fn, reflectors, tau, other), fn(reflectors, tau, other), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_hermitian_eigen(gpu_device, dtype, uplo):
    g = torch.Generator().manual_seed(6)
    b = torch.randn(3, N, N, generator=g, dtype=torch.complex128 if dtype.is_complex else torch.float64)
    a = (b + b.mH).to(dtype)
    close(on_gpu(gpu_device, lambda x: torch.linalg.eigvalsh(x, UPLO=uplo), a), torch.linalg.eigvalsh(a, UPLO=uplo),
          dtype)
    w, v = on_gpu(gpu_device, lambda x: torch.linalg.eigh(x, UPLO=uplo), a)
    orthonormal_columns(v, dtype)
    wide = torch.complex128 if dtype.is_complex else torch.float64
    close((v.cpu().to(wide) @ torch.diag_embed(w.cpu().to(wide)).to(wide) @ v.cpu().to(wide).mH).to(dtype), a, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(N, N), (2, 7, 4), (2, 3, 5)])
def test_singular_values_and_vectors(gpu_device, dtype, shape):
    a = well_conditioned(shape, dtype)
    singular = a.clone()
    singular[..., -1] = singular[..., 0]  # rank-deficient
    wide = torch.complex128 if dtype.is_complex else torch.float64
    for x in (a, singular):
        close(on_gpu(gpu_device, torch.linalg.svdvals, x), torch.linalg.svdvals(x), dtype)
        for full in (False, True):
            u, s, vh = on_gpu(gpu_device, lambda y: torch.linalg.svd(y, full_matrices=full), x)
            u_cpu, s_cpu, vh_cpu = torch.linalg.svd(x, full_matrices=full)
            assert u.shape == u_cpu.shape and vh.shape == vh_cpu.shape
            close(s, s_cpu, dtype)
            orthonormal_columns(u, dtype)
            orthonormal_columns(vh.mH, dtype)
            k = s.shape[-1]
            back = u.cpu().to(wide)[..., :k] @ torch.diag_embed(s.cpu().to(wide)).to(wide) @ vh.cpu().to(wide)[..., :k, :]
            close(back.to(dtype), x, dtype)
    for fn in (torch.linalg.pinv, torch.linalg.matrix_rank, lambda y: torch.linalg.matrix_norm(y, "nuc"),
               lambda y: torch.linalg.matrix_norm(y, 2), lambda y: torch.linalg.cond(y)):
        close(on_gpu(gpu_device, fn, a), fn(a), dtype)
    close(on_gpu(gpu_device, torch.linalg.matrix_rank, singular), torch.linalg.matrix_rank(singular), dtype)


def test_gradients_through_solve_det_and_eigvalsh(gpu_device):
    a = well_conditioned((2, N, N), torch.float32)
    b = well_conditioned((2, N, 2), torch.float32, seed=7)
    sym = a + a.mT

    def grads(device):
        x = a.to(device).requires_grad_()
        y = b.to(device).requires_grad_()
        s = sym.to(device).requires_grad_()
        loss = (torch.linalg.solve(x, y).sum() + torch.linalg.det(x).sum() + torch.linalg.eigvalsh(s).square().sum()
                + torch.linalg.svdvals(x).sum())
        loss.backward()
        return x.grad.cpu(), y.grad.cpu(), s.grad.cpu()

    with torch.hal.strict():
        got = grads(gpu_device)
    for g, want in zip(got, grads("cpu")):
        limits = tolerance(torch.float32)
        torch.testing.assert_close(g, want, rtol=limits["rtol"], atol=limits["atol"] * want.abs().max().item())


def test_singular_inverse_raises_as_on_the_cpu(gpu_device):
    a = torch.ones(3, 3)
    with pytest.raises(torch.linalg.LinAlgError, match="singular"):
        on_gpu(gpu_device, torch.linalg.inv, a)
    assert torch.isinf(on_gpu(gpu_device, torch.linalg.slogdet, a)[1]).all()


def test_matrices_over_the_limit_keep_the_cpu_route(gpu_device):
    a = well_conditioned((80, 80), torch.float32)
    b = torch.linalg.inv(a.to(gpu_device))  # not strict: beyond 64 the CPU's LAPACK serves it
    close(b, torch.linalg.inv(a), torch.float32, n=80)
