// The batch norm family's kernel math, one source for nvcc, hipcc and clang's SPIR-V (batch_norm.cu and
// spirv_kernels/kernels/batch_norm.cl compose it into kernels): BATCH_NORM and BATCH_NORM_BACKWARD over x [N, C, S]
// in either dense layout of adapter.h, channels-first (NCHW: element (n, c, s) at (n * C + c) * S + s) or
// channels-last (NHWC: at (n * S + s) * C + c); the R = N * S elements of channel c are its "rows".
//
//  - a thread's share of a channel's sums: the elements first, first + step, ... below `end` (Welford triples for
//    the forward's statistics, the sums of dy and dy * (x - mean) for the backward);
//  - the per-channel step from a channel's totals: mean and invstd (running statistics updated in training),
//    weight/bias gradients and the coefficients of dx;
//  - the per-element formulas of y and dx.
// How a block (work-group) combines its threads' shares differs by compiler: warp shuffles on CUDA and HIP,
// OpenCL's work-group collectives on SPIR-V. T is the storage type, Acc the accumulation type; the includer
// provides to_acc / from_acc (accumulate.cuh, which family_support.cuh includes and the SPIR-V kernels include
// themselves).
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// ---- Welford triples ------------------------------------------------------------------------------
template <class Acc>
struct Welford {
  Acc mean, m2, count;
};
template <class Acc>
__device__ __forceinline__ void welford_push(Welford<Acc>& w, Acc v) {
  w.count += Acc(1);
  const Acc d = v - w.mean;
  w.mean += d / w.count;
  w.m2 += d * (v - w.mean);
}
template <class Acc>
__device__ __forceinline__ Welford<Acc> welford_merge(const Welford<Acc>& a, const Welford<Acc>& b) {
  if (b.count == Acc(0)) return a;
  if (a.count == Acc(0)) return b;
  const Acc n = a.count + b.count;
  const Acc d = b.mean - a.mean;
  const Acc fb = b.count / n;
  return Welford<Acc>{a.mean + d * fb, a.m2 + b.m2 + d * d * a.count * fb, n};
}

// Sums of the backward (sum of dy, sum of dy * (x - mean)).
template <class Acc>
struct Sums2 {
  Acc dy, dy_xmu;
};

// ---- A thread's share of channel c -------------------------------------------------------------------
// Channels-first: element j = n * S + s of the channel, at (n * C + c) * S + s.
template <class T, class Acc>
__device__ __forceinline__ void welford_channels_first(Welford<Acc>& w, const T* x, int64_t c, int64_t C, int64_t S,
                                                       int64_t first, int64_t end, int64_t step) {
  for (int64_t j = first; j < end; j += step) {
    const int64_t n = j / S, s = j - n * S;
    welford_push(w, to_acc<Acc>(x[(n * C + c) * S + s]));
  }
}
// Channels-last: row r of the channel, at r * C + c.
template <class T, class Acc>
__device__ __forceinline__ void welford_channels_last(Welford<Acc>& w, const T* x, int64_t c, int64_t C,
                                                      int64_t first, int64_t end, int64_t step) {
  for (int64_t r = first; r < end; r += step) welford_push(w, to_acc<Acc>(x[r * C + c]));
}

template <class T, class Acc>
__device__ __forceinline__ void grad_sums_channels_first(Acc& s_dy, Acc& s_dyx, const T* dy, const T* x, Acc mu,
                                                         int64_t c, int64_t C, int64_t S, int64_t first, int64_t end,
                                                         int64_t step) {
  for (int64_t j = first; j < end; j += step) {
    const int64_t n = j / S, s = j - n * S;
    const int64_t offset = (n * C + c) * S + s;
    const Acc g = to_acc<Acc>(dy[offset]);
    s_dy += g;
    s_dyx += g * (to_acc<Acc>(x[offset]) - mu);
  }
}
template <class T, class Acc>
__device__ __forceinline__ void grad_sums_channels_last(Acc& s_dy, Acc& s_dyx, const T* dy, const T* x, Acc mu,
                                                        int64_t c, int64_t C, int64_t first, int64_t end,
                                                        int64_t step) {
  for (int64_t r = first; r < end; r += step) {
    const Acc g = to_acc<Acc>(dy[r * C + c]);
    s_dy += g;
    s_dyx += g * (to_acc<Acc>(x[r * C + c]) - mu);
  }
}

// ---- The per-channel step -------------------------------------------------------------------------------
// A channel's parameter (weight, bias, a running statistic) as the per-channel step reads and writes it: the
// includer's accessor, with present(), load(absent_value) and store(value) (a store to an absent one does nothing).

// Forward: mean and invstd of the channel. Training: the batch statistics of the channel's Welford total `w` of
// `count` elements, the running statistics updated (r = (1 - momentum) * r + momentum * statistic, the variance
// unbiased); evaluation: the running statistics.
template <class Acc, class Param>
__device__ __forceinline__ void bn_statistics(bool training, const Welford<Acc>& w, Acc count, Acc momentum, Acc eps,
                                              const Param& running_mean, const Param& running_var, Acc& mean,
                                              Acc& invstd) {
  Acc var;
  if (training) {
    mean = w.mean;
    var = w.m2 / count;
    if (running_mean.present()) {
      running_mean.store((Acc(1) - momentum) * running_mean.load(Acc(0)) + momentum * mean);
    }
    if (running_var.present()) {
      const Acc unbiased = w.m2 / (count - Acc(1));
      running_var.store((Acc(1) - momentum) * running_var.load(Acc(0)) + momentum * unbiased);
    }
  } else {
    mean = running_mean.load(Acc(0));
    var = running_var.load(Acc(1));
  }
  invstd = Acc(1) / sqrt(var + eps);
}

// y from x with the channel's mean, scale = invstd * weight and shift = bias.
template <class Acc>
__device__ __forceinline__ Acc bn_output(Acc x, Acc mean, Acc scale, Acc shift) {
  return (x - mean) * scale + shift;
}

// Backward: the coefficients of dx = (dy - mean_dy - (x - mean) * k) * invstd * weight, as k[0..3] = (mean, k,
// mean_dy, invstd * weight), from the channel's sums over `count` elements (k and mean_dy are 0 in evaluation).
template <class Acc, class Param>
__device__ __forceinline__ void bn_grad_coefficients(Acc s_dy, Acc s_dyx, Acc mean, Acc is, const Param& weight,
                                                     Acc count, bool training, Acc* k) {
  k[0] = mean;
  k[1] = training ? s_dyx * is * is / count : Acc(0);
  k[2] = training ? s_dy / count : Acc(0);
  k[3] = is * weight.load(Acc(1));
}

template <class Acc>
__device__ __forceinline__ Acc bn_input_grad(Acc dy, Acc x, const Acc* k) {
  return (dy - k[2] - (x - k[0]) * k[1]) * k[3];
}

}  // namespace hal_gpu
