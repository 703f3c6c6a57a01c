// The regularized incomplete gamma functions of torch.igamma (P(a, x)) and torch.igammac (Q(a, x) = 1 - P),
// computed in W (double on CUDA and HIP; the SPIR-V build does not compile them). Below x = a + 1 the series
// of P (positive terms, no cancellation), above it the continued fraction of Q (modified Lentz), and the other
// one as 1 minus it, where it is at least about 1/2, so the subtraction loses nothing that matters. The common
// factor x^a e^-x / Gamma(a) is taken through logs (lgamma), which costs about a ulps for large a.
// Boundaries as PyTorch's CPU kernels: NaN for a < 0 or x < 0; a = 0 gives P = 1 (x > 0) or NaN (x = 0);
// x = 0 gives P = 0; a = inf gives P = 0 (NaN when x is inf too); x = inf gives P = 1.
#pragma once

#include "kernels/gpu_runtime.h"
#include "kernels/special_constants.cuh"

namespace hal_gpu::special {

constexpr int kIncompleteGammaMaxTerms = 20000;  // the series and fraction need O(sqrt(a)) terms near x = a

// log(x^a e^-x / Gamma(a)).
template <class W>
__device__ __forceinline__ W log_gamma_prefactor(W a, W x) {
  return a * ::log(x) - x - ::lgamma(a);
}

// P(a, x) = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a+1)...(a+k)).
template <class W>
__device__ __forceinline__ W lower_gamma_series(W a, W x) {
  W term = W(1), sum = W(1);
  for (int k = 1; k < kIncompleteGammaMaxTerms; ++k) {
    term *= x / (a + W(k));
    sum += term;
    if (term <= sum * Constants<W>::epsilon) break;
  }
  return sum * ::exp(log_gamma_prefactor(a, x)) / a;
}

// Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1(1-a) / (x + 3 - a - 2(2-a) / (x + 5 - a - ...))).
template <class W>
__device__ __forceinline__ W upper_gamma_fraction(W a, W x) {
  const W tiny = W(1e-300);
  W b = x + W(1) - a;
  W c = W(1) / tiny;
  W d = W(1) / b;
  W h = d;
  for (int k = 1; k < kIncompleteGammaMaxTerms; ++k) {
    const W an = -W(k) * (W(k) - a);
    b += W(2);
    d = an * d + b;
    if (::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (::fabs(c) < tiny) c = tiny;
    d = W(1) / d;
    const W delta = d * c;
    h *= delta;
    if (::fabs(delta - W(1)) <= Constants<W>::epsilon) break;
  }
  return ::exp(log_gamma_prefactor(a, x)) * h;
}

// P(a, x) (upper = false) or Q(a, x) (upper = true).
template <class W>
__device__ __forceinline__ W regularized_gamma(W a, W x, bool upper) {
  if (::isnan(a) || ::isnan(x) || a < W(0) || x < W(0)) return W(NAN);
  if (a == W(0)) return x > W(0) ? (upper ? W(0) : W(1)) : W(NAN);
  if (x == W(0)) return upper ? W(1) : W(0);
  if (::isinf(a)) return ::isinf(x) ? W(NAN) : (upper ? W(1) : W(0));
  if (::isinf(x)) return upper ? W(0) : W(1);
  if (x < a + W(1)) {
    const W p = lower_gamma_series(a, x);
    return upper ? W(1) - p : p;
  }
  const W q = upper_gamma_fraction(a, x);
  return upper ? q : W(1) - q;
}

}  // namespace hal_gpu::special
