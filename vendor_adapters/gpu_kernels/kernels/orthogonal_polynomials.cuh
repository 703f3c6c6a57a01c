// The orthogonal polynomials of torch.special (Chebyshev T, U, V, W and their shifted forms on [0, 1], Hermite H and
// He, Laguerre L, Legendre P) at x for degree n, computed in W (double on CUDA and HIP; the Hermite recurrences in the
// tensor's type, as the CPU's: see hermite(); the SPIR-V build does not compile them). n arrives as a number of the
// tensor's dtype and is truncated toward zero, as PyTorch does. Conventions as PyTorch's kernels: 0 for n < 0; the
// exact values at x = +-1 (Chebyshev, Legendre); for Chebyshev inside (-1, 1) at larger degrees the closed
// trigonometric forms (the three-term recurrence accumulates rounding there); Hermite NaN above degree 128 (float) /
// 512 (double); the recurrences stop early once a NaN appears.
#pragma once

#include "kernels/gpu_runtime.h"

#include <type_traits>

namespace hal_gpu::special {

// Which polynomial; the shifted Chebyshev kinds evaluate the plain kind at 2x - 1.
enum class Polynomial : int32_t {
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP
};

// The degree from a number: truncated toward zero; NaN and infinities give -1 (the polynomial is then 0).
template <class W>
__device__ __forceinline__ int64_t polynomial_degree(W n) {
  if (::isnan(n) || ::isinf(n)) return -1;
  if (n > W(9.2e18)) return int64_t(9200000000000000000LL);
  if (n < W(-9.2e18)) return -1;
  return static_cast<int64_t>(n);
}

// The four Chebyshev kinds share p_{k+1} = 2x p_k - p_{k-1}; they differ in p_1 (x, 2x, 2x - 1, 2x + 1), in
// their values at x = +-1 and in their closed forms with theta = acos x.
template <class W>
__device__ __forceinline__ W chebyshev(Polynomial kind, W x, int64_t n) {
  if (n < 0) return W(0);
  const W odd_sign = (n % 2 == 0) ? W(1) : W(-1);  // (-1)^n
  const W two_n_plus_1 = W(2) * W(n) + W(1);
  if (::fabs(x) == W(1)) {
    const bool plus = x > W(0);
    switch (kind) {
      case Polynomial::ChebyshevT: return plus ? W(1) : odd_sign;
      case Polynomial::ChebyshevU: return plus ? W(n + 1) : odd_sign * W(n + 1);
      case Polynomial::ChebyshevV: return plus ? W(1) : odd_sign * two_n_plus_1;
      default: return plus ? two_n_plus_1 : odd_sign;  // W
    }
  }
  if (::fabs(x) < W(1) && n > 8) {
    const W theta = ::acos(x);
    switch (kind) {
      case Polynomial::ChebyshevT: return ::cos(W(n) * theta);
      case Polynomial::ChebyshevU: return ::sin(W(n + 1) * theta) / ::sin(theta);
      case Polynomial::ChebyshevV: return ::cos((W(n) + W(0.5)) * theta) / ::cos(theta / W(2));
      default: return ::sin((W(n) + W(0.5)) * theta) / ::sin(theta / W(2));
    }
  }
  W previous = W(1);
  W current = kind == Polynomial::ChebyshevT   ? x
              : kind == Polynomial::ChebyshevU ? x + x
              : kind == Polynomial::ChebyshevV ? x + x - W(1)
                                               : x + x + W(1);
  if (n == 0) return previous;
  for (int64_t k = 2; k <= n && !::isnan(current); ++k) {
    const W next = (x + x) * current - previous;
    previous = current;
    current = next;
  }
  return current;
}

// H_{k+1} = 2x H_k - 2k H_{k-1} (physicists'), He_{k+1} = x He_k - k He_{k-1} (probabilists'), in R: PyTorch's CPU
// kernel runs this recurrence in the tensor's dtype, each step one fused multiply-add (x H_k exact, minus the rounded
// k H_{k-1}, rounded once), and near the polynomial's roots the cancellation makes float32's rounding visible (1e-5
// relative), so float32 takes the same steps in float. H's doubling is exact: 2 fma(x, H_k, -k H_{k-1}) is the CPU's
// fma(2x, H_k, -2k H_{k-1}).
template <class R>
__device__ __forceinline__ R fused_multiply_add(R a, R b, R c) {
  if constexpr (std::is_same_v<R, float>) return ::fmaf(a, b, c);
  else return ::fma(a, b, c);
}
template <class W, class R = W>
__device__ __forceinline__ W hermite(bool physicists, W x_in, int64_t n, int64_t nan_above) {
  if (n < 0) return W(0);
  if (n == 0) return W(1);
  const R x = static_cast<R>(x_in);
  const R scale = physicists ? R(2) : R(1);
  if (n == 1) return static_cast<W>(scale * x);
  if (n > nan_above) return W(NAN);
  R previous = R(1), current = scale * x;
  for (int64_t k = 1; k < n; ++k) {
    const R next = scale * fused_multiply_add(x, current, -(static_cast<R>(k) * previous));
    previous = current;
    current = next;
  }
  return static_cast<W>(current);
}

// (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1.
template <class W>
__device__ __forceinline__ W laguerre(W x, int64_t n) {
  if (n < 0) return W(0);
  if (x == W(0) || n == 0) return W(1);
  W previous = W(1), current = W(1) - x;
  for (int64_t k = 1; k < n && !::isnan(current); ++k) {
    const W next = ((W(2 * k + 1) - x) * current - W(k) * previous) / W(k + 1);
    previous = current;
    current = next;
  }
  return current;
}

// (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_n(1) = 1, P_n(-1) = (-1)^n.
template <class W>
__device__ __forceinline__ W legendre(W x, int64_t n) {
  if (n < 0) return W(0);
  if (::fabs(x) == W(1)) return (x > W(0) || n % 2 == 0) ? W(1) : W(-1);
  if (n == 0) return W(1);
  W previous = W(1), current = x;
  for (int64_t k = 1; k < n && !::isnan(current); ++k) {
    const W next = (W(2 * k + 1) * x * current - W(k) * previous) / W(k + 1);
    previous = current;
    current = next;
  }
  return current;
}

// The polynomial `kind` (shifted: at 2x - 1) of degree n (a number) at x; R: the Hermite recurrences' type.
template <class W, class R = W>
__device__ __forceinline__ W orthogonal_polynomial(Polynomial kind, bool shifted, W x, W n_number,
                                                   int64_t hermite_nan_above) {
  const int64_t n = polynomial_degree(n_number);
  switch (kind) {
    case Polynomial::HermiteH: return hermite<W, R>(true, x, n, hermite_nan_above);
    case Polynomial::HermiteHe: return hermite<W, R>(false, x, n, hermite_nan_above);
    case Polynomial::LaguerreL: return laguerre(x, n);
    case Polynomial::LegendreP: return legendre(x, n);
    default: return chebyshev(kind, shifted ? x + x - W(1) : x, n);
  }
}

}  // namespace hal_gpu::special
