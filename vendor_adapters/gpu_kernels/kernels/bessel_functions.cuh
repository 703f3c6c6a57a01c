// Bessel functions of orders 0 and 1 (J, Y, I, K and the scaled forms), the Airy function Ai and the spherical
// j0, for torch.special and torch.i0/i0e/i1/i1e, computed in W (double on CUDA and HIP, so float32 results are
// correctly rounded or nearly; the SPIR-V build does not compile them: OpenCL devices may lack doubles).
//
// Methods, chosen so that W's precision reaches the result (no polynomial fits):
// - small arguments: the power series, summed until a term no longer changes the sum; below the crossover the
//   largest term is a few thousand times the result at most, so W = double keeps ~12 digits;
// - large arguments: the Hankel asymptotic expansions, truncated at their smallest term (error about e^-2x);
// - K_nu for 2 < x <= 20: e^x K_nu(x) = integral over t >= 0 of exp(-x (cosh t - 1)) cosh(nu t), by the
//   trapezoidal rule, which converges geometrically for an integrand analytic in a strip and decaying
//   double-exponentially.
// Values at infinities and outside the domain follow PyTorch's CPU kernels (i0(inf) and j0(inf) are NaN there).
#pragma once

#include "kernels/gpu_runtime.h"
#include "kernels/special_constants.cuh"

namespace hal_gpu::special {

// sum over k >= 0 of s^k (x/2)^nu / (k! (k + nu)!) with s = x^2/4 (I_nu) or -x^2/4 (J_nu), nu in {0, 1}.
template <class W>
__device__ __forceinline__ W bessel_power_series(W x, int nu, bool alternating) {
  const W q = (alternating ? -x * x : x * x) / W(4);
  W term = nu == 0 ? W(1) : x / W(2);
  W sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (W(k) * W(k + nu));
    sum += term;
    if (::fabs(term) <= ::fabs(sum) * Constants<W>::epsilon) break;
  }
  return sum;
}

// The log terms' companions: sum over k >= 1 of (H_k) s^k / (k!)^2 (order 0) and sum over k >= 0 of
// (psi(k+1) + psi(k+2)) s^k (x/2) / (k! (k+1)!) (order 1), with H_k the harmonic numbers, psi(k+1) = H_k - gamma.
template <class W>
__device__ __forceinline__ W bessel_log_companion(W x, int nu, bool alternating) {
  const W q = (alternating ? -x * x : x * x) / W(4);
  const W gamma = Constants<W>::euler_gamma;
  W harmonic = W(0);  // H_k
  if (nu == 0) {
    W power = W(1), sum = W(0);
    for (int k = 1; k < 500; ++k) {
      power *= q / (W(k) * W(k));
      harmonic += W(1) / W(k);
      const W term = harmonic * power;
      sum += term;
      if (::fabs(term) <= ::fabs(sum) * Constants<W>::epsilon) break;
    }
    return sum;
  }
  W power = x / W(2);  // s^k (x/2) / (k! (k+1)!)
  W sum = power * (W(-2) * gamma + W(1));
  for (int k = 1; k < 500; ++k) {
    power *= q / (W(k) * W(k + 1));
    harmonic += W(1) / W(k);
    const W term = power * (W(2) * (harmonic - gamma) + W(1) / W(k + 1));
    sum += term;
    if (::fabs(term) <= ::fabs(sum) * Constants<W>::epsilon) break;
  }
  return sum;
}

// The large-x series shared by I and K: sum_k sign^k a_k(nu) / x^k, a_k = prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! 8^k),
// truncated at its smallest term; e^-x I_nu(x) ~ (2 pi x)^-1/2 times it with sign -1, e^x K_nu(x) ~ (pi / 2x)^1/2
// times it with sign +1. The truncation error is about e^-2x.
template <class W>
__device__ __forceinline__ W bessel_large_x_series(W x, W nu, W sign) {
  const W mu = W(4) * nu * nu;
  W term = W(1), sum = W(1);
  for (int k = 1; k < 100; ++k) {
    const W odd = W(2 * k - 1);
    const W next = sign * term * (mu - odd * odd) / (W(k) * W(8) * x);
    if (::fabs(next) >= ::fabs(term)) break;  // the smallest term reached: the expansion diverges from here
    term = next;
    sum += term;
    if (::fabs(term) <= ::fabs(sum) * Constants<W>::epsilon) break;
  }
  return sum;
}

template <class W>
__device__ __forceinline__ W scaled_bessel_i_asymptotic(W x, int nu) {
  return bessel_large_x_series(x, W(nu), W(-1)) / ::sqrt(W(2) * Constants<W>::pi * x);
}

constexpr double kBesselIAsymptoticFrom = 15.0;

// I_nu(x) (scaled: e^-|x| I_nu(x)) for nu in {0, 1}; I_1 is odd.
template <class W>
__device__ __forceinline__ W bessel_i(W x, int nu, bool scaled) {
  if (::isnan(x)) return x;
  const W ax = ::fabs(x);
  if (::isinf(x)) return scaled ? (nu == 0 || x > W(0) ? W(0) : W(-0.0)) : W(NAN);  // as PyTorch's CPU kernels
  W value;
  if (ax < W(kBesselIAsymptoticFrom)) {
    value = bessel_power_series(ax, nu, /*alternating=*/false);
    if (scaled) value *= ::exp(-ax);
  } else {
    value = scaled_bessel_i_asymptotic(ax, nu);
    if (!scaled) {
      const W half = ::exp(ax / W(2));  // e^x in two factors: I_nu stays finite a little past exp's overflow
      value = value * half * half;
    }
  }
  return (nu == 1 && x < W(0)) ? -value : value;
}

// e^x K_nu(x) for 2/3 <= x <= 20 (K_0 and K_1 above 2; K_1/3 for Ai) by the trapezoidal rule with step
// 1/16: its error, about exp(x (1 - cos d) - 2 pi d / step) for a strip of half-width d, stays below 1e-20 up to
// x = 20; the terms fall below the sum's last bit by t ~ 5.
template <class W>
__device__ __forceinline__ W scaled_bessel_k_integral(W x, W nu) {
  const W step = W(0.0625);
  W sum = W(0.5);  // the t = 0 term, halved
  for (int j = 1; j < 1000; ++j) {
    const W t = step * W(j);
    const W half_sinh = ::sinh(t / W(2));  // cosh t - 1 = 2 sinh^2(t/2), without cancellation
    const W term = ::exp(W(-2) * x * half_sinh * half_sinh) * (nu == W(0) ? W(1) : ::cosh(nu * t));
    sum += term;
    if (term <= sum * Constants<W>::epsilon) break;
  }
  return sum * step;
}

constexpr double kBesselKIntegralFrom = 2.0;
constexpr double kBesselKAsymptoticFrom = 20.0;

// e^x K_nu(x) for x >= 2/3: the integral up to 20, the large-x series beyond (where the integrand's peak,
// 1/sqrt(x) wide, gets too narrow for the fixed step, and the series' error e^-2x is below 1e-17).
template <class W>
__device__ __forceinline__ W scaled_bessel_k_large(W x, W nu) {
  if (x > W(kBesselKAsymptoticFrom)) return bessel_large_x_series(x, nu, W(1)) * ::sqrt(Constants<W>::pi / (W(2) * x));
  return scaled_bessel_k_integral(x, nu);
}

// K_nu(x) (scaled: e^x K_nu(x)) for nu in {0, 1}: NaN below 0, +inf at 0.
template <class W>
__device__ __forceinline__ W bessel_k(W x, int nu, bool scaled) {
  if (::isnan(x) || x < W(0)) return W(NAN);
  if (x == W(0)) return W(INFINITY);
  if (::isinf(x)) return W(0);
  if (x > W(kBesselKIntegralFrom)) {
    const W value = scaled_bessel_k_large(x, W(nu));
    return scaled ? value : value * ::exp(-x);
  }
  const W log_half_x = ::log(x / W(2));
  W value;
  if (nu == 0) {
    value = -(log_half_x + Constants<W>::euler_gamma) * bessel_power_series(x, 0, false) +
            bessel_log_companion(x, 0, false);
  } else {
    value = W(1) / x + log_half_x * bessel_power_series(x, 1, false) - bessel_log_companion(x, 1, false) / W(2);
  }
  return scaled ? value * ::exp(x) : value;
}

// Hankel's expansions for x >= 12: J_nu = sqrt(2 / (pi x)) (P cos chi - Q sin chi), Y_nu = sqrt(2 / (pi x))
// (P sin chi + Q cos chi), chi = x - (nu/2 + 1/4) pi; cos chi and sin chi from cos x and sin x (exact angles).
template <class W>
__device__ __forceinline__ W bessel_jy_asymptotic(W x, int nu, bool y) {
  const W mu = W(4 * nu * nu);
  W p = W(1), q = W(0), term = W(1);
  for (int k = 1; k < 100; ++k) {
    const W odd = W(2 * k - 1);
    const W next = term * (mu - odd * odd) / (W(k) * W(8) * x);
    if (::fabs(next) >= ::fabs(term)) break;
    term = next;
    // a_k / x^k joins P (even k) or Q (odd k) with the sign (-1)^floor(k/2).
    const W signed_term = ((k / 2) % 2) ? -term : term;
    if (k % 2) q += signed_term;
    else p += signed_term;
    if (::fabs(term) <= Constants<W>::epsilon * ::fabs(p)) break;
  }
  const W c = ::cos(x), s = ::sin(x), h = Constants<W>::sqrt_half;
  // chi = x - pi/4 (nu = 0) or x - 3 pi/4 (nu = 1)
  const W cos_chi = nu == 0 ? (c + s) * h : (s - c) * h;
  const W sin_chi = nu == 0 ? (s - c) * h : -(s + c) * h;
  const W amplitude = ::sqrt(W(2) / (Constants<W>::pi * x));
  return amplitude * (y ? p * sin_chi + q * cos_chi : p * cos_chi - q * sin_chi);
}

constexpr double kBesselJYAsymptoticFrom = 12.0;

// J_nu(x) for nu in {0, 1}: J_0 even, J_1 odd; NaN at infinities as PyTorch's CPU kernels.
template <class W>
__device__ __forceinline__ W bessel_j(W x, int nu) {
  if (::isnan(x) || ::isinf(x)) return W(NAN);
  const W ax = ::fabs(x);
  const W value = ax < W(kBesselJYAsymptoticFrom) ? bessel_power_series(ax, nu, /*alternating=*/true)
                                                 : bessel_jy_asymptotic(ax, nu, /*y=*/false);
  return (nu == 1 && x < W(0)) ? -value : value;
}

// Y_nu(x) for nu in {0, 1}: NaN below 0 and at infinities, -inf at 0.
template <class W>
__device__ __forceinline__ W bessel_y(W x, int nu) {
  if (::isnan(x) || x < W(0) || ::isinf(x)) return W(NAN);
  if (x == W(0)) return W(-INFINITY);
  if (x >= W(kBesselJYAsymptoticFrom)) return bessel_jy_asymptotic(x, nu, /*y=*/true);
  const W pi = Constants<W>::pi;
  const W log_half_x = ::log(x / W(2));
  if (nu == 0) {
    return W(2) / pi * ((log_half_x + Constants<W>::euler_gamma) * bessel_power_series(x, 0, true) -
                        bessel_log_companion(x, 0, true));
  }
  return W(2) / pi * log_half_x * bessel_power_series(x, 1, true) - W(2) / (pi * x) -
         bessel_log_companion(x, 1, true) / pi;
}

// Ai(x): Maclaurin series (Ai = Ai(0) f - |Ai'(0)| g) for -8 <= x <= 1; above 1, Ai(x) = sqrt(x/3) / pi
// K_1/3(zeta) with zeta = 2/3 x^3/2 (the series would cancel there: Ai decays while f and g grow, 1e-3 relative
// error at x = 8); below -8 the asymptotic expansion in zeta = 2/3 |x|^3/2, with u_k = u_{k-1} (6k-5)(6k-3)(6k-1)
// / ((2k-1) 216 k). On the negative side the series' cancellation leaves about 3e-10 absolute error near -8.
template <class W>
__device__ __forceinline__ W airy_ai(W x) {
  if (::isnan(x) || ::isinf(x)) return W(NAN);  // as PyTorch's CPU kernel
  const W pi = Constants<W>::pi;
  if (x > W(1)) {
    const W zeta = W(2) / W(3) * x * ::sqrt(x);
    return ::sqrt(x / W(3)) / pi * ::exp(-zeta) * scaled_bessel_k_large(zeta, W(1) / W(3));
  }
  if (x >= W(-8)) {
    const W ai0 = W(0.355028053887817239260063186004183177);
    const W minus_ai0_prime = W(0.258819403792806798405183560189203963);
    const W cube = x * x * x;
    W f_term = W(1), f = W(1), g_term = x, g = x;
    for (int k = 1; k < 200; ++k) {
      f_term *= cube / (W(3 * k - 1) * W(3 * k));
      g_term *= cube / (W(3 * k) * W(3 * k + 1));
      f += f_term;
      g += g_term;
      if (::fabs(f_term) + ::fabs(g_term) <= Constants<W>::epsilon * (::fabs(f) + ::fabs(g))) break;
    }
    return ai0 * f - minus_ai0_prime * g;
  }
  const W ax = ::fabs(x);
  const W zeta = W(2) / W(3) * ax * ::sqrt(ax);
  W u = W(1), even = W(1), odd = W(0);  // sums of (-1)^k u_k / zeta^k split by the parity of k
  for (int k = 1; k < 100; ++k) {
    const W next = u * W(6 * k - 5) * W(6 * k - 3) * W(6 * k - 1) / (W(2 * k - 1) * W(216) * W(k) * zeta);
    if (next >= u) break;
    u = next;
    if (k % 2) odd += ((k / 2) % 2) ? -u : u;
    else even += ((k / 2) % 2) ? -u : u;
    if (u <= Constants<W>::epsilon) break;
  }
  const W root_pi = ::sqrt(pi);
  const W quarter_root = ::sqrt(::sqrt(ax));
  const W phase = zeta - pi / W(4);
  return (::cos(phase) * even + ::sin(phase) * odd) / (root_pi * quarter_root);
}

// j0(x) = sin(x) / x; its Taylor polynomial near 0, where the quotient loses digits; 0 at infinities.
template <class W>
__device__ __forceinline__ W spherical_bessel_j0(W x) {
  if (::isinf(x)) return W(0);
  if (::fabs(x) < W(0.5)) {
    const W x2 = x * x;
    W term = W(1), sum = W(1);
    for (int k = 1; k < 12; ++k) {
      term *= -x2 / (W(2 * k) * W(2 * k + 1));
      sum += term;
    }
    return sum;
  }
  return ::sin(x) / x;
}

}  // namespace hal_gpu::special
