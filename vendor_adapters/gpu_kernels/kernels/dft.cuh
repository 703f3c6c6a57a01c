// The discrete Fourier transform's math (adapter_ops.def: DFT), once for every runtime: one output element of
// one line, summed over the whole line by the transform's definition. dft.cu (CUDA, HIP) and
// ../../spirv_kernels/kernels/dft.cl (SPIR-V) give each output element a thread and pass a loader of the line.
//
// Why the definition and not a fast algorithm: one loop serves every length (primes included) and reads the line
// in place; the cost is n multiply-adds per output element, n^2 per line, which is small for the lines of
// short-time transforms and feature-map spectra (up to a few thousand points) but not for long signals: the
// launchers refuse lines longer than dft_geometry.h's kMaxDftLength (the op then takes the CPU fallback). A fast
// transform (a vendor FFT or the library's own) is the route for long lines.
#pragma once

#include "kernels/gpu_runtime.h"
#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

namespace hal_gpu {

// A complex number as the kernels pass it (values, not pointers: the SPIR-V build has no generic address space).
template <class T>
struct DftValue {
  T re, im;
};

__device__ __forceinline__ float sin_pi(float x) { return sinpif(x); }
__device__ __forceinline__ float cos_pi(float x) { return cospif(x); }
#if !defined(__OPENCL_CPP_VERSION__)
__device__ __forceinline__ double sin_pi(double x) { return sinpi(x); }
__device__ __forceinline__ double cos_pi(double x) { return cospi(x); }
#endif

// The twiddle w^t = exp(sign 2 pi i t / n) for t in [0, n), in Acc. The angle is pi a / n with a = 2t, folded
// with exact integer arithmetic into [0, pi / 4] (sin(2 pi - x) = -sin x, cos(pi - x) = -cos x, sin(pi / 2 - x) =
// cos x) before sinpi/cospi see it as a fraction of pi: the rounding of that fraction then moves the angle by at
// most an ulp of pi / 4, not of 2 pi, and no rounded pi enters at all.
template <class Acc>
__device__ __forceinline__ DftValue<Acc> dft_twiddle(int32_t t, int32_t n, int32_t sign) {
  // Multiples of pi / (4n): the angle is a / (4n) of pi, a in [0, 8n).
  int64_t a = 8 * static_cast<int64_t>(t);
  const int64_t full_turn = 8 * static_cast<int64_t>(n), half_turn = full_turn / 2, quarter_turn = full_turn / 4,
                eighth_turn = full_turn / 8;
  Acc sin_sign = static_cast<Acc>(sign), cos_sign = Acc(1);
  if (a > half_turn) {  // (pi, 2 pi): sin changes sign
    a = full_turn - a;
    sin_sign = -sin_sign;
  }
  if (a > quarter_turn) {  // (pi / 2, pi]: cos changes sign
    a = half_turn - a;
    cos_sign = -cos_sign;
  }
  const bool swap = a > eighth_turn;  // (pi / 4, pi / 2]: sin and cos trade places
  if (swap) a = quarter_turn - a;
  const Acc turns = static_cast<Acc>(a) / static_cast<Acc>(4 * static_cast<int64_t>(n));
  const Acc s = sin_pi(turns), c = cos_pi(turns);
  return DftValue<Acc>{cos_sign * (swap ? s : c), sin_sign * (swap ? c : s)};
}

// A running sum in Acc, compensated (Kahan): the rounding error of each addition is carried into the next term,
// so a line's terms sum about as accurately as in twice Acc's precision. SPIR-V devices (which may lack float64)
// sum in float and need it; in double it costs a few instructions per term. (Kahan's form rather than Neumaier's:
// the result is the running sum itself, with nothing added after the loop; llvm-spirv-15 misplaces a loop exit
// block that computes.)
template <class Acc>
struct DftSum {
  Acc sum = 0, lost = 0;
  __device__ __forceinline__ void add(Acc v) {
    const Acc corrected = v - lost;
    const Acc t = sum + corrected;
    lost = (t - sum) - corrected;
    sum = t;
  }
  __device__ __forceinline__ Acc value() const { return sum; }
};

// Complex output element k: scale * sum over j < min(n_in, n) of x_j w^(jk), accumulated in Acc (double where
// the device has it). load(j) returns x_j as float (im 0 for a real signal).
template <class Acc, class Load>
__device__ __forceinline__ DftValue<float> dft_complex_element(Load load, int32_t n_in, int32_t n, int32_t k,
                                                               int32_t sign, float scale) {
  const int32_t count = n_in < n ? n_in : n;
  DftSum<Acc> re, im;
  int32_t t = 0;  // j * k mod n
  for (int32_t j = 0; j < count; ++j) {
    const DftValue<float> x = load(j);
    const DftValue<Acc> w = dft_twiddle<Acc>(t, n, sign);
    re.add(static_cast<Acc>(x.re) * w.re);
    re.add(-static_cast<Acc>(x.im) * w.im);
    im.add(static_cast<Acc>(x.re) * w.im);
    im.add(static_cast<Acc>(x.im) * w.re);
    t += k;
    t = t >= n ? t - n : t;
  }
  return DftValue<float>{static_cast<float>(re.value() * scale), static_cast<float>(im.value() * scale)};
}

// Real output element k of a Hermitian signal of length n given by its first n_in coefficients (x_j for
// j <= n / 2; the rest are the conjugates x_(n-j)): scale * sum over the whole spectrum, which is real. Each
// coefficient strictly between 0 and n / 2 stands for itself and its conjugate (twice its real part); x_0 and,
// for even n, x_(n/2) stand alone, and their imaginary parts drop out, as in every c2r transform.
template <class Acc, class Load>
__device__ __forceinline__ float dft_hermitian_real_element(Load load, int32_t n_in, int32_t n, int32_t k,
                                                            int32_t sign, float scale) {
  const int32_t middle = n / 2;
  const int32_t last = n_in - 1 < middle ? n_in - 1 : middle;
  DftSum<Acc> acc;
  int32_t t = 0;  // j * k mod n
  for (int32_t j = 0; j <= last; ++j) {
    const DftValue<float> x = load(j);
    const DftValue<Acc> w = dft_twiddle<Acc>(t, n, sign);
    const Acc weight = j == 0 || 2 * j == n ? Acc(1) : Acc(2);  // exact: scaling by 2 does not round
    acc.add(weight * static_cast<Acc>(x.re) * w.re);
    acc.add(-weight * static_cast<Acc>(x.im) * w.im);
    t += k;
    t = t >= n ? t - n : t;
  }
  return static_cast<float>(acc.value() * scale);
}

}  // namespace hal_gpu
