// Matrix products through the adapter's GEMM (HAL_OP_GEMM: out = alpha * a @ b + beta * c, 2-D or
// batched 3-D). The composites (linear, matmul, mv, einsum, ...) reach these ops. Shapes and dtypes are
// checked here with ATen's messages; the adapter receives row-major views whose matrices have a unit
// stride in one of their two dims (anything else is made contiguous first). Complex products (complex64,
// complex128) are real GEMMs over view_as_real views, composed in complex_matmul.cpp.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "dispatch/output_overlap.h"
#include "ops/complex_matmul.h"

namespace torch_hal::native {
namespace {

// A matrix (or batch of matrices) that BLAS can read as it is: one of the last two strides is 1 and the
// other spans a whole row or column.
at::Tensor blas_readable(const at::Tensor& t) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  const int64_t row_stride = t.stride(-2), col_stride = t.stride(-1);
  const bool row_major = col_stride == 1 && (rows <= 1 || row_stride >= std::max<int64_t>(cols, 1));
  const bool col_major = row_stride == 1 && (cols <= 1 || col_stride >= std::max<int64_t>(rows, 1));
  return (row_major || col_major) ? t : t.contiguous();
}

void check_same_dtype(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
              a.scalar_type(), " != ", b.scalar_type());
}

}  // namespace

// out = alpha * a @ b + beta * c; c undefined or beta == 0 means no c. `out` has the result's shape.
// (complex_matmul.h declares it: the complex products are real GEMMs of this function.)
bool gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
          const c10::Scalar& beta, const c10::Scalar& alpha) {
  const c10::DeviceIndex device = out.device().index();
  if (!has_native_kernels(device)) return false;
  // The ABI has no complex dtype: complex products are composed of real GEMMs (complex_matmul.cpp).
  if (out.is_complex()) return complex_gemm(out, a, b, c, beta, alpha);
  // Complex alpha/beta with real operands: ATen's paths take them.
  if (!hal_dtype_of(out.scalar_type()).has_value() || beta.isComplex() || alpha.isComplex()) return false;
  // A lazily negated operand (_neg_view, which ATen passes to matrix products as it is): the kernel reads stored
  // values, so the host path, which applies the bit, takes it.
  if (a.is_neg() || b.is_neg() || (c.defined() && c.is_neg())) return false;
  if (out.numel() == 0) return true;
  const at::Tensor ra = blas_readable(a), rb = blas_readable(b);
  const bool use_c = c.defined() && !(beta.isIntegral(true) ? beta.toLong() == 0 : beta.toDouble() == 0.0);
  KernelArgs args;
  args.input(ra).input(rb);
  if (!use_c) {
    args.absent_input();
  } else if (c.sizes() == out.sizes()) {
    args.input(c);
  } else {
    // c broadcast to out's shape (a bias row: stride 0 down the rows), described without an expand() view;
    // a shape that cannot broadcast raises expand's own error.
    const auto geometry = at::inferExpandGeometry_dimvector(c.sizes(), c.strides(), out.sizes());
    args.input_as(c, geometry.sizes, geometry.strides);
  }
  args.output(out).scalar(alpha.toDouble()).scalar(use_c ? beta.toDouble() : 0.0);
  return launch(device, HAL_OP_GEMM, args);
}

namespace {

void check_mm(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 2, "self must be a matrix");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
              self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  check_same_dtype(self, mat2);
}

void check_bmm(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(self.size(0) == mat2.size(0), "batch1 and batch2 must have same number of batches, got ",
              self.size(0), " and ", mat2.size(0));
  TORCH_CHECK(self.size(2) == mat2.size(1), "Expected size for first two dimensions of batch2 tensor to be: [",
              self.size(0), ", ", self.size(2), "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  check_same_dtype(self, mat2);
}

std::optional<at::Tensor> mm(const at::Tensor& self, const at::Tensor& mat2) {
  check_mm(self, mat2);
  at::Tensor out = at::empty({self.size(0), mat2.size(1)}, self.options());
  if (!gemm(out, self, mat2, at::Tensor(), 0, 1)) return std::nullopt;
  return out;
}

bool mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  check_mm(self, mat2);
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.scalar_type(),
              ", but got ", out.scalar_type(), " instead");
  out.resize_({self.size(0), mat2.size(1)});
  return gemm(out, self, mat2, at::Tensor(), 0, 1);
}

std::optional<at::Tensor> addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_mm(mat1, mat2);
  check_same_dtype(self, mat1);
  at::Tensor out = at::empty({mat1.size(0), mat2.size(1)}, mat1.options());
  TORCH_CHECK(self.dim() <= 2, "addmm: self must be broadcastable to the product, but has ", self.dim(), " dims");
  if (!gemm(out, mat1, mat2, self, beta, alpha)) return std::nullopt;
  return out;
}

bool addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
               const c10::Scalar& alpha, at::Tensor& out) {
  check_mm(mat1, mat2);
  check_same_dtype(self, mat1);
  out.resize_({mat1.size(0), mat2.size(1)});
  return gemm(out, mat1, mat2, self, beta, alpha);
}

bool addmm_inplace(at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                   const c10::Scalar& alpha) {
  check_mm(mat1, mat2);
  check_same_dtype(self, mat1);
  TORCH_CHECK(self.size(0) == mat1.size(0) && self.size(1) == mat2.size(1), "addmm_: self has the wrong shape");
  return gemm(self, mat1, mat2, self, beta, alpha);
}

std::optional<at::Tensor> bmm(const at::Tensor& self, const at::Tensor& mat2) {
  check_bmm(self, mat2);
  at::Tensor out = at::empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  if (!gemm(out, self, mat2, at::Tensor(), 0, 1)) return std::nullopt;
  return out;
}

bool bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  check_bmm(self, mat2);
  out.resize_({self.size(0), self.size(1), mat2.size(2)});
  return gemm(out, self, mat2, at::Tensor(), 0, 1);
}

std::optional<at::Tensor> baddbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                                  const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_bmm(batch1, batch2);
  check_same_dtype(self, batch1);
  at::Tensor out = at::empty({batch1.size(0), batch1.size(1), batch2.size(2)}, batch1.options());
  if (!gemm(out, batch1, batch2, self, beta, alpha)) return std::nullopt;
  return out;
}

bool baddbmm_inplace(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const c10::Scalar& beta,
                     const c10::Scalar& alpha) {
  check_bmm(batch1, batch2);
  check_same_dtype(self, batch1);
  return gemm(self, batch1, batch2, self, beta, alpha);
}

// Vectors as one-column matrices: [K] with stride s is [K, 1] with strides (s, 1).
at::Tensor as_column(const at::Tensor& v) { return v.as_strided({v.size(0), 1}, {v.stride(0), 1}, v.storage_offset()); }

void check_addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec) {
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ",
              mat.dim(), ", ", vec.dim());
  TORCH_CHECK(mat.size(1) == vec.size(0), "size mismatch, got input (", self.numel(), "), mat (", mat.size(0), "x",
              mat.size(1), "), vec (", vec.size(0), ")");
  check_same_dtype(mat, vec);
}

// out = beta * self + alpha * mat @ vec, with out, self and vec as one-column matrices. out may be self
// (addmv_, and mv, which ATen runs as addmv_ into its result).
bool addmv_into(const at::Tensor& out, const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                const c10::Scalar& beta, const c10::Scalar& alpha) {
  const at::Tensor c = self.dim() == 0 || (self.dim() == 1 && self.size(0) == 1 && mat.size(0) != 1)
                           ? self.reshape({1}).expand({mat.size(0)})
                           : self;
  return gemm(as_column(out), mat, as_column(vec), as_column(c), beta, alpha);
}
std::optional<at::Tensor> addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                                const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_addmv(self, mat, vec);
  at::Tensor out = at::empty({mat.size(0)}, mat.options());
  if (!addmv_into(out, self, mat, vec, beta, alpha)) return std::nullopt;
  return out;
}
bool addmv_inplace(at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const c10::Scalar& beta,
                   const c10::Scalar& alpha) {
  check_addmv(self, mat, vec);
  TORCH_CHECK(self.dim() == 1 && self.size(0) == mat.size(0), "addmv_: self has the wrong shape");
  check_same_dtype(self, mat);
  return addmv_into(self, self, mat, vec, beta, alpha);
}
bool addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec, const c10::Scalar& beta,
               const c10::Scalar& alpha, at::Tensor& out) {
  check_addmv(self, mat, vec);
  check_same_dtype(out, mat);
  if (!out.is_same(self) && output_overlap(out, self) != at::MemOverlapStatus::No) return false;
  out.resize_({mat.size(0)});
  return addmv_into(out, self, mat, vec, beta, alpha);
}

// addbmm: beta self + alpha sum over b of batch1[b] @ batch2[b], batch after batch into the result as ATen
// computes it (one GEMM per batch, beta applied by the first), so the sums round as the CPU's and cuda's do.
bool addbmm_into(const at::Tensor& out, const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                 const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_bmm(batch1, batch2);
  check_same_dtype(self, batch1);
  const int64_t n = batch1.size(1), p = batch2.size(2);
  const at::Tensor c = self.dim() == 2 && self.size(0) == n && self.size(1) == p ? self : self.expand({n, p});
  if (batch1.size(0) == 0) {  // no product: beta self (0 where beta is 0, whatever self holds)
    if (beta.toComplexDouble() == 0.0) {
      out.zero_();
    } else {
      out.copy_(c).mul_(beta);
    }
    return true;
  }
  // Every batch has the first one's dtype and layout, so a GEMM the adapter refuses is refused at the first, before
  // anything is written.
  at::Tensor accumulated = c;
  c10::Scalar first_beta = beta;
  for (int64_t b = 0; b < batch1.size(0); ++b) {
    if (!gemm(out, batch1[b], batch2[b], accumulated, first_beta, alpha)) return false;
    accumulated = out;
    first_beta = 1;
  }
  return true;
}
std::optional<at::Tensor> addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                                 const c10::Scalar& beta, const c10::Scalar& alpha) {
  at::Tensor out = at::empty({batch1.dim() == 3 ? batch1.size(1) : 0, batch2.dim() == 3 ? batch2.size(2) : 0},
                             batch1.options());
  if (!addbmm_into(out, self, batch1, batch2, beta, alpha)) return std::nullopt;
  return out;
}
bool addbmm_inplace(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const c10::Scalar& beta,
                    const c10::Scalar& alpha) {
  TORCH_CHECK(self.dim() == 2, "addbmm_: self must be a matrix");
  return addbmm_into(self, self, batch1, batch2, beta, alpha);
}
bool addbmm_out(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const c10::Scalar& beta,
                const c10::Scalar& alpha, at::Tensor& out) {
  check_bmm(batch1, batch2);
  check_same_dtype(out, batch1);
  if (!out.is_same(self) && output_overlap(out, self) != at::MemOverlapStatus::No) return false;
  out.resize_({batch1.size(1), batch2.size(2)});
  return addbmm_into(out, self, batch1, batch2, beta, alpha);
}

void check_dot_operands(const at::Tensor& self, const at::Tensor& tensor, const char* name) {
  TORCH_CHECK(self.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              tensor.dim(), "D tensors");
  TORCH_CHECK(self.size(0) == tensor.size(0), "inconsistent tensor size, expected tensor [", self.size(0),
              "] and src [", tensor.size(0), "] to have the same number of elements, but got ", self.size(0), " and ",
              tensor.size(0), " elements respectively");
  TORCH_CHECK(self.scalar_type() == tensor.scalar_type(), name, " : expected both vectors to have same dtype, but found ",
              self.scalar_type(), " and ", tensor.scalar_type());
}

// The dot product of dtypes the GEMM does not take (integers, complex): the sum of the products, in the dtype.
std::optional<at::Tensor> dot_by_products(const at::Tensor& self, const at::Tensor& tensor) {
  if (self.scalar_type() == at::kBool) return std::nullopt;  // ATen's error
  return self.mul(tensor).sum(self.scalar_type());
}

std::optional<at::Tensor> native_dot(const at::Tensor& self, const at::Tensor& tensor) {
  check_dot_operands(self, tensor, "dot");
  if (self.size(0) == 0) return std::nullopt;  // an empty dot is 0: the fallback says so without a kernel
  if (!at::isFloatingType(self.scalar_type())) return dot_by_products(self, tensor);
  at::Tensor out = at::empty({}, self.options());
  const at::Tensor row = self.as_strided({1, self.size(0)}, {self.size(0) * std::max<int64_t>(self.stride(0), 1), self.stride(0)},
                                         self.storage_offset());
  const at::Tensor out_matrix = out.as_strided({1, 1}, {1, 1});
  if (!gemm(out_matrix, row, as_column(tensor), at::Tensor(), 0, 1)) return std::nullopt;
  return out;
}

// vdot: the first vector conjugated; for real dtypes, dot.
std::optional<at::Tensor> native_vdot(const at::Tensor& self, const at::Tensor& other) {
  check_dot_operands(self, other, "vdot");
  // Empty vectors: the empty sum, 0 (linalg.vecdot of empty rows calls vdot so).
  if (self.size(0) == 0 && self.scalar_type() != at::kBool) return at::zeros({}, self.options());
  if (!self.is_complex()) return native_dot(self, other);
  return dot_by_products(self.conj_physical(), other);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, mm, "mm", launches(HAL_OP_GEMM), mm);
  HAL_NATIVE(m, mm_out, "mm.out", launches(HAL_OP_GEMM), mm_out);
  HAL_NATIVE(m, addmm, "addmm", launches(HAL_OP_GEMM), addmm);
  HAL_NATIVE(m, addmm_out, "addmm.out", launches(HAL_OP_GEMM), addmm_out);
  HAL_NATIVE(m, addmm_, "addmm_", launches(HAL_OP_GEMM), addmm_inplace);
  HAL_NATIVE(m, bmm, "bmm", launches(HAL_OP_GEMM), bmm);
  HAL_NATIVE(m, bmm_out, "bmm.out", launches(HAL_OP_GEMM), bmm_out);
  HAL_NATIVE(m, baddbmm, "baddbmm", launches(HAL_OP_GEMM), baddbmm);
  HAL_NATIVE(m, baddbmm_, "baddbmm_", launches(HAL_OP_GEMM), baddbmm_inplace);
  HAL_NATIVE(m, addmv, "addmv", launches(HAL_OP_GEMM), addmv);
  HAL_NATIVE(m, addmv_, "addmv_", launches(HAL_OP_GEMM), addmv_inplace);
  HAL_NATIVE(m, addmv_out, "addmv.out", launches(HAL_OP_GEMM), addmv_out);
  HAL_NATIVE(m, dot, "dot", launches(HAL_OP_GEMM), native_dot);
  HAL_NATIVE(m, vdot, "vdot", launches(HAL_OP_GEMM), native_vdot);
  HAL_NATIVE(m, addbmm, "addbmm", launches(HAL_OP_GEMM), addbmm);
  HAL_NATIVE(m, addbmm_, "addbmm_", launches(HAL_OP_GEMM), addbmm_inplace);
  HAL_NATIVE(m, addbmm_out, "addbmm.out", launches(HAL_OP_GEMM), addbmm_out);
}

}  // namespace
}  // namespace torch_hal::native
