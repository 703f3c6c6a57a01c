// The vector norm of a set of elements, for every kernel that computes one (VECTOR_NORM in reduce.cu,
// FOREACH_NORM in multi_tensor_norm.cu): the order's cases as ATen's norm kernels split them (max and min of
// |x|, the count of nonzeros, the sums of |x| and of x^2, and the general sum of |x|^ord), so the common
// orders skip pow(). T is the accumulation type (float, or double for f64). The SPIR-V side's reductions
// (spirv_kernels/kernels/reduce.cl) compile it too.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <limits>
#include <type_traits>
#endif

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

enum class NormOrder { Inf, NegInf, Zero, One, Two, General };

#if !defined(__OPENCL_CPP_VERSION__)
inline NormOrder norm_order_of(double ord) {
  if (ord == std::numeric_limits<double>::infinity()) return NormOrder::Inf;
  if (ord == -std::numeric_limits<double>::infinity()) return NormOrder::NegInf;
  if (ord == 0) return NormOrder::Zero;
  if (ord == 1) return NormOrder::One;
  if (ord == 2) return NormOrder::Two;
  return NormOrder::General;
}
#endif

template <class T, NormOrder O>
struct VectorNorm {
  __device__ static T abs_of(T v) {
    if constexpr (std::is_same_v<T, float>) return ::fabsf(v);
    else return ::fabs(v);
  }
  __device__ static T pow_of(T b, T e) {
    if constexpr (std::is_same_v<T, float>) return ::powf(b, e);
    else return ::pow(b, e);
  }
  // The partial result of no elements (a norm over nothing is 0; -inf's is +inf, which callers refuse).
  __device__ static T identity() { return O == NormOrder::NegInf ? static_cast<T>(INFINITY) : T(0); }
  // Two partial results: max/min for the infinite orders (a NaN anywhere is the norm), else their sum.
  __device__ static T combine(T a, T b) {
    if constexpr (O == NormOrder::Inf || O == NormOrder::NegInf) {
      if (a != a) return a;
      if (b != b) return b;
      return O == NormOrder::Inf ? (a > b ? a : b) : (a < b ? a : b);
    } else {
      return a + b;
    }
  }
  // One more element v.
  __device__ static T push(T a, T v, T ord) {
    if constexpr (O == NormOrder::Zero) return a + (v != T(0) ? T(1) : T(0));  // NaN counts, as in ATen
    else if constexpr (O == NormOrder::One) return a + abs_of(v);
    else if constexpr (O == NormOrder::Two) return a + v * v;
    else if constexpr (O == NormOrder::General) return a + pow_of(abs_of(v), ord);
    else return combine(a, abs_of(v));
  }
  // The norm from the partial result of every element.
  __device__ static T finish(T a, T ord) {
    if constexpr (O == NormOrder::Two) {
      if constexpr (std::is_same_v<T, float>) return ::sqrtf(a);
      else return ::sqrt(a);
    } else if constexpr (O == NormOrder::General) {
      return pow_of(a, T(1) / ord);
    } else {
      return a;
    }
  }
};

}  // namespace hal_gpu
