// The scan family's combinations, one source for nvcc, hipcc and clang's SPIR-V: scan.cu's kernels and
// ../../spirv_kernels/kernels/scan.cl walk lines around them. Each combination is associative and `of(a, b)`
// always has the earlier part of the line in a, so a scan may group its steps in any tree (the block scan
// does) as long as it keeps their order.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// CUMSUM, CUMPROD and LOGCUMSUMEXP: running sums, products and log-sum-exps of values.
enum class ScanKind : int32_t { Sum = 0, Prod = 1, LogSumExp = 2 };

template <class T>
__device__ __forceinline__ bool scan_is_nan(T v) { return v != v; }

// log(exp(a) + exp(b)) as PyTorch computes it (log1p(exp(min - max)) + max), with its special case: when both
// are the same infinity, that infinity (their difference would be NaN). -inf is the identity.
template <class T>
__device__ __forceinline__ T log_add_exp(T a, T b) {
  if (scan_is_nan(a) || scan_is_nan(b)) return a + b;
  const T high = a > b ? a : b, low = a > b ? b : a;
  if (low == high && !(low - high == T(0))) return a;  // the same infinity
  if constexpr (sizeof(T) == 4) return log1pf(expf(low - high)) + high;
  else return ::log1p(::exp(low - high)) + high;
}

template <class T, ScanKind K>
struct ScanCombine {
  __device__ static T identity() {
    if constexpr (K == ScanKind::Prod) return T(1);
    else if constexpr (K == ScanKind::LogSumExp) return -T(INFINITY);
    else return T(0);
  }
  __device__ static T of(T a, T b) {
    if constexpr (K == ScanKind::Prod) return a * b;
    else if constexpr (K == ScanKind::LogSumExp) return log_add_exp(a, b);
    else return a + b;
  }
};

// CUMMAX and CUMMIN: the running extremum and where it came from. index < 0 marks the identity (no element yet),
// which a value cannot stand for (a maximum of -inf is still an element with its index).
template <class T>
struct Ranked {
  T value;
  int64_t index;
};

// PyTorch's rule, element by element: x replaces the running value when x is NaN, or when neither is NaN and
// x >= value (cummax) / x <= value (cummin); so among equal values the last wins and a NaN, once met, stays
// (with the index of the last NaN). The same rule between two scanned parts makes it associative.
template <class T, bool Max>
struct ExtremumCombine {
  __device__ static Ranked<T> identity() { return Ranked<T>{T(0), -1}; }
  __device__ static Ranked<T> of(Ranked<T> a, Ranked<T> b) {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    if (scan_is_nan(b.value)) return b;
    if (scan_is_nan(a.value)) return a;
    return (Max ? b.value >= a.value : b.value <= a.value) ? b : a;
  }
};

}  // namespace hal_gpu
