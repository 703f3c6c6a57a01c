"""Native GPU matrix products with a bias (addmm, nn.Linear), compared with the CPU, in strict mode so
that a fallback fails the test.

A 1-D bias broadcast over the output's rows, beta 1, float/half/bfloat16 and a contiguous output take
cuBLASLt's bias epilogue (one kernel); everything else (beta != 1, a full or scalar c, a strided bias, a
non-contiguous output, N or K of 1, float64, K == 0) takes the two-kernel path (c copied into the output,
then cuBLAS). Both must give the CPU's result; the cases below sit on both sides of that line. The
reference is computed in float64 from the same (rounded) inputs and rounded once to the dtype, as the GPU
does after accumulating in FP32.
"""
import pytest
import torch
import torch.nn.functional as F

from native_nn_helpers import assert_close, make, native  # noqa: F401  (fixtures)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# Inputs lie in [-3, 3] (`make`): an output sums K products of size <= 9 and c (<= 3), times alpha, beta <= 1.
MAGNITUDE = 9.0


def reference_addmm(bias, mat1, mat2, beta=1, alpha=1):
    """addmm in float64 on the CPU, rounded once to the inputs' dtype."""
    out = torch.addmm(bias.double(), mat1.double(), mat2.double(), beta=beta, alpha=alpha)
    return out.to(mat1.dtype)


def check(got, want, dtype, K):
    """against the float64 reference rounded to dtype: rtol a few ulps of dtype, atol the rounding error of a
    typical sum of K products (and c) of size <= 9 (native_nn_helpers.tol)."""
    assert_close(got, want, dtype=dtype, k=K + 1, magnitude=MAGNITUDE)


# (M, K, N): single row, odd sizes, one column / one inner element (two-kernel path), K == 0, sizes that
# tile unevenly, and an MLP-sized layer.
LINEAR_SHAPES = [(1, 64, 33), (7, 13, 5), (33, 17, 65), (16, 64, 48), (4, 64, 1), (6, 1, 9), (5, 0, 7), (1, 1, 1),
                 (128, 256, 96), (3, 512, 1000)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("M,K,N", LINEAR_SHAPES)
def test_linear_with_bias_matches_cpu(gpu_device, native, dtype, M, K, N):
    x, weight, bias = make((M, K), dtype), make((N, K), dtype, seed=1), make((N,), dtype, seed=2)
    with native():
        got = F.linear(x.to(gpu_device), weight.to(gpu_device), bias.to(gpu_device))
    check(got, reference_addmm(bias, x, weight.t()), dtype, K)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_on_3d_input_and_without_bias(gpu_device, native, dtype):
    x, weight, bias = make((2, 5, 24), dtype), make((40, 24), dtype, seed=1), make((40,), dtype, seed=2)
    with native():
        got = F.linear(x.to(gpu_device), weight.to(gpu_device), bias.to(gpu_device))
        got_no_bias = F.linear(x.to(gpu_device), weight.to(gpu_device))
    want = reference_addmm(bias, x.reshape(10, 24), weight.t()).reshape(2, 5, 40)
    check(got, want, dtype, 24)
    check(got_no_bias, (x.double() @ weight.double().t()).to(dtype), dtype, 24)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [1, 0.5, -2.0, 0])
@pytest.mark.parametrize("alpha", [1, 0.25, -3.0])
def test_addmm_alpha_and_beta(gpu_device, native, dtype, beta, alpha):
    # beta != 1 takes the two-kernel path; alpha is passed to either path.
    bias, mat1, mat2 = make((37,), dtype), make((12, 20), dtype, seed=1), make((20, 37), dtype, seed=2)
    with native():
        got = torch.addmm(bias.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device), beta=beta,
                          alpha=alpha)
    check(got, reference_addmm(bias, mat1, mat2, beta, alpha), dtype, 20)


def test_addmm_beta_zero_ignores_nan_in_the_bias(gpu_device, native):
    bias = torch.full((9,), float("nan"))
    mat1, mat2 = make((4, 6), torch.float32), make((6, 9), torch.float32, seed=1)
    with native():
        got = torch.addmm(bias.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device), beta=0)
    check(got, (mat1.double() @ mat2.double()).float(), torch.float32, 6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("transpose1", [False, True])
@pytest.mark.parametrize("transpose2", [False, True])
def test_addmm_transposed_operands(gpu_device, native, dtype, transpose1, transpose2):
    M, K, N = 11, 24, 19
    mat1 = make((K, M), dtype).t() if transpose1 else make((M, K), dtype)
    mat2 = make((N, K), dtype, seed=1).t() if transpose2 else make((K, N), dtype, seed=1)
    bias = make((N,), dtype, seed=2)
    with native():
        got = torch.addmm(bias.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device), alpha=0.5)
    check(got, reference_addmm(bias, mat1, mat2, alpha=0.5), dtype, K)


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_out_into_non_contiguous_outputs(gpu_device, native, dtype):
    M, K, N = 10, 16, 14
    bias, mat1, mat2 = make((N,), dtype), make((M, K), dtype, seed=1), make((K, N), dtype, seed=2)
    want = reference_addmm(bias, mat1, mat2)
    column_major = torch.empty((N, M), dtype=dtype, device=gpu_device).t()
    padded = torch.zeros((M, N + 3), dtype=dtype, device=gpu_device)
    contiguous = torch.empty((M, N), dtype=dtype, device=gpu_device)
    with native():
        for out in [column_major, padded[:, 1:N + 1], contiguous]:
            torch.addmm(bias.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device), out=out)
            check(out.cpu(), want, dtype, K)
    # The padding around the written window is untouched.
    assert torch.equal(padded[:, 0].cpu(), torch.zeros(M, dtype=dtype))
    assert torch.equal(padded[:, N + 1:].cpu(), torch.zeros(M, 2, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_with_other_shapes_of_c(gpu_device, native, dtype):
    M, K, N = 8, 12, 10
    mat1, mat2 = make((M, K), dtype, seed=1), make((K, N), dtype, seed=2)
    # (storage, view): the view is taken on the device copy too (.to() would make a strided view contiguous).
    cases = [(make((M, N), dtype, seed=3), lambda t: t),           # a full c
             (make((1, N), dtype, seed=4), lambda t: t),           # a 2-D row: a bias vector too (epilogue)
             (make((M, 1), dtype, seed=5), lambda t: t),           # broadcast over columns
             (make((), dtype, seed=6), lambda t: t),               # a scalar
             (make((2 * N,), dtype, seed=7), lambda t: t[::2])]    # a strided 1-D bias
    for storage, view in cases:
        with native():
            got = torch.addmm(view(storage.to(gpu_device)), mat1.to(gpu_device), mat2.to(gpu_device))
        check(got, reference_addmm(view(storage), mat1, mat2), dtype, K)


@pytest.mark.parametrize("dtype", DTYPES + [torch.float64])
@pytest.mark.parametrize("beta", [1, 0.5])
def test_addmm_and_baddbmm_with_a_transposed_full_c(gpu_device, native, dtype, beta):
    # A full c laid out column-major against a row-major output, or the reverse, is copied into the output
    # through shared-memory tiles; sizes that tile unevenly, on both sides of one tile (32), and a batch for
    # baddbmm.
    for M, K, N in [(70, 16, 45), (33, 8, 129), (31, 4, 64), (64, 8, 31)]:
        mat1, mat2 = make((M, K), dtype, seed=1), make((K, N), dtype, seed=2)
        c = make((N, M), dtype, seed=3)
        with native():
            got = torch.addmm(c.to(gpu_device).t(), mat1.to(gpu_device), mat2.to(gpu_device), beta=beta)
        want = torch.addmm(c.t().double(), mat1.double(), mat2.double(), beta=beta).to(dtype)
        check(got, want, dtype, K)
    # The mirror case: a column-major output (out=) and a row-major c.
    M, K, N = 70, 16, 45
    mat1, mat2, c = make((M, K), dtype, seed=7), make((K, N), dtype, seed=8), make((M, N), dtype, seed=9)
    out = torch.empty((N, M), dtype=dtype, device=gpu_device).t()
    with native():
        torch.addmm(c.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device), beta=beta, out=out)
    check(out, torch.addmm(c.double(), mat1.double(), mat2.double(), beta=beta).to(dtype), dtype, K)
    B, M, K, N = 3, 40, 12, 50
    batch1, batch2 = make((B, M, K), dtype, seed=4), make((B, K, N), dtype, seed=5)
    c = make((B, N, M), dtype, seed=6)
    with native():
        got = torch.baddbmm(c.to(gpu_device).transpose(1, 2), batch1.to(gpu_device), batch2.to(gpu_device),
                            beta=beta)
    want = torch.baddbmm(c.transpose(1, 2).double(), batch1.double(), batch2.double(), beta=beta).to(dtype)
    check(got, want, dtype, K)


@pytest.mark.parametrize("dtype", DTYPES)
def test_repeated_shape_with_other_bias_and_alignments(gpu_device, native, dtype):
    # A repeated shape reuses what cuBLASLt prepared for it: each call must still add its own bias, from
    # whatever (differently aligned) address it starts at, and write its own output.
    M, K, N = 9, 32, 24
    weight = make((N, K), dtype, seed=1)
    storages = [make((N + 8,), dtype, seed=2), make((N + 8,), dtype, seed=3)]
    on_device = [s.to(gpu_device) for s in storages]
    for step, (which, offset) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1), (0, 8), (1, 3), (0, 0)]):
        x = make((M, K), dtype, seed=10 + step)
        with native():
            got = F.linear(x.to(gpu_device), weight.to(gpu_device), on_device[which][offset:offset + N])
        check(got, reference_addmm(storages[which][offset:offset + N], x, weight.t()), dtype, K)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_backward_matches_cpu(gpu_device, native, dtype):
    x, weight, bias = make((6, 20), dtype), make((15, 20), dtype, seed=1), make((15,), dtype, seed=2)
    grad = make((6, 15), dtype, seed=3)

    def run(device, compute_dtype):
        leaves = [t.detach().to(device, compute_dtype).requires_grad_() for t in (x, weight, bias)]
        out = F.linear(*leaves)
        out.backward(grad.to(device, compute_dtype))
        return out.detach(), [leaf.grad for leaf in leaves]

    want, want_grads = run("cpu", torch.float64)
    with native():
        got, got_grads = run(gpu_device, dtype)
    check(got, want.to(dtype), dtype, 20)
    # dx sums 15 products, dweight and dbias 6 (the batch).
    for g, w, k in zip(got_grads, want_grads, (15, 6, 6)):
        check(g, w.to(dtype), dtype, k)


def test_double_addmm_with_bias(gpu_device, native):
    # float64 keeps the cuBLAS path.
    bias, mat1, mat2 = make((13,), torch.float64), make((7, 9), torch.float64, seed=1), make((9, 13), torch.float64, seed=2)
    with native():
        got = torch.addmm(bias.to(gpu_device), mat1.to(gpu_device), mat2.to(gpu_device))
    check(got, torch.addmm(bias, mat1, mat2), torch.float64, 9)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8])
def test_integer_dot_and_vdot(gpu_device, dtype):
    g = torch.Generator().manual_seed(3)
    a, b = torch.randint(-9, 9, (57,), generator=g).to(dtype), torch.randint(-9, 9, (57,), generator=g).to(dtype)
    for fn in (torch.dot, torch.vdot):
        with torch.hal.strict():
            got = fn(a.to(gpu_device), b.to(gpu_device))
        assert got.dtype == dtype and torch.equal(got.cpu(), fn(a, b))
