// The math of every elementwise op of adapter.h, once, in the compute type T (float, double or int64_t).
// Both the generic strided kernels (runtime op id) and the vectorized fast path (op id as a template
// argument) call these functions, so each op has one definition. Semantics follow PyTorch's CUDA kernels:
// NaN propagates through maximum/minimum/clamp, remainder takes the divisor's sign, round is half to even.
#pragma once

#include "kernels/gpu_runtime.h"
#if defined(__OPENCL_CPP_VERSION__)  // SPIR-V: the op ids alone (OpenCL refuses adapter.h's function table)
#include "torch_hal/adapter_ops.h"
#else
#include <cstdint>
#include <type_traits>

#include "torch_hal/adapter.h"
#endif

namespace hal_gpu::ew {

// The op's own scalars, converted once on the host: s0 is alpha / negative_slope / threshold / value;
// mode is DIV's rounding (0 true, 1 trunc, 2 floor) or GELU's approximation (0 erf, 1 tanh).
template <class T>
struct Params {
  T s0 = T(0);
  int32_t mode = 0;
};

// Which compute types an op accepts: the host refuses other combinations before launching.
enum class Domain : uint8_t { Any, FloatOnly, IntOnly };
// The op's own scalar, after its scalar operands: none, a number (alpha), or an integer choice (DIV's rounding).
enum class Scalar : uint8_t { None, Value, Mode };
// Whether a 16-byte-per-thread kernel exists for the op (elementwise_vectorized.cu).
enum class Path : uint8_t { Generic, Vectorized };

struct OpInfo {
  int32_t arity = 0;  // number of inputs; 0 for ids that are not elementwise math (FILL, ARANGE, other families)
  Domain domain = Domain::Any;
  int32_t own_scalars = 0;  // how many of the op's own scalars follow the scalar operands (0 or 1)
  Scalar scalar = Scalar::None;
  Path path = Path::Generic;
};

// adapter_ops.def's HAL_ELEMENTWISE_OP lines.
constexpr OpInfo op_info(int32_t op) {
  switch (op) {
#define HAL_ELEMENTWISE_OP(NAME, id, arity, domain, scalar, path) \
  case HAL_OP_##NAME:                                             \
    return {arity, Domain::domain, Scalar::scalar == Scalar::None ? 0 : 1, Scalar::scalar, Path::path};
#include "torch_hal/adapter_ops.def"
  }
  return {};
}

template <class T>
constexpr bool kFloat = std::is_floating_point_v<T>;

// float and double math under one name (the float forms are the single-precision library functions,
// as PyTorch's CUDA kernels use for float and for f16/bf16 computed in float).
#define HAL_EW_MATH1(name)                                        \
  template <class T>                                              \
  __device__ __forceinline__ T m_##name(T x) {                    \
    if constexpr (std::is_same_v<T, float>) return ::name##f(x);  \
    else return ::name(x);                                        \
  }
HAL_EW_MATH1(exp)
HAL_EW_MATH1(log)
HAL_EW_MATH1(sqrt)
HAL_EW_MATH1(rsqrt)
HAL_EW_MATH1(sin)
HAL_EW_MATH1(cos)
HAL_EW_MATH1(tanh)
HAL_EW_MATH1(floor)
HAL_EW_MATH1(ceil)
HAL_EW_MATH1(rint)
HAL_EW_MATH1(trunc)
HAL_EW_MATH1(log1p)
HAL_EW_MATH1(expm1)
HAL_EW_MATH1(erf)
HAL_EW_MATH1(log2)
HAL_EW_MATH1(exp2)
HAL_EW_MATH1(fabs)
#undef HAL_EW_MATH1

#define HAL_EW_MATH2(name)                                          \
  template <class T>                                                \
  __device__ __forceinline__ T m_##name(T a, T b) {                 \
    if constexpr (std::is_same_v<T, float>) return ::name##f(a, b); \
    else return ::name(a, b);                                       \
  }
HAL_EW_MATH2(pow)
HAL_EW_MATH2(fmod)
HAL_EW_MATH2(atan2)
HAL_EW_MATH2(copysign)
#undef HAL_EW_MATH2

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (kFloat<T>) return v != v;
  else return false;
}

// maximum / minimum as PyTorch: a NaN in either operand is the result.
template <class T>
__device__ __forceinline__ T max_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a > b ? a : b;
}
template <class T>
__device__ __forceinline__ T min_nan(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? a : b;
}

// Integer power by squaring; negative exponents give 0 except for bases 1 and -1 (as PyTorch).
__device__ __forceinline__ int64_t ipow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  while (exp) {
    if (exp & 1) result *= base;
    exp >>= 1;
    base *= base;
  }
  return result;
}

// Python's floor division on floats: the quotient of the exact remainder, rounded toward -inf, and the
// IEEE result when dividing by zero.
template <class T>
__device__ __forceinline__ T floor_divide(T a, T b) {
  if constexpr (kFloat<T>) {
    if (b == T(0)) return a / b;
    const T mod = m_fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return m_copysign(T(0), a / b);
    T floored = m_floor(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  } else {
    if (b == 0) return 0;  // undefined in PyTorch on CUDA too; never trap
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
}

template <class T>
__device__ __forceinline__ T sigmoid(T x) {
  return T(1) / (T(1) + m_exp(-x));
}

// sqrt(2 / pi) and 1 / sqrt(2 pi), 1 / sqrt(2): GELU's constants.
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kGeluKappa = 0.044715;

template <class T>
__device__ __forceinline__ T gelu(T x, int32_t approximate) {
  if (approximate == 1) {
    const T inner = T(kSqrt2OverPi) * (x + T(kGeluKappa) * x * x * x);
    return T(0.5) * x * (T(1) + m_tanh(inner));
  }
  return x * T(0.5) * (T(1) + m_erf(x * T(kInvSqrt2)));
}

template <class T>
__device__ __forceinline__ T gelu_backward(T dy, T x, int32_t approximate) {
  if (approximate == 1) {
    const T x_sq = x * x;
    const T inner = T(kSqrt2OverPi) * (x + T(kGeluKappa) * x_sq * x);
    const T tanh_inner = m_tanh(inner);
    const T left = T(0.5) * x;
    const T right = T(1) + tanh_inner;
    const T inner_derivative = T(kSqrt2OverPi) * (T(1) + T(3) * T(kGeluKappa) * x_sq);
    const T right_derivative = left * (T(1) - tanh_inner * tanh_inner) * inner_derivative;
    return dy * (T(0.5) * right + right_derivative);
  }
  const T cdf = T(0.5) * (T(1) + m_erf(x * T(kInvSqrt2)));
  const T pdf = m_exp(T(-0.5) * x * x) * T(kInvSqrt2Pi);
  return dy * (cdf + x * pdf);
}

// hardswish's and hardsigmoid's gate, min(max(x + 3, 0), 6), with std::min/std::max's NaN behaviour (PyTorch's
// kernels use them): a NaN x gives NaN.
template <class T>
__device__ __forceinline__ T hard_gate(T x) {
  const T r = x + T(3);
  const T low = r < T(0) ? T(0) : r;
  return T(6) < low ? T(6) : low;
}

template <int OP, class T>
__device__ __forceinline__ T unary_op(T a, const Params<T>& p) {
  if constexpr (OP == HAL_OP_COPY) return a;
  else if constexpr (OP == HAL_OP_RELU) return (a > T(0) || is_nan(a)) ? a : T(0);
  else if constexpr (OP == HAL_OP_NEG) return -a;
  else if constexpr (OP == HAL_OP_ABS) {
    if constexpr (kFloat<T>) return m_fabs(a);
    else return a < 0 ? -a : a;
  } else if constexpr (OP == HAL_OP_FLOOR || OP == HAL_OP_CEIL || OP == HAL_OP_ROUND || OP == HAL_OP_TRUNC) {
    if constexpr (!kFloat<T>) return a;  // integers are their own floor
    else if constexpr (OP == HAL_OP_FLOOR) return m_floor(a);
    else if constexpr (OP == HAL_OP_CEIL) return m_ceil(a);
    else if constexpr (OP == HAL_OP_ROUND) return m_rint(a);  // half to even in the default rounding mode
    else return m_trunc(a);
  } else if constexpr (OP == HAL_OP_SIGN) return T((T(0) < a) - (a < T(0)));  // NaN -> 0, as PyTorch
  else if constexpr (OP == HAL_OP_LOGICAL_NOT) return T(a == T(0));
  else if constexpr (OP == HAL_OP_ISNAN) return T(is_nan(a));
  else if constexpr (OP == HAL_OP_ISINF) {
    if constexpr (kFloat<T>) return T(::isinf(a));
    else return T(0);
  } else if constexpr (OP == HAL_OP_SQUARE) return a * a;
  else if constexpr (OP == HAL_OP_BITWISE_NOT) {
    if constexpr (kFloat<T>) return T(0);  // refused on the host
    else return ~a;
  } else if constexpr (!kFloat<T>) {
    return T(0);  // float-only ops are refused on the host for integer compute types
  } else if constexpr (OP == HAL_OP_EXP) return m_exp(a);
  else if constexpr (OP == HAL_OP_LOG) return m_log(a);
  else if constexpr (OP == HAL_OP_SQRT) return m_sqrt(a);
  else if constexpr (OP == HAL_OP_RSQRT) return m_rsqrt(a);
  else if constexpr (OP == HAL_OP_SIN) return m_sin(a);
  else if constexpr (OP == HAL_OP_COS) return m_cos(a);
  else if constexpr (OP == HAL_OP_TANH) return m_tanh(a);
  else if constexpr (OP == HAL_OP_SIGMOID) return sigmoid(a);
  else if constexpr (OP == HAL_OP_GELU) return gelu(a, p.mode);
  else if constexpr (OP == HAL_OP_SILU) return a / (T(1) + m_exp(-a));
  else if constexpr (OP == HAL_OP_RECIPROCAL) return T(1) / a;
  else if constexpr (OP == HAL_OP_LOG1P) return m_log1p(a);
  else if constexpr (OP == HAL_OP_EXPM1) return m_expm1(a);
  else if constexpr (OP == HAL_OP_ERF) return m_erf(a);
  else if constexpr (OP == HAL_OP_LOG2) return m_log2(a);
  else if constexpr (OP == HAL_OP_EXP2) return m_exp2(a);
  else if constexpr (OP == HAL_OP_LEAKY_RELU) return a > T(0) ? a : a * p.s0;
  else if constexpr (OP == HAL_OP_HARDSWISH) return a * hard_gate(a) / T(6);
  else if constexpr (OP == HAL_OP_HARDSIGMOID) return hard_gate(a) / T(6);
  else return T(0);
}

template <int OP, class T>
__device__ __forceinline__ T binary_op(T a, T b, const Params<T>& p) {
  if constexpr (OP == HAL_OP_ADD) return a + p.s0 * b;
  else if constexpr (OP == HAL_OP_SUB) return a - p.s0 * b;
  else if constexpr (OP == HAL_OP_MUL) return a * b;
  else if constexpr (OP == HAL_OP_DIV) {
    if (p.mode == 2) return floor_divide(a, b);
    if constexpr (kFloat<T>) {
      return p.mode == 1 ? m_trunc(a / b) : a / b;
    } else {
      return b == 0 ? T(0) : a / b;  // integer division truncates; never trap on zero
    }
  } else if constexpr (OP == HAL_OP_POW) {
    if constexpr (kFloat<T>) {
      // The exponents PyTorch's CUDA kernel special-cases, with the same (exactly rounded) results.
      if (b == T(2)) return a * a;
      if (b == T(0.5)) return m_sqrt(a);
      return m_pow(a, b);
    } else {
      return ipow(a, b);
    }
  } else if constexpr (OP == HAL_OP_MAXIMUM || OP == HAL_OP_CLAMP_MIN) return max_nan(a, b);
  else if constexpr (OP == HAL_OP_MINIMUM || OP == HAL_OP_CLAMP_MAX) return min_nan(a, b);
  else if constexpr (OP == HAL_OP_REMAINDER) {
    if constexpr (kFloat<T>) {
      T mod = m_fmod(a, b);
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) mod += b;
      return mod;
    } else {
      if (b == 0) return 0;
      T mod = a % b;
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    }
  } else if constexpr (OP == HAL_OP_FMOD) {
    if constexpr (kFloat<T>) return m_fmod(a, b);
    else return b == 0 ? T(0) : a % b;
  } else if constexpr (OP == HAL_OP_EQ) return T(a == b);
  else if constexpr (OP == HAL_OP_NE) return T(a != b);
  else if constexpr (OP == HAL_OP_LT) return T(a < b);
  else if constexpr (OP == HAL_OP_LE) return T(a <= b);
  else if constexpr (OP == HAL_OP_GT) return T(a > b);
  else if constexpr (OP == HAL_OP_GE) return T(a >= b);
  else if constexpr (OP == HAL_OP_LOGICAL_AND) return T((a != T(0)) && (b != T(0)));
  else if constexpr (OP == HAL_OP_LOGICAL_OR) return T((a != T(0)) || (b != T(0)));
  else if constexpr (OP == HAL_OP_LOGICAL_XOR) return T((a != T(0)) != (b != T(0)));
  else if constexpr (OP == HAL_OP_THRESHOLD_BACKWARD) return b <= p.s0 ? T(0) : a;
  else if constexpr (OP == HAL_OP_BITWISE_AND || OP == HAL_OP_BITWISE_OR || OP == HAL_OP_BITWISE_XOR) {
    if constexpr (kFloat<T>) return T(0);  // refused on the host
    else if constexpr (OP == HAL_OP_BITWISE_AND) return a & b;
    else if constexpr (OP == HAL_OP_BITWISE_OR) return a | b;
    else return a ^ b;
  } else if constexpr (!kFloat<T>) {
    return T(0);  // float-only ops are refused on the host for integer compute types
  } else if constexpr (OP == HAL_OP_ATAN2) return m_atan2(a, b);
  else if constexpr (OP == HAL_OP_GELU_BACKWARD) return gelu_backward(a, b, p.mode);
  else if constexpr (OP == HAL_OP_SIGMOID_BACKWARD) return a * (T(1) - b) * b;
  else if constexpr (OP == HAL_OP_TANH_BACKWARD) return a * (T(1) - b * b);
  else if constexpr (OP == HAL_OP_SILU_BACKWARD) {
    const T s = sigmoid(b);
    return a * s * (T(1) + b * (T(1) - s));
  } else if constexpr (OP == HAL_OP_LEAKY_RELU_BACKWARD) return b > T(0) ? a : a * p.s0;
  else if constexpr (OP == HAL_OP_HARDSWISH_BACKWARD) {
    // The corners as PyTorch's current CPU and CUDA kernels: 0 at -3, the outer slope 1 at 3.
    if (b <= T(-3)) return T(0);
    return b < T(3) ? a * (b / T(3) + T(0.5)) : a;
  } else if constexpr (OP == HAL_OP_HARDSIGMOID_BACKWARD) {
    // 1/6 rounded to float, as PyTorch's kernels (a float64 gradient matches theirs bit for bit).
    return (b > T(-3) && b < T(3)) ? a * T(1.0f / 6.0f) : T(0);
  } else return T(0);
}

template <int OP, class T>
__device__ __forceinline__ T ternary_op(T a, T b, T c, const Params<T>& p) {
  if constexpr (OP == HAL_OP_WHERE) return a != T(0) ? b : c;
  else if constexpr (OP == HAL_OP_CLAMP) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    if (is_nan(c)) return c;
    const T lo = a > b ? a : b;
    return lo < c ? lo : c;
  } else if constexpr (OP == HAL_OP_ADDCMUL) return a + p.s0 * b * c;
  else if constexpr (!kFloat<T>) return T(0);  // refused on the host
  else if constexpr (OP == HAL_OP_ADDCDIV) return a + p.s0 * (b / c);
  else if constexpr (OP == HAL_OP_LERP) {
    // The two forms keep the result exact at both ends of the weight range, as PyTorch's lerp.
    const T diff = b - a;
    return m_fabs(c) < T(0.5) ? a + c * diff : b - diff * (T(1) - c);
  } else return T(0);
}

// One entry point for every arity: v holds the op's inputs in order.
template <int OP, class T>
__device__ __forceinline__ T apply_op(const T* v, const Params<T>& p) {
  constexpr int arity = op_info(OP).arity;
  if constexpr (arity == 1) return unary_op<OP, T>(v[0], p);
  else if constexpr (arity == 2) return binary_op<OP, T>(v[0], v[1], p);
  else return ternary_op<OP, T>(v[0], v[1], v[2], p);
}

// The op chosen at run time (the branch is uniform across a launch, so it costs no divergence): every
// elementwise op of adapter_ops.def of this arity.
template <int ARITY, class T>
__device__ __forceinline__ T apply_runtime(int32_t op, const T* v, const Params<T>& p) {
  switch (op) {
#define HAL_ELEMENTWISE_OP(NAME, id, arity, domain, scalar, path) \
  case HAL_OP_##NAME:                                             \
    if constexpr (arity == ARITY) return apply_op<HAL_OP_##NAME, T>(v, p);  \
    break;
#include "torch_hal/adapter_ops.def"
  }
  return T(0);
}

// ARANGE's element i, start + i * step, in the compute type (float for float32, float16 and bfloat16 outputs,
// double for float64, int64_t for integers), as PyTorch's CUDA kernel computes it.
template <class T>
__device__ __forceinline__ T arange_at(T start, T step, int64_t i) {
  return start + static_cast<T>(i) * step;
}

}  // namespace hal_gpu::ew
