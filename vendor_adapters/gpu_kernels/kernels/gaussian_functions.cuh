// The error function's relatives of torch.special: erfinv, ndtri (the standard normal's quantile), log_ndtr
// (the log of its CDF) and erfcx (the scaled complementary error function), computed in W (double on CUDA and
// HIP; the SPIR-V build does not compile them). The inverses refine a rough start by Halley steps on the
// math library's erf / erfc, so their accuracy is the library's; erfcx switches to its asymptotic series where
// erfc underflows. Values at the ends of the domains follow PyTorch's CPU kernels.
#pragma once

#include "kernels/gpu_runtime.h"
#include "kernels/special_constants.cuh"

namespace hal_gpu::special {

template <class W>
struct GaussianConstants {
  static constexpr W two_over_sqrt_pi = W(1.12837916709551257389615890312154517);
  static constexpr W sqrt_pi = W(1.77245385090551602729816748334114518);
  static constexpr W sqrt2 = W(1.41421356237309504880168872420969808);
  static constexpr W log_half = W(-0.693147180559945309417232121458176568);
};

// z >= 0 with erfc(z) = q, for 0 < q <= 1. Start: Abramowitz & Stegun 26.2.23's rational approximation of the
// normal quantile (error < 4.5e-4), then Halley steps on erfc(z) - q, relative to q so that tiny q keep their
// digits: f / f' = -(erfc(z) - q) / (2/sqrt(pi) e^-z^2), f'' / f' = -2z.
template <class W>
__device__ __forceinline__ W inverse_erfc_of(W q) {
  const W t = ::sqrt(W(-2) * ::log(q / W(2)));
  W z = (t - (W(2.515517) + t * (W(0.802853) + t * W(0.010328))) /
                 (W(1) + t * (W(1.432788) + t * (W(0.189269) + t * W(0.001308))))) /
        GaussianConstants<W>::sqrt2;
  if (z < W(0)) z = W(0);
  for (int i = 0; i < 6; ++i) {
    const W residual = ::erfc(z) - q;
    const W slope = -GaussianConstants<W>::two_over_sqrt_pi * ::exp(-z * z);
    const W newton = residual / slope;
    const W step = newton / (W(1) + z * newton);  // Halley: newton / (1 - newton f'' / (2 f'))
    z -= step;
    if (::fabs(step) <= W(1e-17) * ::fabs(z)) break;
  }
  return z;
}

// erfinv(y): NaN outside [-1, 1], +-inf at +-1. Near 0 Halley steps on erf itself (erfc(z) - q would lose
// y's digits there), from its Taylor start sqrt(pi)/2 (y + pi y^3 / 12).
template <class W>
__device__ __forceinline__ W erfinv(W y) {
  if (::isnan(y) || ::fabs(y) > W(1)) return W(NAN);
  if (::fabs(y) == W(1)) return y * W(INFINITY);
  if (y == W(0)) return y;
  const W ay = ::fabs(y);
  W z;
  if (ay <= W(0.5)) {
    z = GaussianConstants<W>::sqrt_pi / W(2) * (ay + Constants<W>::pi * ay * ay * ay / W(12));
    for (int i = 0; i < 6; ++i) {
      const W residual = ::erf(z) - ay;
      const W newton = residual / (GaussianConstants<W>::two_over_sqrt_pi * ::exp(-z * z));
      const W step = newton / (W(1) + z * newton);
      z -= step;
      if (::fabs(step) <= W(1e-17) * z) break;
    }
  } else {
    z = inverse_erfc_of(W(1) - ay);  // 1 - |y| is exact for |y| >= 1/2
  }
  return y < W(0) ? -z : z;
}

// ndtri(p) = sqrt(2) erfinv(2p - 1), from the tail nearer to p so that p's digits are kept: NaN outside
// [0, 1], -inf at 0, +inf at 1.
template <class W>
__device__ __forceinline__ W ndtri(W p) {
  if (::isnan(p) || p < W(0) || p > W(1)) return W(NAN);
  if (p == W(0)) return W(-INFINITY);
  if (p == W(1)) return W(INFINITY);
  if (p == W(0.5)) return W(0);
  if (p < W(0.5)) return -GaussianConstants<W>::sqrt2 * inverse_erfc_of(W(2) * p);
  if (p > W(0.75)) return GaussianConstants<W>::sqrt2 * inverse_erfc_of(W(2) * (W(1) - p));
  return GaussianConstants<W>::sqrt2 * erfinv(W(2) * p - W(1));  // near the middle: erf's own precision
}

// erfcx(x) = e^(x^2) erfc(x) for x >= 0. Up to 10, the product with e^(x^2) split into e^(hi) e^(lo), hi + lo =
// x^2 exactly (fma), so x^2's rounding does not reach the result; beyond, the asymptotic series 1 / (x sqrt(pi))
// sum (-1)^k (2k-1)!! / (2x^2)^k, whose terms fall below 1e-17 within 12 terms there.
template <class W>
__device__ __forceinline__ W erfcx_nonnegative(W x) {
  if (x <= W(10)) {
    const W hi = x * x, lo = ::fma(x, x, -hi);
    return ::exp(hi) * ::exp(lo) * ::erfc(x);
  }
  if (::isinf(x)) return W(0);
  const W inverse_two_x2 = W(1) / (W(2) * x * x);
  W term = W(1), sum = W(1);
  for (int k = 1; k < 40; ++k) {
    term *= -W(2 * k - 1) * inverse_two_x2;
    sum += term;
    if (::fabs(term) <= Constants<W>::epsilon * W(1e-2)) break;
  }
  return sum / (x * GaussianConstants<W>::sqrt_pi);
}

// erfcx everywhere: below 0, 2 e^(x^2) - erfcx(-x) (+inf once e^(x^2) overflows).
template <class W>
__device__ __forceinline__ W erfcx(W x) {
  if (::isnan(x)) return x;
  if (x >= W(0)) return erfcx_nonnegative(x);
  if (x < W(-26.7)) return W(INFINITY);
  const W hi = x * x, lo = ::fma(x, x, -hi);
  return W(2) * ::exp(hi) * ::exp(lo) - erfcx_nonnegative(-x);
}

// log_ndtr(x) = log(Phi(x)), Phi(x) = erfc(-x / sqrt 2) / 2: below -1 through erfcx, so that Phi's underflow
// does not reach the log (log(erfcx(t) / 2) - t^2, t = -x / sqrt 2); above, log1p(-erfc(x / sqrt 2) / 2).
// T is the tensor's dtype: t is x * (1 / sqrt 2) rounded to T, as PyTorch's CPU kernel computes it in T. For large
// x that rounding is most of the float32 result's error (erfc(t) moves by 2 t^2 times t's relative error: 4e-6 at
// x = 6), so computing t in double would be more accurate than the CPU by more than float32's tolerance; the rest
// stays in W.
template <class W, class T = W>
__device__ __forceinline__ W log_ndtr(W x) {
  if (::isnan(x)) return x;
  const W t = static_cast<W>(static_cast<T>(x) * static_cast<T>(0.707106781186547524400844362104849039));
  if (x < W(-1)) {
    if (::isinf(x)) return x;
    return ::log(erfcx(-t)) + GaussianConstants<W>::log_half - t * t;
  }
  return ::log1p(-::erfc(t) / W(2));
}

}  // namespace hal_gpu::special
