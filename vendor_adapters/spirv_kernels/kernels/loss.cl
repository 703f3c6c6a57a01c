// NLL_LOSS and its backward for float32 logp and int64 targets, for the runtimes that take SPIR-V. The rules of
// a sample (ignore_index, invalid targets, weights, mean over total weight) are the kernel library's
// (nll_rules.cuh, as loss.cu); here reduction sum/mean is one work-group summing with work-group collectives,
// and the backward writes every element of grad_logp (zeros off the target), a work-item each.
#include "kernels/nll_rules.cuh"
#include "kernel_layouts.h"

using hal_spirv::NllShape;

inline void term(global const float* logp, global const long* target, global const float* weight, const NllShape& s,
                 int64_t i, float& loss, float& w) {
  hal_gpu::nll::sample_term<float>(
      target[i * s.target], s.c, s.ignore_index,
      [&](int64_t c) { return s.has_weight ? weight[c * s.weight] : 1.0f; },
      [&](int64_t c) { return logp[i * s.logp_row + c * s.logp_class]; }, loss, w);
}

// Reduction none: a work-item per sample; total_weight, where wanted, is 0 (as ATen's).
kernel void nll_loss_none_f32(global const float* logp, global const long* target, global const float* weight,
                              global float* loss, global float* total_weight, NllShape s) {
  const int64_t i = get_global_id(0);
  if (i == 0 && s.has_total_weight) *total_weight = 0.0f;
  if (i >= s.n) return;
  float l, w;
  term(logp, target, weight, s, i, l, w);
  loss[i * s.out] = l;
}

// Reduction sum or mean: one work-group; total_weight is the sum of the counted samples' weights.
kernel void nll_loss_reduce_f32(global const float* logp, global const long* target, global const float* weight,
                                global float* loss, global float* total_weight, NllShape s) {
  float loss_sum = 0, weight_sum = 0;
  for (int64_t i = get_local_id(0); i < s.n; i += get_local_size(0)) {
    float l, w;
    term(logp, target, weight, s, i, l, w);
    loss_sum += l;
    weight_sum += w;
  }
  loss_sum = work_group_reduce_add(loss_sum);
  weight_sum = work_group_reduce_add(weight_sum);
  if (get_local_id(0) != 0) return;
  *loss = hal_gpu::nll::reduced_loss(loss_sum, weight_sum, s.reduction == hal_gpu::nll::kMean);
  if (s.has_total_weight) *total_weight = weight_sum;
}

// grad_logp[i, c] for c along the launch's first dimension and i along its second.
kernel void nll_loss_backward_f32(global const float* grad_loss, global const long* target,
                                  global const float* weight, global const float* total_weight, global float* grad,
                                  NllShape s) {
  const int64_t c = get_global_id(0), i = get_global_id(1);
  if (c >= s.c || i >= s.n) return;
  const int64_t t = target[i * s.target];
  float g = 0.0f;
  if (c == t) {
    const float upstream =
        s.reduction == hal_gpu::nll::kNone
            ? grad_loss[i * s.out]
            : hal_gpu::nll::reduced_scale(*grad_loss, s.reduction == hal_gpu::nll::kMean ? *total_weight : 1.0f,
                                          s.reduction);
    g = hal_gpu::nll::target_gradient<float>(
        t, s.c, s.ignore_index, [&](int64_t k) { return s.has_weight ? weight[k * s.weight] : 1.0f; }, upstream);
  }
  grad[i * s.grad_row + c * s.grad_class] = g;
}
