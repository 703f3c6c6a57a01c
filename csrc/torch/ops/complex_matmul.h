// Complex matrix products (complex64, complex128) composed from the adapter's real GEMM. The ABI has no complex
// dtype, but a complex matrix product is a real one over the (real, imaginary) pairs: with A = Ar + i Ai and
// B = Br + i Bi, A B = (Ar Br - Ai Bi) + i (Ar Bi + Ai Br): four real GEMMs of matmul_ops.cpp's gemm() over
// the parts (complex_matmul.cpp). That gemm() hands complex outputs to complex_gemm(), so its callers' shape
// checks, out= handling and batching (mm, addmm, bmm, baddbmm, addmv, addbmm) serve complex dtypes unchanged.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

namespace torch_hal::native {

// The real GEMM of matmul_ops.cpp (HAL_OP_GEMM, 2-D or batched 3-D): out = alpha * a @ b + beta * c, c
// undefined or beta == 0 meaning no c, c broadcastable to out's shape. False, with nothing written, when the
// adapter does not run it. Complex outputs go to complex_gemm().
bool gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
          const c10::Scalar& beta, const c10::Scalar& alpha);

// The same product for a complex `out` (a, b and c of its dtype, any of them conjugate or negative views; alpha
// and beta real or complex; beta == 0 ignores c, NaNs included, as ATen does). False, with nothing written to
// `out`, when it is not done here (another complex dtype, an adapter without the real dtype's kernels): the op
// then takes its other paths. Batched products with K * M * N < 400 are summed in the order of ATen's CPU loop for
// them (bmm, baddbmm), whose results a GEMM's sums can miss by more than complex64's tolerance.
bool complex_gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
                  const c10::Scalar& beta, const c10::Scalar& alpha);

}  // namespace torch_hal::native
