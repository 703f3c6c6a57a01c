// The rules of NLL_LOSS and its backward for one sample, once for every runtime: the CUDA/HIP kernels
// (loss.cu) and the SPIR-V kernels (../../spirv_kernels/kernels/loss.cl) differ only in how they walk the
// samples and sum them. Each caller reads its tensors through the callables it passes (`weight_of(t)`,
// `logp_of(t)`), which are called for a class t in [0, C) only: nothing is read out of bounds.
#pragma once

#include "kernels/gpu_runtime.h"
#if !defined(__OPENCL_CPP_VERSION__)
#include <cmath>
#include <cstdint>
#endif

namespace hal_gpu::nll {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// The term of a sample whose target is t: loss -w[t] * logp[t] and its weight w[t]; (0, 0) for ignore_index;
// (NaN, 0) for a target outside [0, C), which PyTorch raises on and a kernel cannot: the NaN shows in the result.
template <class Acc, class WeightOf, class LogpOf>
__device__ __forceinline__ void sample_term(int64_t t, int64_t C, int64_t ignore_index, WeightOf weight_of,
                                            LogpOf logp_of, Acc& loss, Acc& weight) {
  if (t == ignore_index) {
    loss = 0;
    weight = 0;
  } else if (t < 0 || t >= C) {
    loss = Acc(NAN);
    weight = 0;
  } else {
    weight = weight_of(t);
    loss = -weight * logp_of(t);
  }
}

// The loss of reduction sum or mean from the sums of the terms and of the weights: mean over no weight is
// 0/0 = NaN, as in PyTorch.
template <class Acc>
__device__ __forceinline__ Acc reduced_loss(Acc loss_sum, Acc weight_sum, bool mean) {
  return mean ? loss_sum / weight_sum : loss_sum;
}

// The upstream gradient of every sample for reductions sum and mean (grad_loss, over total_weight for mean).
template <class Acc>
__device__ __forceinline__ Acc reduced_scale(Acc grad_loss, Acc total_weight, int64_t reduction) {
  if (reduction == kNone) return 0;
  return reduction == kMean ? grad_loss / total_weight : grad_loss;
}

// The gradient of a sample's logp at its target t (its row's one nonzero): -w[t] * upstream; 0 for an ignored
// or invalid target.
template <class Acc, class WeightOf>
__device__ __forceinline__ Acc target_gradient(int64_t t, int64_t C, int64_t ignore_index, WeightOf weight_of,
                                               Acc upstream) {
  if (t < 0 || t >= C || t == ignore_index) return 0;
  return -weight_of(t) * upstream;
}

}  // namespace hal_gpu::nll
