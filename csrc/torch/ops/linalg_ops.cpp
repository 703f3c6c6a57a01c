// torch.linalg's factorizations and solvers registered for hal (see linalg_kernels.h): ATen's structured kernels
// (meta computes the outputs' shapes and LAPACK layouts, impl runs the device-generic algorithm over the
// DispatchStubs of linalg_stubs.cpp), and the plain ATen kernels of the ops that are not structured. Everything
// built on them (solve, inv, det, slogdet, lstsq-free pinv, matrix_rank, norms, cond, qr, svdvals, eigvalsh,
// cholesky_solve, ...) follows through ATen's composite ops. A matrix the adapter cannot take (no linalg family,
// a side over the limit, a dtype other than float, double and their complex types) keeps the CPU route.
#include <ATen/native/Resize.h>
#include <ATen/ops/_linalg_det_native.h>
#include <ATen/ops/_linalg_eigh_native.h>
#include <ATen/ops/_linalg_slogdet_native.h>
#include <ATen/ops/_linalg_solve_ex_native.h>
#include <ATen/ops/_linalg_svd_native.h>
#include <ATen/ops/cholesky_inverse_native.h>
#include <ATen/ops/cholesky_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/geqrf_native.h>
#include <ATen/ops/linalg_cholesky_ex_native.h>
#include <ATen/ops/linalg_householder_product_native.h>
#include <ATen/ops/linalg_inv_ex_native.h>
#include <ATen/ops/linalg_ldl_factor_ex_native.h>
#include <ATen/ops/linalg_ldl_solve_native.h>
#include <ATen/ops/linalg_lu_factor_ex_native.h>
#include <ATen/ops/linalg_lu_native.h>
#include <ATen/ops/linalg_lu_solve_native.h>
#include <ATen/ops/linalg_qr_native.h>
#include <ATen/ops/linalg_solve_triangular.h>
#include <ATen/ops/linalg_solve_triangular_native.h>
#include <ATen/ops/lu_unpack_native.h>
#include <ATen/ops/ormqr_native.h>
#include <ATen/ops/triangular_solve_native.h>
#include <torch/library.h>
#if __has_include(<ATen/core/Dimname.h>)
#include <ATen/core/Dimname.h>
#endif

#include <array>
#include <optional>
#include <tuple>
#include <utility>

#include "dispatch/native_first.h"
#include "ops/linalg_kernels.h"

namespace torch_hal::native {
namespace {

using at::Tensor;
using linalg::runs_natively;

// A structured kernel's functional form, as ATen generates it for CPU: outputs allocated where meta asks (with
// the strides it asks for), then impl. MetaBase's setters lost their DimnameList parameter when PyTorch removed
// named tensors (2.11 has it, 2.13 has neither): the header's presence picks the signature.
template <class Structured, size_t N>
struct Functional final : Structured {
  std::array<Tensor, N> outputs;

#if __has_include(<ATen/core/Dimname.h>)
  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                          at::DimnameList /*names*/) override {
    create(i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options,
                              at::DimnameList /*names*/) override {
    create(i, sizes, strides, options);
  }
#else
  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options) override {
    create(i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options) override {
    create(i, sizes, strides, options);
  }
#endif
  const Tensor& maybe_get_output(int64_t i) override { return outputs[i]; }

 private:
  void create(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides, at::TensorOptions options) {
    outputs[i] = strides.empty() ? at::empty(sizes, options) : at::empty_strided(sizes, strides, options);
  }
};

// An out= form from the functional one: ATen's dtype check and resize, then a copy into the caller's tensor.
void assign(Tensor& out, const Tensor& value) {
  TORCH_CHECK(out.scalar_type() == value.scalar_type(), "Expected out tensor to have dtype ", value.scalar_type(),
              ", but got ", out.scalar_type(), " instead");
  TORCH_CHECK(out.device() == value.device(), "Expected out tensor to be on ", value.device(), ", but it is on ",
              out.device());
  at::native::resize_output(out, value.sizes());
  out.copy_(value);
}
template <class... Outs, class... Values, size_t... I>
void assign_all(std::tuple<Outs&...> outs, const std::tuple<Values...>& values, std::index_sequence<I...>) {
  (assign(std::get<I>(outs), std::get<I>(values)), ...);
}
// The out= form of a functional `fn` returning a tuple: computed, then assigned to outs (nullopt passes through).
template <class... Values, class... Outs>
std::optional<std::tuple<Outs&...>> write_out(const std::optional<std::tuple<Values...>>& values, Outs&... outs) {
  if (!values) return std::nullopt;
  assign_all(std::tuple<Outs&...>(outs...), *values, std::index_sequence_for<Outs...>{});
  return std::tuple<Outs&...>(outs...);
}
bool write_out(const std::optional<Tensor>& value, Tensor& out) {
  if (!value) return false;
  assign(out, *value);
  return true;
}

// ---- Structured kernels ----------------------------------------------------------------------------------------

using Tensors2 = std::tuple<Tensor, Tensor>;
using Tensors3 = std::tuple<Tensor, Tensor, Tensor>;
using Tensors4 = std::tuple<Tensor, Tensor, Tensor, Tensor>;

std::optional<Tensors3> native_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_lu_factor_ex_out, 3> op;
  op.meta(A, pivot, check_errors);
  op.impl(A, pivot, check_errors, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_lu_factor_ex_out(const Tensor& A, bool pivot, bool check_errors,
                                                                      Tensor& LU, Tensor& pivots, Tensor& info) {
  return write_out(native_lu_factor_ex(A, pivot, check_errors), LU, pivots, info);
}

std::optional<Tensors3> native_lu(const Tensor& A, bool pivot) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_lu_out, 3> op;
  op.meta(A, pivot);
  op.impl(A, pivot, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_lu_out(const Tensor& A, bool pivot, Tensor& P, Tensor& L,
                                                            Tensor& U) {
  return write_out(native_lu(A, pivot), P, L, U);
}

std::optional<Tensors3> native_lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data, bool unpack_pivots) {
  if (!runs_natively(LU)) return std::nullopt;
  Functional<at::native::structured_lu_unpack_out, 3> op;
  op.meta(LU, pivots, unpack_data, unpack_pivots);
  op.impl(LU, pivots, unpack_data, unpack_pivots, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_lu_unpack_out(const Tensor& LU, const Tensor& pivots,
                                                                   bool unpack_data, bool unpack_pivots, Tensor& P,
                                                                   Tensor& L, Tensor& U) {
  return write_out(native_lu_unpack(LU, pivots, unpack_data, unpack_pivots), P, L, U);
}

std::optional<Tensor> native_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  if (!runs_natively(LU)) return std::nullopt;
  Functional<at::native::structured_linalg_lu_solve_out, 1> op;
  op.meta(LU, pivots, B, left, adjoint);
  op.impl(LU, pivots, B, left, adjoint, op.outputs[0]);
  return op.outputs[0];
}
bool native_lu_solve_out(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint, Tensor& out) {
  return write_out(native_lu_solve(LU, pivots, B, left, adjoint), out);
}

std::optional<Tensors2> native_triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                         bool unitriangular) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_triangular_solve_out, 2> op;
  op.meta(self, A, upper, transpose, unitriangular);
  op.impl(self, A, upper, transpose, unitriangular, op.outputs[0], op.outputs[1]);
  return Tensors2(op.outputs[0], op.outputs[1]);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_triangular_solve_out(const Tensor& self, const Tensor& A, bool upper,
                                                                 bool transpose, bool unitriangular, Tensor& X,
                                                                 Tensor& M) {
  return write_out(native_triangular_solve(self, A, upper, transpose, unitriangular), X, M);
}

std::optional<Tensors2> native_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_cholesky_ex_out, 2> op;
  op.meta(A, upper, check_errors);
  op.impl(A, upper, check_errors, op.outputs[0], op.outputs[1]);
  return Tensors2(op.outputs[0], op.outputs[1]);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_cholesky_ex_out(const Tensor& A, bool upper, bool check_errors, Tensor& L,
                                                            Tensor& info) {
  return write_out(native_cholesky_ex(A, upper, check_errors), L, info);
}

std::optional<Tensors4> native_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured__linalg_solve_ex_out, 4> op;
  op.meta(A, B, left, check_errors);
  op.impl(A, B, left, check_errors, op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]);
  return Tensors4(op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&, Tensor&>> native_solve_ex_out(const Tensor& A, const Tensor& B, bool left,
                                                                           bool check_errors, Tensor& result,
                                                                           Tensor& LU, Tensor& pivots, Tensor& info) {
  return write_out(native_solve_ex(A, B, left, check_errors), result, LU, pivots, info);
}

std::optional<Tensors2> native_inv_ex(const Tensor& A, bool check_errors) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_inv_ex_out, 2> op;
  op.meta(A, check_errors);
  op.impl(A, check_errors, op.outputs[0], op.outputs[1]);
  return Tensors2(op.outputs[0], op.outputs[1]);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_inv_ex_out(const Tensor& A, bool check_errors, Tensor& inverse,
                                                       Tensor& info) {
  return write_out(native_inv_ex(A, check_errors), inverse, info);
}

std::optional<Tensors3> native_det(const Tensor& A) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured__linalg_det_out, 3> op;
  op.meta(A);
  op.impl(A, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_det_out(const Tensor& A, Tensor& result, Tensor& LU,
                                                             Tensor& pivots) {
  return write_out(native_det(A), result, LU, pivots);
}

std::optional<Tensors4> native_slogdet(const Tensor& A) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured__linalg_slogdet_out, 4> op;
  op.meta(A);
  op.impl(A, op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]);
  return Tensors4(op.outputs[0], op.outputs[1], op.outputs[2], op.outputs[3]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&, Tensor&>> native_slogdet_out(const Tensor& A, Tensor& sign,
                                                                          Tensor& logabsdet, Tensor& LU,
                                                                          Tensor& pivots) {
  return write_out(native_slogdet(A), sign, logabsdet, LU, pivots);
}

std::optional<Tensors2> native_eigh(const Tensor& A, c10::string_view uplo, bool compute_v) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured__linalg_eigh_out, 2> op;
  op.meta(A, uplo, compute_v);
  op.impl(A, uplo, compute_v, op.outputs[0], op.outputs[1]);
  return Tensors2(op.outputs[0], op.outputs[1]);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_eigh_out(const Tensor& A, c10::string_view uplo, bool compute_v,
                                                     Tensor& eigenvalues, Tensor& eigenvectors) {
  return write_out(native_eigh(A, uplo, compute_v), eigenvalues, eigenvectors);
}

std::optional<Tensors3> native_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                            std::optional<c10::string_view> driver) {
  if (!runs_natively(A) || driver.has_value()) return std::nullopt;  // drivers: ATen's CUDA-only error
  Functional<at::native::structured__linalg_svd_out, 3> op;
  op.meta(A, full_matrices, compute_uv, driver);
  op.impl(A, full_matrices, compute_uv, driver, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_svd_out(const Tensor& A, bool full_matrices, bool compute_uv,
                                                             std::optional<c10::string_view> driver, Tensor& U,
                                                             Tensor& S, Tensor& Vh) {
  return write_out(native_svd(A, full_matrices, compute_uv, driver), U, S, Vh);
}

std::optional<Tensors2> native_qr(const Tensor& A, c10::string_view mode) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_qr_out, 2> op;
  op.meta(A, mode);
  op.impl(A, mode, op.outputs[0], op.outputs[1]);
  return Tensors2(op.outputs[0], op.outputs[1]);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_qr_out(const Tensor& A, c10::string_view mode, Tensor& Q, Tensor& R) {
  return write_out(native_qr(A, mode), Q, R);
}

std::optional<Tensors3> native_ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  if (!runs_natively(A)) return std::nullopt;
  Functional<at::native::structured_linalg_ldl_factor_ex_out, 3> op;
  op.meta(A, hermitian, check_errors);
  op.impl(A, hermitian, check_errors, op.outputs[0], op.outputs[1], op.outputs[2]);
  return Tensors3(op.outputs[0], op.outputs[1], op.outputs[2]);
}
std::optional<std::tuple<Tensor&, Tensor&, Tensor&>> native_ldl_factor_ex_out(const Tensor& A, bool hermitian,
                                                                              bool check_errors, Tensor& LD,
                                                                              Tensor& pivots, Tensor& info) {
  return write_out(native_ldl_factor_ex(A, hermitian, check_errors), LD, pivots, info);
}

std::optional<Tensor> native_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  if (!runs_natively(LD)) return std::nullopt;
  Functional<at::native::structured_linalg_ldl_solve_out, 1> op;
  op.meta(LD, pivots, B, hermitian);
  op.impl(LD, pivots, B, hermitian, op.outputs[0]);
  return op.outputs[0];
}
bool native_ldl_solve_out(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian, Tensor& out) {
  return write_out(native_ldl_solve(LD, pivots, B, hermitian), out);
}

// ---- Kernels that are not structured: ATen's own, device-generic around the stubs --------------------------------

std::optional<Tensor> native_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  if (!runs_natively(A)) return std::nullopt;
  return at::native::linalg_solve_triangular(A, B, upper, left, unitriangular);
}
bool native_solve_triangular_out(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular, Tensor& out) {
  if (!runs_natively(A)) return false;
  at::native::linalg_solve_triangular_out(A, B, upper, left, unitriangular, out);
  return true;
}

std::optional<Tensor> native_cholesky(const Tensor& A, bool upper) {
  if (!runs_natively(A)) return std::nullopt;
  return at::native::cholesky(A, upper);
}
bool native_cholesky_out(const Tensor& A, bool upper, Tensor& out) {
  if (!runs_natively(A)) return false;
  at::native::cholesky_out(A, upper, out);
  return true;
}

std::optional<Tensor> native_cholesky_inverse(const Tensor& A, bool upper) {
  if (!runs_natively(A)) return std::nullopt;
  return at::native::cholesky_inverse(A, upper);
}
bool native_cholesky_inverse_out(const Tensor& A, bool upper, Tensor& out) {
  if (!runs_natively(A)) return false;
  at::native::cholesky_inverse_out(A, upper, out);
  return true;
}

// cholesky_solve's backend op (CPU and CUDA each have their own): (L L^H) X = B as L Y = B, L^H X = Y, and
// (U^H U) X = B as U^H Y = B, U X = Y. cholesky_solve has broadcast the batches already.
std::optional<Tensor> native_cholesky_solve_helper(const Tensor& B, const Tensor& factor, bool upper) {
  if (!runs_natively(factor)) return std::nullopt;
  const Tensor y = at::linalg_solve_triangular(upper ? factor.mH() : factor, B, /*upper=*/false);
  return at::linalg_solve_triangular(upper ? factor : factor.mH(), y, /*upper=*/true);
}

std::optional<Tensors2> native_geqrf(const Tensor& A) {
  if (!runs_natively(A)) return std::nullopt;
  return at::native::geqrf(A);
}
std::optional<std::tuple<Tensor&, Tensor&>> native_geqrf_out(const Tensor& A, Tensor& a, Tensor& tau) {
  if (!runs_natively(A)) return std::nullopt;
  return at::native::geqrf_out(A, a, tau);
}

std::optional<Tensor> native_householder_product(const Tensor& input, const Tensor& tau) {
  if (!runs_natively(input)) return std::nullopt;
  return at::native::linalg_householder_product(input, tau);
}
bool native_householder_product_out(const Tensor& input, const Tensor& tau, Tensor& out) {
  if (!runs_natively(input)) return false;
  at::native::linalg_householder_product_out(input, tau, out);
  return true;
}

std::optional<Tensor> native_ormqr(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  if (!runs_natively(input) || !runs_natively(other)) return std::nullopt;
  return at::native::ormqr(input, tau, other, left, transpose);
}
bool native_ormqr_out(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose, Tensor& out) {
  if (!runs_natively(input) || !runs_natively(other)) return false;
  at::native::ormqr_out(input, tau, other, left, transpose, out);
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, linalg_lu_factor_ex, "linalg_lu_factor_ex", launches(HAL_OP_LU_FACTOR), native_lu_factor_ex);
  HAL_NATIVE(m, linalg_lu_factor_ex_out, "linalg_lu_factor_ex.out", launches(HAL_OP_LU_FACTOR), native_lu_factor_ex_out);
  HAL_NATIVE(m, linalg_lu, "linalg_lu", launches(HAL_OP_LU_FACTOR, HAL_OP_PIVOT_PERMUTATION), native_lu);
  HAL_NATIVE(m, linalg_lu_out, "linalg_lu.out", launches(HAL_OP_LU_FACTOR, HAL_OP_PIVOT_PERMUTATION), native_lu_out);
  HAL_NATIVE(m, lu_unpack, "lu_unpack", launches(HAL_OP_PIVOT_PERMUTATION), native_lu_unpack);
  HAL_NATIVE(m, lu_unpack_out, "lu_unpack.out", launches(HAL_OP_PIVOT_PERMUTATION), native_lu_unpack_out);
  HAL_NATIVE(m, linalg_lu_solve, "linalg_lu_solve", launches(HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_lu_solve);
  HAL_NATIVE(m, linalg_lu_solve_out, "linalg_lu_solve.out", launches(HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_lu_solve_out);
  HAL_NATIVE(m, triangular_solve, "triangular_solve", launches(HAL_OP_TRIANGULAR_SOLVE), native_triangular_solve);
  HAL_NATIVE(m, triangular_solve_X, "triangular_solve.X", launches(HAL_OP_TRIANGULAR_SOLVE), native_triangular_solve_out);
  HAL_NATIVE(m, linalg_cholesky_ex, "linalg_cholesky_ex", launches(HAL_OP_CHOLESKY), native_cholesky_ex);
  HAL_NATIVE(m, linalg_cholesky_ex_L, "linalg_cholesky_ex.L", launches(HAL_OP_CHOLESKY), native_cholesky_ex_out);
  HAL_NATIVE(m, _linalg_solve_ex, "_linalg_solve_ex", launches(HAL_OP_LU_FACTOR, HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_solve_ex);
  HAL_NATIVE(m, _linalg_solve_ex_result, "_linalg_solve_ex.result", launches(HAL_OP_LU_FACTOR, HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_solve_ex_out);
  HAL_NATIVE(m, linalg_inv_ex, "linalg_inv_ex", launches(HAL_OP_LU_FACTOR, HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_inv_ex);
  HAL_NATIVE(m, linalg_inv_ex_inverse, "linalg_inv_ex.inverse", launches(HAL_OP_LU_FACTOR, HAL_OP_ROW_SWAPS, HAL_OP_TRIANGULAR_SOLVE), native_inv_ex_out);
  HAL_NATIVE(m, _linalg_det, "_linalg_det", launches(HAL_OP_LU_FACTOR), native_det);
  HAL_NATIVE(m, _linalg_det_result, "_linalg_det.result", launches(HAL_OP_LU_FACTOR), native_det_out);
  HAL_NATIVE(m, _linalg_slogdet, "_linalg_slogdet", launches(HAL_OP_LU_FACTOR), native_slogdet);
  HAL_NATIVE(m, _linalg_slogdet_sign, "_linalg_slogdet.sign", launches(HAL_OP_LU_FACTOR), native_slogdet_out);
  HAL_NATIVE(m, _linalg_eigh, "_linalg_eigh", launches(HAL_OP_HERMITIAN_EIGEN), native_eigh);
  HAL_NATIVE(m, _linalg_eigh_eigenvalues, "_linalg_eigh.eigenvalues", launches(HAL_OP_HERMITIAN_EIGEN), native_eigh_out);
  HAL_NATIVE(m, _linalg_svd, "_linalg_svd", launches(HAL_OP_SINGULAR_VALUES), native_svd);
  HAL_NATIVE(m, _linalg_svd_U, "_linalg_svd.U", launches(HAL_OP_SINGULAR_VALUES), native_svd_out);
  HAL_NATIVE(m, linalg_qr, "linalg_qr", launches(HAL_OP_HOUSEHOLDER_QR, HAL_OP_APPLY_HOUSEHOLDER), native_qr);
  HAL_NATIVE(m, linalg_qr_out, "linalg_qr.out", launches(HAL_OP_HOUSEHOLDER_QR, HAL_OP_APPLY_HOUSEHOLDER), native_qr_out);
  HAL_NATIVE(m, linalg_ldl_factor_ex, "linalg_ldl_factor_ex", launches(HAL_OP_LDL_FACTOR), native_ldl_factor_ex);
  HAL_NATIVE(m, linalg_ldl_factor_ex_out, "linalg_ldl_factor_ex.out", launches(HAL_OP_LDL_FACTOR),
             native_ldl_factor_ex_out);
  HAL_NATIVE(m, linalg_ldl_solve, "linalg_ldl_solve", launches(HAL_OP_LDL_SOLVE), native_ldl_solve);
  HAL_NATIVE(m, linalg_ldl_solve_out, "linalg_ldl_solve.out", launches(HAL_OP_LDL_SOLVE), native_ldl_solve_out);
  HAL_NATIVE(m, linalg_solve_triangular, "linalg_solve_triangular", launches(HAL_OP_TRIANGULAR_SOLVE), native_solve_triangular);
  HAL_NATIVE(m, linalg_solve_triangular_out, "linalg_solve_triangular.out", launches(HAL_OP_TRIANGULAR_SOLVE), native_solve_triangular_out);
  HAL_NATIVE(m, cholesky, "cholesky", launches(HAL_OP_CHOLESKY), native_cholesky);
  HAL_NATIVE(m, cholesky_out, "cholesky.out", launches(HAL_OP_CHOLESKY), native_cholesky_out);
  HAL_NATIVE(m, cholesky_inverse, "cholesky_inverse", launches(HAL_OP_TRIANGULAR_SOLVE), native_cholesky_inverse);
  HAL_NATIVE(m, cholesky_inverse_out, "cholesky_inverse.out", launches(HAL_OP_TRIANGULAR_SOLVE), native_cholesky_inverse_out);
  HAL_NATIVE(m, _cholesky_solve_helper, "_cholesky_solve_helper", launches(HAL_OP_TRIANGULAR_SOLVE), native_cholesky_solve_helper);
  HAL_NATIVE(m, geqrf, "geqrf", launches(HAL_OP_HOUSEHOLDER_QR), native_geqrf);
  HAL_NATIVE(m, geqrf_a, "geqrf.a", launches(HAL_OP_HOUSEHOLDER_QR), native_geqrf_out);
  HAL_NATIVE(m, linalg_householder_product, "linalg_householder_product", launches(HAL_OP_APPLY_HOUSEHOLDER), native_householder_product);
  HAL_NATIVE(m, linalg_householder_product_out, "linalg_householder_product.out", launches(HAL_OP_APPLY_HOUSEHOLDER), native_householder_product_out);
  HAL_NATIVE(m, ormqr, "ormqr", launches(HAL_OP_APPLY_HOUSEHOLDER), native_ormqr);
  HAL_NATIVE(m, ormqr_out, "ormqr.out", launches(HAL_OP_APPLY_HOUSEHOLDER), native_ormqr_out);
}

}  // namespace
}  // namespace torch_hal::native
