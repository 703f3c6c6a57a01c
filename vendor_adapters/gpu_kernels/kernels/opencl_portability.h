// What gpu_runtime.h provides when the kernel library's sources are compiled as C++ for OpenCL (to SPIR-V, for
// the OpenCL and Level Zero adapters): OpenCL C++ has no standard library, no __device__ qualifier and no
// single-precision math names, so this header supplies the few that the shared kernel math uses. Verified with
// clang-15 -cl-std=clc++2021 -target spir64 and llvm-spirv-15 (tests/python/test_spirv_kernels.py).
#pragma once

typedef char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long int64_t;
typedef unsigned long uint64_t;

#define __device__
#define __host__
// Inlined as CUDA's __forceinline__ is: a kernel calling the shared math out of line (LLVM stops inlining a large
// function once several kernels call it) is not vectorized across work-items by Intel's CPU compiler, 36x slower.
#define __forceinline__ inline __attribute__((always_inline))

namespace std {
template <class A, class B>
constexpr bool is_same_v = false;
template <class A>
constexpr bool is_same_v<A, A> = true;
template <class T>
constexpr bool is_floating_point_v = is_same_v<T, float> || is_same_v<T, double> || is_same_v<T, half>;
template <class T>
constexpr bool is_integral_v = !is_floating_point_v<T>;
template <class T>
constexpr bool is_signed_v = T(-1) < T(0);
}  // namespace std

// CUDA's single-precision names: OpenCL's builtins are overloaded on float and double.
#define expf exp
#define __expf exp  // CUDA's fast exponential: the accurate one here
#define logf log
#define sqrtf sqrt
#define rsqrtf rsqrt
#define sinf sin
#define cosf cos
#define tanhf tanh
#define floorf floor
#define ceilf ceil
#define rintf rint
#define truncf trunc
#define log1pf log1p
#define expm1f expm1
#define erff erf
#define log2f log2
#define exp2f exp2
#define fabsf fabs
#define powf pow
#define fmodf fmod
#define atan2f atan2
#define copysignf copysign
#define asinf asin
#define acosf acos
#define atanf atan
#define sinhf sinh
#define coshf cosh
#define tanf tan
#define asinhf asinh
#define acoshf acosh
#define atanhf atanh
#define log10f log10
#define erfcf erfc
#define lgammaf lgamma
#define hypotf hypot
#define fmaxf fmax
#define fminf fmin
#define cospif cospi
#define sinpif sinpi
#define __umulhi mul_hi  // the high 32 bits of a 32 x 32-bit product
