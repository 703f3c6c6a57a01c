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

// The op's own scalars, converted once on the host: s0..s2 the numbers (alpha / negative_slope / threshold /
// value; softplus's beta and threshold; elu's alpha, scale and input_scale), in adapter_ops.def's order; mode is
// DIV's rounding (0 true, 1 trunc, 2 floor), GELU's approximation (0 erf, 1 tanh) or ELU_BACKWARD's is_result.
// The SPIR-V kernels take it by value as a kernel argument: plain fields only, the same layout on both sides.
template <class T>
struct Params {
  T s0 = T(0);
  T s1 = T(0);
  T s2 = T(0);
  int32_t mode = 0;
};

// Which compute types an op accepts: the host refuses other combinations before launching.
enum class Domain : uint8_t { Any, FloatOnly, IntOnly };
// The op's own scalars, after its scalar operands: none, one to three numbers (alpha; softplus's beta and
// threshold; elu's three), an integer choice (DIV's rounding), or three numbers and then a choice (elu's backward).
enum class Scalar : uint8_t { None, Value, Values2, Values3, Mode, Values3Mode };

// How many own scalars an op of this kind takes.
constexpr int32_t own_scalar_count(Scalar s) {
  switch (s) {
    case Scalar::None: return 0;
    case Scalar::Value: case Scalar::Mode: return 1;
    case Scalar::Values2: return 2;
    case Scalar::Values3: return 3;
    case Scalar::Values3Mode: return 4;
  }
  return 0;
}
// Whether a 16-byte-per-thread kernel exists for the op (elementwise_vectorized.cu).
enum class Path : uint8_t { Generic, Vectorized };

struct OpInfo {
  int32_t arity = 0;  // number of inputs; 0 for ids that are not elementwise math (FILL, ARANGE, other families)
  Domain domain = Domain::Any;
  int32_t own_scalars = 0;  // how many of the op's own scalars follow the scalar operands (0..4)
  Scalar scalar = Scalar::None;
  Path path = Path::Generic;
};

// adapter_ops.def's HAL_ELEMENTWISE_OP lines.
constexpr OpInfo op_info(int32_t op) {
  switch (op) {
#define HAL_ELEMENTWISE_OP(NAME, id, arity, domain, scalar, path) \
  case HAL_OP_##NAME:                                             \
    return {arity, Domain::domain, own_scalar_count(Scalar::scalar), Scalar::scalar, Path::path};
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
HAL_EW_MATH1(asin)
HAL_EW_MATH1(acos)
HAL_EW_MATH1(atan)
HAL_EW_MATH1(sinh)
HAL_EW_MATH1(cosh)
HAL_EW_MATH1(tan)
HAL_EW_MATH1(asinh)
HAL_EW_MATH1(acosh)
HAL_EW_MATH1(atanh)
HAL_EW_MATH1(log10)
HAL_EW_MATH1(erfc)
HAL_EW_MATH1(lgamma)
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
HAL_EW_MATH2(hypot)
HAL_EW_MATH2(fmax)
HAL_EW_MATH2(fmin)
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

// pi and 1 / ln 2, as PyTorch's kernels round them to the compute type.
constexpr double kPi = 3.14159265358979323846;
constexpr double kInvLn2 = 1.44269504088896340736;

// softplus (beta x > threshold: x itself) and its derivative, as PyTorch's CUDA kernels.
template <class T>
__device__ __forceinline__ T softplus(T x, T beta, T threshold) {
  return x * beta > threshold ? x : m_log1p(m_exp(x * beta)) / beta;
}
template <class T>
__device__ __forceinline__ T softplus_backward(T dy, T x, T beta, T threshold) {
  const T z = m_exp(x * beta);
  return x * beta > threshold ? dy : dy * z / (z + T(1));
}

// log(sigmoid(x)) without overflow: min(x, 0) - log1p(exp(-|x|)); its derivative 1 - sigmoid(x) as PyTorch's CUDA
// kernel writes it from the same exp(-|x|).
template <class T>
__device__ __forceinline__ T log_sigmoid(T x) {
  const T low = x < T(0) ? x : T(0);
  return low - m_log1p(m_exp(-m_fabs(x)));
}
template <class T>
__device__ __forceinline__ T log_sigmoid_backward(T dy, T x) {
  const bool negative = x < T(0);
  const T z = m_exp(-m_fabs(x));
  return dy * ((negative ? T(1) : T(0)) - (negative ? T(1) : T(-1)) * (z / (T(1) + z)));
}

// elu with scale and input_scale (selu and celu are elu with fixed coefficients); the backward takes the input,
// or the output where is_result (an in-place forward overwrote the input).
template <class T>
__device__ __forceinline__ T elu(T x, T alpha, T scale, T input_scale) {
  return x <= T(0) ? m_expm1(x * input_scale) * alpha * scale : x * scale;
}
template <class T>
__device__ __forceinline__ T elu_backward(T dy, T x, T alpha, T scale, T input_scale, int32_t is_result) {
  const T negcoef = alpha * scale;
  if (!(x <= T(0))) return dy * scale;  // a NaN x takes the positive side, as in PyTorch's kernels
  return is_result ? dy * input_scale * (x + negcoef) : dy * input_scale * negcoef * m_exp(x * input_scale);
}

template <class T>
__device__ __forceinline__ T mish(T x) {
  return x * m_tanh(m_log1p(m_exp(x)));
}

// logit with an optional clamp (eps < 0: none) and its derivative: 0 outside [eps, 1 - eps] with a clamp, NaN
// outside [0, 1] without.
template <class T>
__device__ __forceinline__ T logit(T x, T eps) {
  const T z = eps < T(0) ? x : (x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x));
  return m_log(z / (T(1) - z));
}
template <class T>
__device__ __forceinline__ T logit_backward(T dy, T x, T eps) {
  const T low = eps < T(0) ? T(0) : eps;
  const T high = eps < T(0) ? T(1) : T(1) - eps;
  if (x < low || x > high) return eps < T(0) ? T(NAN) : T(0);
  return dy / (x * (T(1) - x));
}

// Euclid's algorithm on |a| and |b|.
template <class T>
__device__ __forceinline__ T gcd(T a, T b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (a != 0) {
    const T c = a;
    a = b % a;
    b = c;
  }
  return b;
}

// digamma: the reflection psi(x) = psi(1 - x) - pi / tan(pi x) below 0 (tan's period taken out first, so its
// argument is within pi / 2 and keeps float32's precision: PyTorch's CPU kernel computes this term in double),
// the recurrence psi(x) = psi(x + 1) - 1 / x up to 10, then the asymptotic series log(x) - 1 / (2x) - sum over
// k of B_2k / (2k x^2k), k = 1..7 (B_2k the Bernoulli numbers).
template <class T>
__device__ __forceinline__ T digamma(T x) {
  if (x == T(0)) return m_copysign(T(INFINITY), -x);
  T result = T(0);
  if (x < T(0)) {
    if (x == m_trunc(x)) return T(NAN);
    result = -T(kPi) / m_tan(T(kPi) * (x - m_rint(x)));
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  const T y = T(1) / (x * x);
  const T series =
      y * (T(1.0 / 12) +
           y * (T(-1.0 / 120) +
                y * (T(1.0 / 252) + y * (T(-1.0 / 240) + y * (T(1.0 / 132) + y * (T(-691.0 / 32760) + y * T(1.0 / 12)))))));
  return result + m_log(x) - T(0.5) / x - series;
}

// Hurwitz zeta(s, q) = sum over k >= 0 of (q + k)^-s: the first terms summed until q + k passes 9 (at least 9
// of them), then the Euler-Maclaurin remainder w^(1-s) / (s - 1) - w^-s / 2 + sum over j of B_2j / (2j)!
// s (s+1) ... (s+2j-2) w^(-s-2j+1), w the first term left out. Integer s allows negative q.
template <class T>
__device__ __forceinline__ T zeta(T s, T q) {
  const T eps = std::is_same_v<T, float> ? T(1.2e-7) : T(1.2e-16);
  if (s == T(1)) return T(INFINITY);
  if (s < T(1)) return T(NAN);
  if (q <= T(0)) {
    if (q == m_floor(q)) return T(INFINITY);
    if (s != m_floor(s)) return T(NAN);
  }
  // (No early exit from either loop: llvm-spirv-15 writes loops with a conditional break in an order that
  // spirv-val rejects; the terms past convergence add nothing.)
  // Terms k = 0..leading-1 summed: at least 10, and until q + k passes 9 (at most 2^20 of them: a q below
  // -2^20 loses accuracy instead of looping for ever).
  const int leading = !(q < T(0)) ? 10 : (q < T(-1048576) ? 1048576 : 10 + static_cast<int>(-q));
  T sum = T(0);
  for (int k = 0; k < leading; ++k) sum += m_pow(q + T(k), -s);
  const T w = q + T(leading);
  const T term = m_pow(w, -s);
  sum += term;
  sum += term * w / (s - T(1)) - T(0.5) * term;
  // (2j)! / B_2j for j = 1..12, in T (the SPIR-V modules use no double; a switch over j gives llvm-spirv-15 an
  // i31 it refuses).
  const T factorial_over_bernoulli[12] = {
      T(12.0), T(-720.0), T(30240.0), T(-1209600.0), T(47900160.0), T(-1.8924375803183791606e9), T(7.47242496e10),
      T(-2.950130727918164224e12), T(1.1646782814350067249e14), T(-4.5979787224074726105e15),
      T(1.8152105401943546773e17), T(-7.1661652561756670113e18)};
  T rising = s;         // s (s+1) ... (s+2j-2)
  T power = term / w;   // w^(-s-2j+1)
  bool converged = false;
  for (int j = 0; j < 12; ++j) {
    const T correction = rising * power / factorial_over_bernoulli[j];
    if (!converged) sum += correction;
    converged = converged || m_fabs(correction / sum) < eps;
    rising *= (s + T(2 * j + 1)) * (s + T(2 * j + 2));
    power /= w * w;
  }
  return sum;
}

// trigamma, polygamma(1, x), as PyTorch computes it (its results at and near the poles included): the
// reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) below 1/2, six steps of psi1(x) = psi1(x + 1) + 1 / x^2,
// then the asymptotic series (1 + 1 / (2x) + 1 / (6x^2) - 1 / (30x^4) + 1 / (42x^6)) / x.
template <class T>
__device__ __forceinline__ T trigamma(T x) {
  T sign = T(1);
  T result = T(0);
  if (x < T(0.5)) {
    sign = T(-1);
    const T s = m_sin(T(kPi) * x);
    result -= T(kPi) * T(kPi) / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1.0 / 6) - ixx * (T(1.0 / 30) - ixx * T(1.0 / 42)))) / x;
  return sign * result;
}

// polygamma(n, x) for n >= 1: trigamma for 1, else (-1)^(n+1) n! zeta(n + 1, x).
template <class T>
__device__ __forceinline__ T polygamma(int32_t n, T x) {
  if (n == 1) return trigamma(x);
  T factorial = T(1);
  for (int32_t k = 2; k <= n; ++k) factorial *= T(k);
  return (n % 2 ? T(1) : T(-1)) * factorial * zeta(T(n + 1), x);
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
  else if constexpr (OP == HAL_OP_SIGNBIT) {
    if constexpr (kFloat<T>) return T(m_copysign(T(1), a) < T(0));  // -0.0 and a negative NaN included
    else return T(a < T(0));
  } else if constexpr (OP == HAL_OP_BITWISE_NOT) {
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
  else if constexpr (OP == HAL_OP_ASIN) return m_asin(a);
  else if constexpr (OP == HAL_OP_ACOS) return m_acos(a);
  else if constexpr (OP == HAL_OP_ATAN) return m_atan(a);
  else if constexpr (OP == HAL_OP_SINH) return m_sinh(a);
  else if constexpr (OP == HAL_OP_COSH) return m_cosh(a);
  else if constexpr (OP == HAL_OP_TAN) return m_tan(a);
  else if constexpr (OP == HAL_OP_ASINH) return m_asinh(a);
  else if constexpr (OP == HAL_OP_ACOSH) return m_acosh(a);
  else if constexpr (OP == HAL_OP_ATANH) return m_atanh(a);
  else if constexpr (OP == HAL_OP_LOG10) return m_log10(a);
  else if constexpr (OP == HAL_OP_ERFC) return m_erfc(a);
  else if constexpr (OP == HAL_OP_LGAMMA) return m_lgamma(a);
  else if constexpr (OP == HAL_OP_SINC) {
    if (a == T(0)) return T(1);
    const T product = T(kPi) * a;
    return m_sin(product) / product;
  } else if constexpr (OP == HAL_OP_FRAC) return a - m_trunc(a);
  else if constexpr (OP == HAL_OP_LOGIT) return logit(a, p.s0);
  else if constexpr (OP == HAL_OP_MISH) return mish(a);
  else if constexpr (OP == HAL_OP_LOG_SIGMOID) return log_sigmoid(a);
  else if constexpr (OP == HAL_OP_SOFTPLUS) return softplus(a, p.s0, p.s1);
  else if constexpr (OP == HAL_OP_ELU) return elu(a, p.s0, p.s1, p.s2);
  else if constexpr (OP == HAL_OP_NAN_TO_NUM) {
    if (is_nan(a)) return p.s0;
    if (a == T(INFINITY)) return p.s1;
    if (a == T(-INFINITY)) return p.s2;
    return a;
  } else if constexpr (OP == HAL_OP_SOFTSHRINK) {
    if (is_nan(a)) return a;
    return a > p.s0 ? a - p.s0 : (a < -p.s0 ? a + p.s0 : T(0));
  } else if constexpr (OP == HAL_OP_HARDSHRINK) return (a >= -p.s0 && a <= p.s0) ? T(0) : a;
  else if constexpr (OP == HAL_OP_ENTR) {
    if (is_nan(a)) return a;
    if (a > T(0)) return -a * m_log(a);
    return a == T(0) ? T(0) : T(-INFINITY);
  } else if constexpr (OP == HAL_OP_ANGLE) {
    if (is_nan(a)) return a;
    return a < T(0) ? T(kPi) : T(0);
  } else if constexpr (OP == HAL_OP_DIGAMMA) return digamma(a);
  else if constexpr (OP == HAL_OP_POLYGAMMA) return polygamma(p.mode, a);
  else return T(0);  // the special functions (elementwise_special.cuh) run in kernels of their own
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
  else if constexpr (OP == HAL_OP_FMAX || OP == HAL_OP_FMIN) {
    if constexpr (kFloat<T>) return OP == HAL_OP_FMAX ? m_fmax(a, b) : m_fmin(a, b);
    else return (OP == HAL_OP_FMAX) == (a > b) ? a : b;
  } else if constexpr (OP == HAL_OP_HEAVISIDE) return a == T(0) ? b : T(a > T(0));
  else if constexpr (OP == HAL_OP_BITWISE_AND || OP == HAL_OP_BITWISE_OR || OP == HAL_OP_BITWISE_XOR ||
                     OP == HAL_OP_LEFT_SHIFT || OP == HAL_OP_RIGHT_SHIFT || OP == HAL_OP_GCD || OP == HAL_OP_LCM) {
    if constexpr (kFloat<T>) return T(0);  // refused on the host
    else if constexpr (OP == HAL_OP_BITWISE_AND) return a & b;
    else if constexpr (OP == HAL_OP_BITWISE_OR) return a | b;
    else if constexpr (OP == HAL_OP_BITWISE_XOR) return a ^ b;
    // Shifts in the int64 compute type: a narrower dtype's wrap comes from the cast to it, as PyTorch's kernels
    // (which shift in the dtype) give for every shift below 64.
    else if constexpr (OP == HAL_OP_LEFT_SHIFT) return (b < 0 || b >= 64) ? T(0) : T(static_cast<uint64_t>(a) << b);
    else if constexpr (OP == HAL_OP_RIGHT_SHIFT) return (b < 0 || b >= 64) ? T(a >> 63) : T(a >> b);
    else if constexpr (OP == HAL_OP_GCD) return gcd(a, b);
    else {
      const T g = gcd(a, b);
      if (g == 0) return T(0);
      const T l = a / g * b;
      return l < 0 ? -l : l;
    }
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
  } else if constexpr (OP == HAL_OP_LOGADDEXP || OP == HAL_OP_LOGADDEXP2) {
    if (m_fabs(a) == T(INFINITY) && a == b) return a;  // inf - inf would be NaN
    const T high = a > b ? a : b;
    if constexpr (OP == HAL_OP_LOGADDEXP) return high + m_log1p(m_exp(-m_fabs(a - b)));
    else return high + m_log1p(m_exp2(-m_fabs(a - b))) * T(kInvLn2);
  } else if constexpr (OP == HAL_OP_XLOGY || OP == HAL_OP_XLOG1PY) {
    if (is_nan(b)) return b;
    if (a == T(0)) return T(0);
    return a * (OP == HAL_OP_XLOGY ? m_log(b) : m_log1p(b));
  } else if constexpr (OP == HAL_OP_COPYSIGN) return m_copysign(a, b);
  else if constexpr (OP == HAL_OP_HYPOT) return m_hypot(a, b);
  else if constexpr (OP == HAL_OP_ZETA) return zeta(a, b);
  else if constexpr (OP == HAL_OP_SOFTPLUS_BACKWARD) return softplus_backward(a, b, p.s0, p.s1);
  else if constexpr (OP == HAL_OP_LOG_SIGMOID_BACKWARD) return log_sigmoid_backward(a, b);
  else if constexpr (OP == HAL_OP_ELU_BACKWARD) return elu_backward(a, b, p.s0, p.s1, p.s2, p.mode);
  else if constexpr (OP == HAL_OP_HARDTANH_BACKWARD) return (b <= p.s0 || b >= p.s1) ? T(0) : a;
  else if constexpr (OP == HAL_OP_LOGIT_BACKWARD) return logit_backward(a, b, p.s0);
  else if constexpr (OP == HAL_OP_SHRINK_BACKWARD) return (b >= -p.s0 && b <= p.s0) ? T(0) : a;
  else return T(0);  // the special functions (elementwise_special.cuh) run in kernels of their own
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
