// The scan family's combinations, one source for nvcc, hipcc and clang's SPIR-V: scan.cu's kernels and
// ../../spirv_kernels/kernels/scan.cl walk lines around them. `of(a, b)` always has the earlier part of the line
// in a. Each combination but the complex log-sum-exp is associative, so a scan may group its steps in any tree
// (the block scan does) as long as it keeps their order.
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

// LOGCUMSUMEXP of complex values, as PyTorch's CPU kernel combines them one element at a time (in its accumulate
// type, complex128): of the running value and the next element, `high` is the one with the larger real part (the
// running value where they tie) and the result is log1p(exp(low - high)) + high. Its imaginary part is high's plus
// an angle and is never brought back into (-pi, pi], so it depends on the order of the steps by multiples of
// 2 pi: unlike the combinations above this one is not associative, and kernels apply it along a line in order.
template <class T>
struct ComplexPair {
  T re, im;
};

// exp z as C99's cexp: a zero imaginary part stays (exp(inf + 0i) is inf + 0i, not inf + NaN i).
template <class T>
__device__ __forceinline__ ComplexPair<T> complex_exp(ComplexPair<T> z) {
  const T magnitude = ::exp(z.re);
  if (z.im == T(0)) return {magnitude, z.im};
  return {magnitude * ::cos(z.im), magnitude * ::sin(z.im)};
}

// log(1 + z) as c10's complex log1p: 0.5 log1p(x (2 + x) + y^2) near 0 (the real part keeps its accuracy there),
// log|1 + z| otherwise; the angle of 1 + z either way.
template <class T>
__device__ __forceinline__ ComplexPair<T> complex_log1p(ComplexPair<T> z) {
  const T x = z.re, y = z.im;
  const T angle = ::atan2(y, x + T(1));
  if (::hypot(x, y) < T(0.5)) {
    const T r = x * (T(2) + x) + y * y;
    if (r == T(0)) return {x, angle};  // underflow: log1p z ~ z
    return {T(0.5) * ::log1p(r), angle};
  }
  return {::log(::hypot(x + T(1), y)), angle};
}

template <class T>
__device__ __forceinline__ ComplexPair<T> complex_log_add_exp(ComplexPair<T> running, ComplexPair<T> x) {
  const bool running_nan = scan_is_nan(running.re) || scan_is_nan(running.im);
  const bool x_nan = scan_is_nan(x.re) || scan_is_nan(x.im);
  if (running_nan || x_nan) return {T(NAN), T(NAN)};  // NaNs are infectious
  const ComplexPair<T> low = x.re < running.re ? x : running, high = x.re < running.re ? running : x;
  if (low.re == high.re && !(low.re - low.re == T(0))) {  // the same infinity
    if (low.re < T(0)) return low;  // -inf: the angle is lost, as on the CPU
    const ComplexPair<T> a = complex_exp(low), b = complex_exp(high);
    return {::log(::hypot(a.re + b.re, a.im + b.im)), ::atan2(a.im + b.im, a.re + b.re)};
  }
  const ComplexPair<T> l = complex_log1p(complex_exp(ComplexPair<T>{low.re - high.re, low.im - high.im}));
  return {l.re + high.re, l.im + high.im};
}

template <class T>
struct ComplexLogSumExpCombine {
  __device__ static ComplexPair<T> identity() { return {-T(INFINITY), T(0)}; }
  __device__ static ComplexPair<T> of(ComplexPair<T> a, ComplexPair<T> b) { return complex_log_add_exp(a, b); }
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
