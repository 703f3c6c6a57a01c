// The special functions among adapter_ops.def's elementwise ops (Bessel and Airy functions, the error
// function's inverses, the incomplete gamma functions, the orthogonal polynomials, nextafter): which ids they
// are and how each is evaluated, for elementwise_special.cu's kernels. They compute in double whatever the
// tensor's dtype (float32 results are then correctly rounded or nearly; float16 and bfloat16 arrive as float).
// They have kernels of their own, apart from the generic strided kernel of the other elementwise ops, whose
// register use and stack frame they would raise (64 registers and 96 bytes of stack for the float unary one,
// where the double argument reductions of sin and cos were inlined). The SPIR-V build, whose devices may lack
// doubles, compiles none of them: its planner refuses them (plan_elementwise.cpp) and they take the CPU fallback.
#pragma once

#include "kernels/gpu_runtime.h"
#if defined(__OPENCL_CPP_VERSION__)
#include "torch_hal/adapter_ops.h"
#else
#include <type_traits>

#include "kernels/bessel_functions.cuh"
#include "kernels/gaussian_functions.cuh"
#include "kernels/incomplete_gamma.cuh"
#include "kernels/orthogonal_polynomials.cuh"
#include "torch_hal/adapter.h"
#endif

namespace hal_gpu::ew {

// Whether OP is one of this header's functions.
constexpr bool is_special_function(int32_t op) {
  switch (op) {
    case HAL_OP_BESSEL_I0: case HAL_OP_BESSEL_I0E: case HAL_OP_BESSEL_I1: case HAL_OP_BESSEL_I1E:
    case HAL_OP_BESSEL_K0: case HAL_OP_BESSEL_K0E: case HAL_OP_BESSEL_K1: case HAL_OP_BESSEL_K1E:
    case HAL_OP_BESSEL_J0: case HAL_OP_BESSEL_J1: case HAL_OP_BESSEL_Y0: case HAL_OP_BESSEL_Y1:
    case HAL_OP_AIRY_AI: case HAL_OP_SPHERICAL_BESSEL_J0: case HAL_OP_ERFINV: case HAL_OP_NDTRI:
    case HAL_OP_LOG_NDTR: case HAL_OP_ERFCX: case HAL_OP_IGAMMA: case HAL_OP_IGAMMAC: case HAL_OP_NEXTAFTER:
    case HAL_OP_ORTHOGONAL_POLYNOMIAL:
      return true;
    default:
      return false;
  }
}

#if !defined(__OPENCL_CPP_VERSION__)
template <int OP, class T>
__device__ __forceinline__ T special_unary(T a) {
  namespace sp = hal_gpu::special;
  const double x = static_cast<double>(a);
  using Own = std::conditional_t<std::is_same_v<T, float>, float, double>;  // log_ndtr rounds as the CPU, in T
  double r = 0.0;
  if constexpr (OP == HAL_OP_BESSEL_I0) r = sp::bessel_i(x, 0, false);
  else if constexpr (OP == HAL_OP_BESSEL_I0E) r = sp::bessel_i(x, 0, true);
  else if constexpr (OP == HAL_OP_BESSEL_I1) r = sp::bessel_i(x, 1, false);
  else if constexpr (OP == HAL_OP_BESSEL_I1E) r = sp::bessel_i(x, 1, true);
  else if constexpr (OP == HAL_OP_BESSEL_K0) r = sp::bessel_k(x, 0, false);
  else if constexpr (OP == HAL_OP_BESSEL_K0E) r = sp::bessel_k(x, 0, true);
  else if constexpr (OP == HAL_OP_BESSEL_K1) r = sp::bessel_k(x, 1, false);
  else if constexpr (OP == HAL_OP_BESSEL_K1E) r = sp::bessel_k(x, 1, true);
  else if constexpr (OP == HAL_OP_BESSEL_J0) r = sp::bessel_j(x, 0);
  else if constexpr (OP == HAL_OP_BESSEL_J1) r = sp::bessel_j(x, 1);
  else if constexpr (OP == HAL_OP_BESSEL_Y0) r = sp::bessel_y(x, 0);
  else if constexpr (OP == HAL_OP_BESSEL_Y1) r = sp::bessel_y(x, 1);
  else if constexpr (OP == HAL_OP_AIRY_AI) r = sp::airy_ai(x);
  else if constexpr (OP == HAL_OP_SPHERICAL_BESSEL_J0) r = sp::spherical_bessel_j0(x);
  else if constexpr (OP == HAL_OP_ERFINV) r = sp::erfinv(x);
  else if constexpr (OP == HAL_OP_NDTRI) r = sp::ndtri(x);
  else if constexpr (OP == HAL_OP_LOG_NDTR) r = sp::log_ndtr<double, Own>(x);
  else if constexpr (OP == HAL_OP_ERFCX) r = sp::erfcx(x);
  return static_cast<T>(r);
}

// mode: the polynomial (special::Polynomial) for ORTHOGONAL_POLYNOMIAL, plus 8 for the shifted Chebyshev kinds.
template <int OP, class T>
__device__ __forceinline__ T special_binary(T a, T b, int32_t mode) {
  namespace sp = hal_gpu::special;
  if constexpr (OP == HAL_OP_NEXTAFTER) {
    if constexpr (std::is_same_v<T, float>) return ::nextafterf(a, b);
    else return static_cast<T>(::nextafter(static_cast<double>(a), static_cast<double>(b)));
  } else {
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    double r = 0.0;
    if constexpr (OP == HAL_OP_IGAMMA) r = sp::regularized_gamma(x, y, false);
    else if constexpr (OP == HAL_OP_IGAMMAC) r = sp::regularized_gamma(x, y, true);
    else if constexpr (OP == HAL_OP_ORTHOGONAL_POLYNOMIAL) {
      // PyTorch's Hermite limit depends on the compute type: NaN above degree 128 in float, 512 in double.
      const int64_t hermite_nan_above = std::is_same_v<T, float> ? 128 : 512;
      // The Hermite recurrences run in float for float, as the CPU's (orthogonal_polynomials.cuh).
      using Recurrence = std::conditional_t<std::is_same_v<T, float>, float, double>;
      r = sp::orthogonal_polynomial<double, Recurrence>(static_cast<sp::Polynomial>(mode % 8), mode >= 8, x, y,
                                                        hermite_nan_above);
    }
    return static_cast<T>(r);
  }
}

// The special function `op` of this arity at v (0 for other ids, which never come here).
template <int ARITY, class T>
__device__ __forceinline__ T apply_special_runtime(int32_t op, const T* v, int32_t mode) {
  switch (op) {
#define HAL_SPECIAL_UNARY(NAME) \
  case HAL_OP_##NAME:           \
    if constexpr (ARITY == 1) return special_unary<HAL_OP_##NAME, T>(v[0]); \
    break;
    HAL_SPECIAL_UNARY(BESSEL_I0) HAL_SPECIAL_UNARY(BESSEL_I0E) HAL_SPECIAL_UNARY(BESSEL_I1)
    HAL_SPECIAL_UNARY(BESSEL_I1E) HAL_SPECIAL_UNARY(BESSEL_K0) HAL_SPECIAL_UNARY(BESSEL_K0E)
    HAL_SPECIAL_UNARY(BESSEL_K1) HAL_SPECIAL_UNARY(BESSEL_K1E) HAL_SPECIAL_UNARY(BESSEL_J0)
    HAL_SPECIAL_UNARY(BESSEL_J1) HAL_SPECIAL_UNARY(BESSEL_Y0) HAL_SPECIAL_UNARY(BESSEL_Y1)
    HAL_SPECIAL_UNARY(AIRY_AI) HAL_SPECIAL_UNARY(SPHERICAL_BESSEL_J0) HAL_SPECIAL_UNARY(ERFINV)
    HAL_SPECIAL_UNARY(NDTRI) HAL_SPECIAL_UNARY(LOG_NDTR) HAL_SPECIAL_UNARY(ERFCX)
#undef HAL_SPECIAL_UNARY
#define HAL_SPECIAL_BINARY(NAME) \
  case HAL_OP_##NAME:            \
    if constexpr (ARITY == 2) return special_binary<HAL_OP_##NAME, T>(v[0], v[1], mode); \
    break;
    HAL_SPECIAL_BINARY(NEXTAFTER) HAL_SPECIAL_BINARY(IGAMMA) HAL_SPECIAL_BINARY(IGAMMAC)
    HAL_SPECIAL_BINARY(ORTHOGONAL_POLYNOMIAL)
#undef HAL_SPECIAL_BINARY
    default: break;
  }
  return T(0);
}
#endif

}  // namespace hal_gpu::ew
