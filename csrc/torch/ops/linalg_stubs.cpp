// hal's implementations of ATen's LAPACK-shaped DispatchStubs (ATen/native/BatchLinearAlgebra.h), over the
// adapter's linalg family. ATen's structured linear algebra (registered for hal in linalg_ops.cpp) calls them
// with LAPACK's layouts and conventions, which the family keeps, so each stub only converts: the matrices to a
// float64 (complex128) working copy [batch, rows, cols], one or a few launches, the results copied back into
// ATen's tensors in their dtype. Transposed and conjugated operands are the same kernels on transposed views.
//
// The ops reach these stubs only after linalg::runs_natively said yes for their device (linalg_ops.cpp), so a
// launch the adapter refuses here is an internal error, not a reason to fall back.
#include <ATen/TensorIterator.h>
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/view_as_complex.h>
#include <ATen/ops/view_as_real.h>
#include <ATen/ops/zeros.h>
#include <c10/util/irange.h>

#include <array>
#include <deque>
#include <atomic>
#include <utility>
#include <vector>

#include "dispatch/native_launch.h"
#include "ops/linalg_kernels.h"

namespace torch_hal::native::linalg {
namespace {

using at::native::TransposeType;

std::vector<int64_t> batch_sizes(const at::Tensor& t, int64_t matrix_dims) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - matrix_dims);
}
int64_t batch_count(const at::Tensor& t, int64_t matrix_dims) {
  int64_t count = 1;
  for (const int64_t s : batch_sizes(t, matrix_dims)) count *= s;
  return count;
}
// Complex working tensors are filled and read through their real views: the conversions are then real copies,
// which every adapter runs, and a conjugate bit is a negation of the imaginary parts.
at::Tensor negate_imaginary_parts(const at::Tensor& work) {
  at::view_as_real(work).select(-1, 1).neg_();
  return work;
}

// A fresh float64 / complex128 contiguous copy of t's matrices (or vectors: matrix_dims 1) as [batch, ...], or of
// `real_type` for a real t. Always a copy: the kernels work in place, and t may be the caller's tensor.
at::Tensor working_copy(const at::Tensor& t, int64_t matrix_dims = 2, at::ScalarType real_type = at::kDouble) {
  std::vector<int64_t> shape{batch_count(t, matrix_dims)};
  for (int64_t d = t.dim() - matrix_dims; d < t.dim(); ++d) shape.push_back(t.size(d));
  if (!t.is_complex()) {
    at::Tensor out = at::empty(t.sizes(), t.options().dtype(real_type));
    out.copy_(t.resolve_neg());
    return out.reshape(shape);
  }
  const at::Tensor plain = (t.is_conj() ? t.conj() : t).resolve_neg();  // conj() of a conjugate view: the data
  std::vector<int64_t> pairs(t.sizes().begin(), t.sizes().end());
  pairs.push_back(2);
  at::Tensor out = at::empty(pairs, t.options().dtype(at::kDouble));
  out.copy_(at::view_as_real(plain));
  at::Tensor work = at::view_as_complex(out);
  if (t.is_conj()) negate_imaginary_parts(work);
  return work.reshape(shape);
}
// A launch's operands. The kernels take complex operands as their real views; KernelArgs refers to each tensor's
// sizes and strides until the launch, so every operand (views made here included) is kept alive here.
class Operands {
 public:
  Operands& input(const at::Tensor& t) {
    args_.input(keep(t));
    return *this;
  }
  Operands& output(const at::Tensor& t) {
    args_.output(keep(t));
    return *this;
  }
  Operands& absent_output() {
    args_.absent_output();
    return *this;
  }
  Operands& scalar(bool v) {
    args_.scalar(v);
    return *this;
  }
  KernelArgs& args() { return args_; }

 private:
  const at::Tensor& keep(const at::Tensor& t) {
    kept_.push_back(t.is_complex() ? at::view_as_real(t) : t);
    return kept_.back();
  }
  std::deque<at::Tensor> kept_;  // a deque: its elements never move
  KernelArgs args_;
};

void run(const at::Tensor& like, hal_op_t op, Operands& operands, const char* what) {
  TORCH_CHECK(launch(like.device().index(), op, operands.args()), "torch_hal: the adapter's linalg kernels refused ",
              what, " after accepting its device (an internal error; please report it)");
}

// Writes a working result back into ATen's tensor (any layout, its own dtype; complex through real views).
void copy_back(const at::Tensor& dst, const at::Tensor& work) {
  if (dst.numel() == 0) return;
  if (!dst.is_complex()) {
    dst.copy_(work.reshape(dst.sizes()));
    return;
  }
  TORCH_INTERNAL_ASSERT(!dst.is_conj() && !work.is_conj());
  std::vector<int64_t> pairs(dst.sizes().begin(), dst.sizes().end());
  pairs.push_back(2);
  at::view_as_real(dst).copy_(at::view_as_real(work).reshape(pairs));
}

// The conjugate transpose of a plain (no conjugate bit) matrix batch, as a new tensor of its dtype.
at::Tensor adjoint_copy(const at::Tensor& t) {
  at::Tensor out = at::empty(t.transpose(-2, -1).sizes(), t.options());
  copy_back(out, t.transpose(-2, -1));
  return t.is_complex() ? negate_imaginary_parts(out) : out;
}

// A stub's matrix as LAPACK sees it: its memory read column-major, its conjugate bit ignored. ATen hands
// triangular_solve_stub physically transposed or conjugated operands and says so in the stub's flags (upper,
// transpose type), as it would tell xTRSM (linalg_solve_triangular_out avoids copies that way).
at::Tensor lapack_view(const at::Tensor& t) {
  const at::Tensor data = t.is_conj() ? t.conj() : t;
  const bool column_major = data.stride(-2) == 1 || data.size(-2) <= 1;
  return column_major ? data : data.transpose(-2, -1);
}

// [batch, m, n] identity matrices (their first min(m, n) diagonal entries 1) in the working dtype of `like`.
at::Tensor identities(const at::Tensor& like, int64_t batch, int64_t m, int64_t n) {
  std::vector<int64_t> shape{batch, m, n};
  if (like.is_complex()) shape.push_back(2);
  at::Tensor out = at::zeros(shape, like.options().dtype(at::kDouble));
  (like.is_complex() ? out.select(-1, 0) : out).diagonal(0, 1, 2).fill_(1);
  return like.is_complex() ? at::view_as_complex(out) : out;
}

at::Tensor int32_batch(const at::Tensor& like, std::vector<int64_t> shape) {
  return at::empty(shape, like.options().dtype(at::kInt));
}

// Solves op(t) x = b in place for every column of b: t [B, n, n], b [B, n, r] (working tensors or views of them).
void solve_triangular_in_place(const at::Tensor& t, const at::Tensor& b, bool upper, bool unit, bool conjugate) {
  Operands args;
  args.input(t).output(b);
  args.scalar(t.is_complex()).scalar(upper).scalar(unit).scalar(conjugate);
  run(b, HAL_OP_TRIANGULAR_SOLVE, args, "a triangular solve");
}

void swap_rows_in_place(const at::Tensor& pivots, const at::Tensor& b, bool reverse) {
  Operands args;
  args.input(pivots).output(b);
  args.scalar(b.is_complex()).scalar(reverse);
  run(b, HAL_OP_ROW_SWAPS, args, "row swaps");
}

// A factorization (matrix and pivots) as the solves take it: broadcast to the batch of the right-hand sides B
// (ATen's lu_solve and ldl_solve leave that to the backend), the matrix as a working copy [batch, n, n], the
// pivots as contiguous [batch, n].
std::pair<at::Tensor, at::Tensor> factors_for(const at::Tensor& factors, const at::Tensor& pivots,
                                              const at::Tensor& B) {
  std::vector<int64_t> matrix_shape = batch_sizes(B, 2), pivot_shape = batch_sizes(B, 2);
  matrix_shape.insert(matrix_shape.end(), {factors.size(-2), factors.size(-1)});
  pivot_shape.push_back(pivots.size(-1));
  at::Tensor matrix = working_copy(lapack_view(factors).expand(matrix_shape));
  at::Tensor piv = pivots.expand(pivot_shape).reshape({matrix.size(0), pivots.size(-1)}).contiguous();
  return {std::move(matrix), std::move(piv)};
}

// ---- LU ----------------------------------------------------------------------------------------------------------

void lu_factor(const at::Tensor& input, const at::Tensor& pivots, const at::Tensor& infos, bool compute_pivots) {
  const int64_t m = input.size(-2), n = input.size(-1), batch = batch_count(input, 2);
  at::Tensor a = working_copy(input);
  at::Tensor piv = int32_batch(input, {batch, std::min(m, n)});
  at::Tensor info = int32_batch(input, {batch});
  Operands args;
  args.output(a).output(piv).output(info);
  args.scalar(input.is_complex()).scalar(compute_pivots);
  run(input, HAL_OP_LU_FACTOR, args, "an LU factorization");
  copy_back(input, a);
  copy_back(pivots, piv);
  copy_back(infos, info);
}

// A = P L U: A x = b is L U x = P^T b (LAPACK's swaps in order, then the two triangles); A^T x = b (A^H) is
// U^T L^T P^T x = b: the triangles transposed (and conjugated), then the swaps in reverse.
void lu_solve(const at::Tensor& LU, const at::Tensor& pivots, const at::Tensor& B, TransposeType trans) {
  const auto [lu, piv] = factors_for(LU, pivots, B);
  at::Tensor b = working_copy(lapack_view(B));
  if (trans == TransposeType::NoTranspose) {
    swap_rows_in_place(piv, b, /*reverse=*/false);
    solve_triangular_in_place(lu, b, /*upper=*/false, /*unit=*/true, /*conjugate=*/false);
    solve_triangular_in_place(lu, b, /*upper=*/true, /*unit=*/false, /*conjugate=*/false);
  } else {
    const bool conjugate = trans == TransposeType::ConjTranspose;
    const at::Tensor lu_t = lu.transpose(-2, -1);
    solve_triangular_in_place(lu_t, b, /*upper=*/false, /*unit=*/false, conjugate);  // U^T: lower
    solve_triangular_in_place(lu_t, b, /*upper=*/true, /*unit=*/true, conjugate);    // L^T: upper, unit
    swap_rows_in_place(piv, b, /*reverse=*/true);
  }
  copy_back(lapack_view(B), b);
}

// ATen's unpack_pivots: the permutation (given as 0..m-1) with the pivots' swaps applied.
void unpack_pivots(at::TensorIterator& iter, const int64_t dim_size, const int64_t /*max_pivot*/) {
  const at::Tensor& perm = iter.tensor(0);
  const at::Tensor& pivots = iter.tensor(1);
  const int64_t batch = batch_count(perm, 1);
  Operands args;  // pivots and perm as [batch, k] and [batch, m], geometry owned by KernelArgs
  args.args().input_as(pivots, {batch, dim_size}, {pivots.size(-1), 1});
  args.args().output_as(perm, {batch, perm.size(-1)}, {perm.size(-1), 1});
  TORCH_INTERNAL_ASSERT(pivots.is_contiguous() && perm.is_contiguous());
  run(perm, HAL_OP_PIVOT_PERMUTATION, args, "the pivots' permutation");
}

// ---- Triangular solves ---------------------------------------------------------------------------------------------

// op(A) X = B (left) or X op(A) = B (right), B overwritten. The right form is the left one transposed:
// op(A)^T X^T = B^T, where N^T is A^T, T^T is A and C^T is conj(A).
void triangular_solve(const at::Tensor& A, const at::Tensor& B, bool left, bool upper, TransposeType transpose,
                      bool unitriangular) {
  const at::Tensor a = working_copy(lapack_view(A));
  at::Tensor b = working_copy(lapack_view(B));
  const bool transposed = (transpose != TransposeType::NoTranspose) == left;
  const bool conjugate = transpose == TransposeType::ConjTranspose;
  const at::Tensor t = transposed ? a.transpose(-2, -1) : a;
  solve_triangular_in_place(t, left ? b : b.transpose(-2, -1), transposed ? !upper : upper, unitriangular,
                            conjugate);
  copy_back(lapack_view(B), b);
}

// ---- Cholesky ------------------------------------------------------------------------------------------------------

// Upper: the lower factor of the transposed view is U (A = U^H U reads as the lower problem of A^T = conj(A)).
void cholesky(const at::Tensor& input, const at::Tensor& infos, bool upper) {
  at::Tensor a = working_copy(input);
  at::Tensor info = int32_batch(input, {a.size(0)});
  Operands args;
  args.output(upper ? a.transpose(-2, -1) : a).output(info);
  args.scalar(input.is_complex());
  run(input, HAL_OP_CHOLESKY, args, "a Cholesky factorization");
  copy_back(input, a);
  copy_back(infos, info);
}

// (L L^H)^-1 = L^-H L^-1 and (U^H U)^-1 = U^-1 U^-H, the inverse triangle solved from the identity; the product
// in the result's own dtype (as the CPU's xPOTRI computes).
at::Tensor& cholesky_inverse(at::Tensor& result, at::Tensor& infos, bool upper) {
  const at::Tensor factor = working_copy(result);
  const int64_t n = result.size(-1);
  at::Tensor x = identities(factor, factor.size(0), n, n);
  solve_triangular_in_place(factor, x, upper, /*unit=*/false, /*conjugate=*/false);
  const at::Tensor inverse_factor = at::empty(result.sizes(), result.options());
  copy_back(inverse_factor, x);
  const at::Tensor product = upper ? at::matmul(inverse_factor, adjoint_copy(inverse_factor))
                                   : at::matmul(adjoint_copy(inverse_factor), inverse_factor);
  result.copy_(product);
  infos.zero_();
  return result;
}

// ---- QR ------------------------------------------------------------------------------------------------------------

void geqrf(const at::Tensor& input, const at::Tensor& tau) {
  at::Tensor a = working_copy(input);
  const int64_t k = std::min(input.size(-2), input.size(-1));
  at::Tensor t = at::empty({a.size(0), k}, a.options());
  Operands args;
  args.output(a).output(t);
  args.scalar(input.is_complex());
  run(input, HAL_OP_HOUSEHOLDER_QR, args, "a QR factorization");
  copy_back(input, a);
  copy_back(tau, t);
}

void apply_reflectors(const at::Tensor& reflectors, const at::Tensor& tau, const at::Tensor& c, bool left,
                      bool adjoint) {
  Operands args;
  args.input(reflectors).input(tau).output(c);
  args.scalar(c.is_complex()).scalar(left).scalar(adjoint);
  run(c, HAL_OP_APPLY_HOUSEHOLDER, args, "Householder reflectors");
}

// Q's first n columns: the reflectors applied to the identity's.
at::Tensor& orgqr(at::Tensor& result, const at::Tensor& tau) {
  const at::Tensor reflectors = working_copy(result);
  const at::Tensor t = working_copy(tau, 1);
  at::Tensor q = identities(reflectors, reflectors.size(0), result.size(-2), result.size(-1));
  apply_reflectors(reflectors, t, q, /*left=*/true, /*adjoint=*/false);
  copy_back(result, q);
  return result;
}

void ormqr(const at::Tensor& input, const at::Tensor& tau, const at::Tensor& other, bool left, bool transpose) {
  const at::Tensor reflectors = working_copy(input);
  const at::Tensor t = working_copy(tau, 1);
  at::Tensor c = working_copy(other);
  apply_reflectors(reflectors, t, c, left, transpose);
  copy_back(other, c);
}

// ---- LDL (Bunch-Kaufman) ------------------------------------------------------------------------------------------

// ATen asks for the lower form (xSYTRF / xHETRF with UPLO 'L'): the only one the kernels have.
void ldl_factor(const at::Tensor& LD, const at::Tensor& pivots, const at::Tensor& infos, bool upper, bool hermitian) {
  TORCH_CHECK(!upper, "torch_hal: the LDL factorization is available in its lower form only");
  // float32 factors are computed in float32. Bunch-Kaufman's growth makes them sensitive to where each step
  // rounds: factored in float64 and rounded once, some elements differ from LAPACK's SSYTRF (and cuSOLVER's,
  // which round as it does) by more than float32's tolerance; rounded step by step they agree.
  at::Tensor a = working_copy(LD, 2, LD.scalar_type() == at::kFloat ? at::kFloat : at::kDouble);
  at::Tensor piv = int32_batch(LD, {a.size(0), a.size(-1)});
  at::Tensor info = int32_batch(LD, {a.size(0)});
  Operands args;
  args.output(a).output(piv).output(info);
  args.scalar(LD.is_complex()).scalar(hermitian);
  run(LD, HAL_OP_LDL_FACTOR, args, "an LDL factorization");
  copy_back(LD, a);
  copy_back(pivots, piv);
  copy_back(infos, info);
}

void ldl_solve(const at::Tensor& LD, const at::Tensor& pivots, const at::Tensor& B, bool upper, bool hermitian) {
  TORCH_CHECK(!upper, "torch_hal: the LDL factorization is available in its lower form only");
  const auto [ld, piv] = factors_for(LD, pivots, B);
  at::Tensor b = working_copy(lapack_view(B));
  Operands args;
  args.input(ld).input(piv).output(b);
  args.scalar(LD.is_complex()).scalar(hermitian);
  run(B, HAL_OP_LDL_SOLVE, args, "an LDL solve");
  copy_back(lapack_view(B), b);
}

// ---- Eigenvalues and singular values -------------------------------------------------------------------------------

void eigh(const at::Tensor& eigenvalues, const at::Tensor& eigenvectors, const at::Tensor& infos, bool upper,
          bool compute_eigenvectors) {
  at::Tensor a = working_copy(eigenvectors);
  const int64_t batch = a.size(0), n = a.size(-1);
  at::Tensor w = at::empty({batch, n}, a.options().dtype(at::kDouble));
  at::Tensor v = compute_eigenvectors ? at::empty_like(a) : at::Tensor();
  at::Tensor info = int32_batch(a, {batch});
  Operands args;
  args.output(a).output(w);
  if (compute_eigenvectors) args.output(v);
  else args.absent_output();
  args.output(info).scalar(a.is_complex()).scalar(upper);
  run(a, HAL_OP_HERMITIAN_EIGEN, args, "a Hermitian eigendecomposition");
  copy_back(eigenvalues, w);
  if (compute_eigenvectors) copy_back(eigenvectors, v);
  copy_back(infos, info);
}

// One-sided Jacobi wants m >= n: a wide A is factored through its transpose, A^T = U' S V'^H, so that
// A = conj(V') S U'^T: U = conj(V'), Vh = U'^T.
void svd(const at::Tensor& A, const bool full_matrices, const bool compute_uv,
         const std::optional<c10::string_view>& /*driver*/, const at::Tensor& U, const at::Tensor& S,
         const at::Tensor& Vh, const at::Tensor& info) {
  const bool wide = A.size(-2) < A.size(-1);
  at::Tensor a = working_copy(wide ? A.transpose(-2, -1) : A);
  const int64_t batch = a.size(0), m = a.size(1), n = a.size(2);
  at::Tensor s = at::empty({batch, n}, a.options().dtype(at::kDouble));
  at::Tensor u, v;
  at::Tensor status = int32_batch(a, {batch});
  Operands args;
  args.output(a).output(s);
  if (compute_uv) {
    u = at::empty({batch, m, full_matrices ? m : n}, a.options());
    v = at::empty({batch, n, n}, a.options());
    args.output(u).output(v);
  } else {
    args.absent_output().absent_output();
  }
  args.output(status).scalar(a.is_complex());
  run(A, HAL_OP_SINGULAR_VALUES, args, "a singular value decomposition");
  copy_back(S, s);
  copy_back(info, status);
  if (!compute_uv) return;
  if (v.is_complex()) negate_imaginary_parts(v);  // conj(V'), or V^H = conj(V)^T below
  copy_back(U, wide ? v : u);
  copy_back(Vh, wide ? u.transpose(-2, -1) : v.transpose(-2, -1));
}

}  // namespace

bool runs_natively(const at::Tensor& a) {
  if (a.device().type() != c10::DeviceType::PrivateUse1 || a.dim() < 2) return false;
  const at::ScalarType t = a.scalar_type();
  if (t != at::kFloat && t != at::kDouble && t != at::kComplexFloat && t != at::kComplexDouble) return false;
  if (a.size(-1) > kMaxNativeSide || a.size(-2) > kMaxNativeSide) return false;
  const c10::DeviceIndex device = a.device().index();
  if (!has_native_kernels(device)) return false;
  // Whether the adapter has the family: an empty LU launch, asked once per device (0 unknown, 1 yes, 2 no).
  static std::array<std::atomic<int8_t>, 64> known{};
  if (device >= 0 && device < static_cast<c10::DeviceIndex>(known.size())) {
    if (const int8_t k = known[device].load(std::memory_order_relaxed)) return k == 1;
  }
  const at::Tensor probe = at::empty({0, 1, 1}, a.options().dtype(at::kDouble));
  Operands args;
  args.output(probe).output(at::empty({0, 1}, probe.options().dtype(at::kInt)))
      .output(at::empty({0}, probe.options().dtype(at::kInt)));
  args.scalar(false).scalar(true);
  const bool has = launch(device, HAL_OP_LU_FACTOR, args.args());
  if (device >= 0 && device < static_cast<c10::DeviceIndex>(known.size())) known[device].store(has ? 1 : 2);
  return has;
}

}  // namespace torch_hal::native::linalg

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(lu_factor_stub, &torch_hal::native::linalg::lu_factor)
REGISTER_PRIVATEUSE1_DISPATCH(lu_solve_stub, &torch_hal::native::linalg::lu_solve)
REGISTER_PRIVATEUSE1_DISPATCH(unpack_pivots_stub, &torch_hal::native::linalg::unpack_pivots)
REGISTER_PRIVATEUSE1_DISPATCH(triangular_solve_stub, &torch_hal::native::linalg::triangular_solve)
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_stub, &torch_hal::native::linalg::cholesky)
REGISTER_PRIVATEUSE1_DISPATCH(cholesky_inverse_stub, &torch_hal::native::linalg::cholesky_inverse)
REGISTER_PRIVATEUSE1_DISPATCH(geqrf_stub, &torch_hal::native::linalg::geqrf)
REGISTER_PRIVATEUSE1_DISPATCH(orgqr_stub, &torch_hal::native::linalg::orgqr)
REGISTER_PRIVATEUSE1_DISPATCH(ormqr_stub, &torch_hal::native::linalg::ormqr)
REGISTER_PRIVATEUSE1_DISPATCH(linalg_eigh_stub, &torch_hal::native::linalg::eigh)
REGISTER_PRIVATEUSE1_DISPATCH(svd_stub, &torch_hal::native::linalg::svd)
REGISTER_PRIVATEUSE1_DISPATCH(ldl_factor_stub, &torch_hal::native::linalg::ldl_factor)
REGISTER_PRIVATEUSE1_DISPATCH(ldl_solve_stub, &torch_hal::native::linalg::ldl_solve)
}  // namespace at::native
