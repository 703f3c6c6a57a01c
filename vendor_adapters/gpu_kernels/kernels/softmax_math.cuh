// The math of SOFTMAX, LOG_SOFTMAX and their backward over one row (or column), once for every runtime: the
// CUDA/HIP kernels (softmax.cu: a warp, a block or a thread per line) and the SPIR-V kernels
// (../../spirv_kernels/kernels/softmax.cl: a work-group per line) pass their own cross-lane reductions. The
// includer provides to_acc / from_acc (accumulate.cuh, which family_support.cuh includes).
#pragma once

#include "kernels/gpu_runtime.h"
#if !defined(__OPENCL_CPP_VERSION__)
#include <cmath>
#include <cstdint>
#endif

namespace hal_gpu {

enum class SoftmaxKind : int { Softmax, LogSoftmax, SoftmaxBackward, LogSoftmaxBackward };

__device__ __forceinline__ float exp_acc(float v) { return __expf(v); }
__device__ __forceinline__ double exp_acc(double v) { return exp(v); }
__device__ __forceinline__ float log_acc(float v) { return logf(v); }
__device__ __forceinline__ double log_acc(double v) { return log(v); }
template <class A> __device__ __forceinline__ A lowest();
template <> __device__ __forceinline__ float lowest<float>() { return -INFINITY; }
template <> __device__ __forceinline__ double lowest<double>() { return -INFINITY; }

// The walk over one row (or column) of `size` elements, `step` apart, by `lanes` cooperating threads
// (lane `lane` of them), with the reduction over those lanes supplied as `reduce_sum` / `reduce_max`.
// a = x (forward) or grad_y (backward); b = y (backward only); out = y (forward) or grad_x (backward).
template <class In, class Out, class Acc, class SumFn, class MaxFn>
__device__ __forceinline__ void softmax_line(SoftmaxKind kind, const In* a, const In* b, Out* out, int64_t size,
                                             int64_t step, int64_t lane, int64_t lanes, SumFn reduce_sum,
                                             MaxFn reduce_max) {
  if (kind == SoftmaxKind::Softmax || kind == SoftmaxKind::LogSoftmax) {
    // The maximum and the sum of exponentials in one pass (the sum rescaled whenever the maximum grows), then
    // across the lanes: each lane's sum rescaled to the row's maximum. A NaN makes the sum NaN, and with it
    // the row, as a separate maximum pass did.
    Acc m = lowest<Acc>(), s = 0;
    for (int64_t j = lane; j < size; j += lanes) {
      const Acc x = to_acc<Acc>(a[j * step]);
      if (x > m) {
        s = s * exp_acc(m - x) + exp_acc(x - x);  // 1, or NaN for +inf (exp(inf - inf), as the two-pass sum)
        m = x;
      } else if (x == x && m != lowest<Acc>()) {  // x == -inf == m adds nothing (and would add exp(NaN))
        s += exp_acc(x - m);
      } else if (x != x) {
        s = x;
      }
    }
    const Acc row_max = reduce_max(m);
    s = reduce_sum(m == lowest<Acc>() ? (s != s ? s : Acc(0)) : s * exp_acc(m - row_max));
    m = row_max;
    if (kind == SoftmaxKind::Softmax) {
      const Acc inv = Acc(1) / s;
      for (int64_t j = lane; j < size; j += lanes) {
        out[j * step] = from_acc<Out>(exp_acc(to_acc<Acc>(a[j * step]) - m) * inv);
      }
    } else {
      const Acc shift = m + log_acc(s);
      for (int64_t j = lane; j < size; j += lanes) out[j * step] = from_acc<Out>(to_acc<Acc>(a[j * step]) - shift);
    }
  } else if (kind == SoftmaxKind::SoftmaxBackward) {
    // grad_x = y * (grad_y - sum(grad_y * y))
    Acc s = 0;
    for (int64_t j = lane; j < size; j += lanes) s += to_acc<Acc>(a[j * step]) * to_acc<Acc>(b[j * step]);
    s = reduce_sum(s);
    for (int64_t j = lane; j < size; j += lanes) {
      const Acc y = to_acc<Acc>(b[j * step]);
      out[j * step] = from_acc<Out>(y * (to_acc<Acc>(a[j * step]) - s));
    }
  } else {
    // grad_x = grad_y - exp(y) * sum(grad_y)
    Acc s = 0;
    for (int64_t j = lane; j < size; j += lanes) s += to_acc<Acc>(a[j * step]);
    s = reduce_sum(s);
    for (int64_t j = lane; j < size; j += lanes) {
      out[j * step] = from_acc<Out>(to_acc<Acc>(a[j * step]) - exp_acc(to_acc<Acc>(b[j * step])) * s);
    }
  }
}

}  // namespace hal_gpu
