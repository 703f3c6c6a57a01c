// The linalg family: dense_linalg.cuh's factorizations and solves over a batch of matrices, one thread per
// matrix (per right-hand side for the solves and row swaps). Operands are float64 (the glue computes in double
// whatever the tensor's dtype, but for LDL_FACTOR's float32 matrices, factored in float32 as LAPACK does); with
// the `complex` scalar set, every matrix and tau operand is the real view of a complex128 tensor: a trailing
// dimension of 2 (real, imaginary) with stride 1. Matrices are [B, rows, cols] with
// any strides, vectors [B, k], info [B] (int32), as adapter_ops.def states per op.

#include <cstdint>

#include "kernels/dense_linalg.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace {

using linalg::Complex;
using linalg::MatrixRef;

constexpr int kThreads = 128;
// The largest side the glue sends (linalg_ops.cpp's limit): SINGULAR_VALUES keeps a flag per column of u.
constexpr int64_t kMaxSide = 128;

// The real type of scalars S (double for Complex<double>).
template <class S> struct RealOf { using type = S; };
template <class R> struct RealOf<Complex<R>> { using type = R; };

// A batch of matrices (or of vectors: cols 1) in scalars of S.
template <class S>
struct Batch {
  S* base = nullptr;
  int64_t count = 0, rows = 0, cols = 0, batch_stride = 0, row_stride = 0, col_stride = 0;
  __device__ __forceinline__ MatrixRef<S> matrix(int64_t b) const {
    return {base + b * batch_stride, rows, cols, row_stride, col_stride};
  }
  __device__ __forceinline__ S* vector(int64_t b) const { return base + b * batch_stride; }
};

// Reads an operand as a batch: `dims` (3 for matrices, 2 for vectors, 1 for info) plus the pair dimension of
// complex operands. False for a dtype other than `want`, a shape of another rank, or a malformed pair dimension.
template <class S>
bool batch_of(const hal_tensor_t& t, DType want, int dims, bool complex_pairs, Batch<S>& out) {
  const int pair = complex_pairs ? 1 : 0;
  if (is_absent(t) || is_scalar_operand(t) || dtype_of(t.dtype) != want || t.ndim != dims + pair) return false;
  int64_t unit = 1;
  if (complex_pairs) {
    if (t.shape[dims] != 2 || t.strides[dims] != 1) return false;
    for (int d = 0; d < dims; ++d) {
      if (t.strides[d] % 2 != 0) return false;
    }
    unit = 2;
  }
  out.base = reinterpret_cast<S*>(element0(t));
  out.count = t.shape[0];
  out.batch_stride = t.strides[0] / unit;
  out.rows = dims >= 2 ? t.shape[1] : 1;
  out.row_stride = dims >= 2 ? t.strides[1] / unit : 0;
  out.cols = dims >= 3 ? t.shape[2] : 1;
  out.col_stride = dims >= 3 ? t.strides[2] / unit : 0;
  return true;
}

__device__ __forceinline__ int64_t first_thread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t thread_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

template <class S>
__global__ void __launch_bounds__(kThreads) lu_kernel(Batch<S> a, Batch<int32_t> pivots, Batch<int32_t> info,
                                                      bool pivot) {
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    linalg::lu_factor(a.matrix(b), pivots.vector(b), pivots.row_stride, info.vector(b), pivot);
  }
}

// One thread per (matrix, right-hand side).
template <class S>
__global__ void __launch_bounds__(kThreads) triangular_solve_kernel(Batch<S> t, Batch<S> rhs, bool upper, bool unit,
                                                                    bool conjugate) {
  const int64_t total = rhs.count * rhs.cols;
  for (int64_t e = first_thread(); e < total; e += thread_stride()) {
    const int64_t b = e / rhs.cols, c = e % rhs.cols;
    linalg::triangular_solve(t.matrix(b), rhs.vector(b) + c * rhs.col_stride, rhs.row_stride, upper, unit, conjugate);
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) row_swaps_kernel(Batch<int32_t> pivots, Batch<S> rhs, bool reverse) {
  const int64_t total = rhs.count * rhs.cols;
  for (int64_t e = first_thread(); e < total; e += thread_stride()) {
    const int64_t b = e / rhs.cols, c = e % rhs.cols;
    linalg::swap_rows(rhs.vector(b) + c * rhs.col_stride, rhs.row_stride, pivots.vector(b), pivots.row_stride,
                      pivots.rows, reverse);
  }
}

__global__ void __launch_bounds__(kThreads) permutation_kernel(Batch<int32_t> pivots, Batch<int64_t> perm) {
  for (int64_t b = first_thread(); b < perm.count; b += thread_stride()) {
    linalg::pivots_to_permutation(perm.vector(b), perm.row_stride, pivots.vector(b), pivots.row_stride, pivots.rows);
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) cholesky_kernel(Batch<S> a, Batch<int32_t> info) {
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    linalg::cholesky_lower<S, double>(a.matrix(b), info.vector(b));
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) qr_kernel(Batch<S> a, Batch<S> tau) {
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    linalg::householder_qr<S, double>(a.matrix(b), tau.vector(b), tau.row_stride);
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) apply_householder_kernel(Batch<S> v, Batch<S> tau, Batch<S> c, bool left,
                                                                     bool adjoint) {
  for (int64_t b = first_thread(); b < c.count; b += thread_stride()) {
    linalg::apply_householder<S, double>(v.matrix(b), tau.vector(b), tau.row_stride, tau.rows, c.matrix(b), left,
                                         adjoint);
  }
}

// In S's own real type: float32 matrices are factored in float32 (adapter_ops.def's LDL_FACTOR).
template <class S>
__global__ void __launch_bounds__(kThreads) ldl_kernel(Batch<S> a, Batch<int32_t> pivots, Batch<int32_t> info,
                                                       bool hermitian) {
  using W = typename RealOf<S>::type;
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    linalg::ldl_factor_lower<S, W>(a.matrix(b), pivots.vector(b), pivots.row_stride, info.vector(b), hermitian);
  }
}

// One thread per (matrix, right-hand side).
template <class S>
__global__ void __launch_bounds__(kThreads) ldl_solve_kernel(Batch<S> a, Batch<int32_t> pivots, Batch<S> rhs,
                                                             bool hermitian) {
  const int64_t total = rhs.count * rhs.cols;
  for (int64_t e = first_thread(); e < total; e += thread_stride()) {
    const int64_t b = e / rhs.cols, c = e % rhs.cols;
    linalg::ldl_solve_lower<S, double>(a.matrix(b), pivots.vector(b), pivots.row_stride,
                                       rhs.vector(b) + c * rhs.col_stride, rhs.row_stride, hermitian);
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) eigen_kernel(Batch<S> a, bool upper, Batch<double> w, Batch<S> v,
                                                         bool vectors, Batch<int32_t> info) {
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    linalg::hermitian_eigen<S, double>(a.matrix(b), upper, w.vector(b), w.row_stride,
                                       vectors ? v.matrix(b) : a.matrix(b), vectors, info.vector(b));
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads) svd_kernel(Batch<S> a, Batch<double> s, Batch<S> u, Batch<S> v,
                                                       bool vectors, Batch<int32_t> info) {
  for (int64_t b = first_thread(); b < a.count; b += thread_stride()) {
    bool keep[kMaxSide];
    linalg::singular_values<S, double>(a.matrix(b), s.vector(b), s.row_stride, vectors ? u.matrix(b) : a.matrix(b),
                                       vectors ? v.matrix(b) : a.matrix(b), vectors, keep, info.vector(b));
  }
}

template <auto Kernel, class... Args>
hal_status_t run(const char* name, const OpCall& call, int64_t work, Args... args) {
  if (work == 0) return HAL_STATUS_SUCCESS;
  return launch_kernel<Kernel>(name, call.device, grid_for(work, kThreads, call.device), kThreads, 0, call.stream,
                               args...);
}

// LDL_FACTOR on matrices of `dtype` (S's: F64 for double and Complex<double>, F32 for float).
template <class S>
hal_status_t launch_ldl_factor(const OpCall& call, bool cx, DType dtype) {
  Batch<S> a;
  Batch<int32_t> pivots, info;
  if (!has_operands(call, 0, 3, 2) || !batch_of(call.outputs[0], dtype, 3, cx, a) || a.rows != a.cols ||
      !batch_of(call.outputs[1], DType::I32, 2, false, pivots) || pivots.count != a.count ||
      pivots.rows != a.rows || !batch_of(call.outputs[2], DType::I32, 1, false, info) || info.count != a.count) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  return run<ldl_kernel<S>>("ldl_factor", call, a.count, a, pivots, info, scalar_true(call.scalars[1]));
}

// The op for scalars S (double or Complex<double>); `cx` says which.
template <class S>
hal_status_t launch_typed(const OpCall& call, bool cx) {
  const DType f64 = DType::F64;
  switch (call.op) {
    case HAL_OP_LU_FACTOR: {
      Batch<S> a;
      Batch<int32_t> pivots, info;
      if (!has_operands(call, 0, 3, 2) || !batch_of(call.outputs[0], f64, 3, cx, a) ||
          !batch_of(call.outputs[1], DType::I32, 2, false, pivots) ||
          !batch_of(call.outputs[2], DType::I32, 1, false, info) || pivots.count != a.count ||
          info.count != a.count || pivots.rows != (a.rows < a.cols ? a.rows : a.cols)) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<lu_kernel<S>>("lu_factor", call, a.count, a, pivots, info, scalar_true(call.scalars[1]));
    }
    case HAL_OP_TRIANGULAR_SOLVE: {
      Batch<S> t, rhs;
      if (!has_operands(call, 1, 1, 4) || !batch_of(call.inputs[0], f64, 3, cx, t) ||
          !batch_of(call.outputs[0], f64, 3, cx, rhs) || t.count != rhs.count || t.rows != t.cols ||
          t.rows != rhs.rows) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<triangular_solve_kernel<S>>("triangular_solve", call, rhs.count * rhs.cols, t, rhs,
                                              scalar_true(call.scalars[1]), scalar_true(call.scalars[2]),
                                              scalar_true(call.scalars[3]));
    }
    case HAL_OP_ROW_SWAPS: {
      Batch<int32_t> pivots;
      Batch<S> rhs;
      if (!has_operands(call, 1, 1, 2) || !batch_of(call.inputs[0], DType::I32, 2, false, pivots) ||
          !batch_of(call.outputs[0], f64, 3, cx, rhs) || pivots.count != rhs.count || pivots.rows > rhs.rows) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<row_swaps_kernel<S>>("row_swaps", call, rhs.count * rhs.cols, pivots, rhs,
                                      scalar_true(call.scalars[1]));
    }
    case HAL_OP_CHOLESKY: {
      Batch<S> a;
      Batch<int32_t> info;
      if (!has_operands(call, 0, 2, 1) || !batch_of(call.outputs[0], f64, 3, cx, a) ||
          !batch_of(call.outputs[1], DType::I32, 1, false, info) || a.rows != a.cols || info.count != a.count) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<cholesky_kernel<S>>("cholesky", call, a.count, a, info);
    }
    case HAL_OP_HOUSEHOLDER_QR: {
      Batch<S> a, tau;
      if (!has_operands(call, 0, 2, 1) || !batch_of(call.outputs[0], f64, 3, cx, a) ||
          !batch_of(call.outputs[1], f64, 2, cx, tau) || tau.count != a.count ||
          tau.rows != (a.rows < a.cols ? a.rows : a.cols)) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<qr_kernel<S>>("householder_qr", call, a.count, a, tau);
    }
    case HAL_OP_APPLY_HOUSEHOLDER: {
      Batch<S> v, tau, c;
      if (!has_operands(call, 2, 1, 3) || !batch_of(call.inputs[0], f64, 3, cx, v) ||
          !batch_of(call.inputs[1], f64, 2, cx, tau) || !batch_of(call.outputs[0], f64, 3, cx, c) ||
          v.count != c.count || tau.count != c.count || tau.rows > v.cols) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      const bool left = scalar_true(call.scalars[1]);
      if (v.rows != (left ? c.rows : c.cols) || tau.rows > v.rows) return HAL_STATUS_NOT_SUPPORTED;
      return run<apply_householder_kernel<S>>("apply_householder", call, c.count, v, tau, c, left,
                                              scalar_true(call.scalars[2]));
    }
    case HAL_OP_LDL_FACTOR: return launch_ldl_factor<S>(call, cx, f64);
    case HAL_OP_LDL_SOLVE: {
      Batch<S> a, rhs;
      Batch<int32_t> pivots;
      if (!has_operands(call, 2, 1, 2) || !batch_of(call.inputs[0], f64, 3, cx, a) || a.rows != a.cols ||
          !batch_of(call.inputs[1], DType::I32, 2, false, pivots) || pivots.count != a.count ||
          pivots.rows != a.rows || !batch_of(call.outputs[0], f64, 3, cx, rhs) || rhs.count != a.count ||
          rhs.rows != a.rows) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<ldl_solve_kernel<S>>("ldl_solve", call, rhs.count * rhs.cols, a, pivots, rhs,
                                      scalar_true(call.scalars[1]));
    }
    case HAL_OP_HERMITIAN_EIGEN: {
      Batch<S> a, v;
      Batch<double> w;
      Batch<int32_t> info;
      const bool vectors = !is_absent(call.outputs[2]);
      if (!has_operands(call, 0, 4, 2) || !batch_of(call.outputs[0], f64, 3, cx, a) || a.rows != a.cols ||
          !batch_of(call.outputs[1], f64, 2, false, w) || w.count != a.count || w.rows != a.rows ||
          !batch_of(call.outputs[3], DType::I32, 1, false, info) || info.count != a.count ||
          (vectors && (!batch_of(call.outputs[2], f64, 3, cx, v) || v.count != a.count || v.rows != a.rows ||
                       v.cols != a.rows))) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<eigen_kernel<S>>("hermitian_eigen", call, a.count, a, scalar_true(call.scalars[1]), w, v, vectors,
                                  info);
    }
    case HAL_OP_SINGULAR_VALUES: {
      Batch<S> a, u, v;
      Batch<double> s;
      Batch<int32_t> info;
      const bool vectors = !is_absent(call.outputs[2]);
      if (!has_operands(call, 0, 5, 1) || !batch_of(call.outputs[0], f64, 3, cx, a) || a.rows < a.cols ||
          !batch_of(call.outputs[1], f64, 2, false, s) || s.count != a.count || s.rows != a.cols ||
          !batch_of(call.outputs[4], DType::I32, 1, false, info) || info.count != a.count) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      if (vectors && (!batch_of(call.outputs[2], f64, 3, cx, u) || !batch_of(call.outputs[3], f64, 3, cx, v) ||
                      u.count != a.count || u.rows != a.rows || u.cols < a.cols || u.cols > kMaxSide ||
                      v.count != a.count || v.rows != a.cols || v.cols != a.cols)) {
        return HAL_STATUS_NOT_SUPPORTED;
      }
      return run<svd_kernel<S>>("singular_values", call, a.count, a, s, u, v, vectors, info);
    }
    default:
      return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace

hal_status_t launch_linalg(const OpCall& call) {
  if (call.op == HAL_OP_PIVOT_PERMUTATION) {
    Batch<int32_t> pivots;
    Batch<int64_t> perm;
    if (!has_operands(call, 1, 1) || !batch_of(call.inputs[0], DType::I32, 2, false, pivots) ||
        !batch_of(call.outputs[0], DType::I64, 2, false, perm) || pivots.count != perm.count ||
        pivots.rows > perm.rows) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
    return run<permutation_kernel>("pivot_permutation", call, perm.count, pivots, perm);
  }
  // Every other op's first scalar says whether its matrices are complex.
  if (call.scalars == nullptr || call.num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const bool real_float32 = !scalar_true(call.scalars[0]) && call.num_outputs > 0 &&
                            !is_absent(call.outputs[0]) && dtype_of(call.outputs[0].dtype) == DType::F32;
  if (call.op == HAL_OP_LDL_FACTOR && real_float32) return launch_ldl_factor<float>(call, false, DType::F32);
  return scalar_true(call.scalars[0]) ? launch_typed<Complex<double>>(call, true) : launch_typed<double>(call, false);
}

}  // namespace hal_gpu
