// The NLL loss kernels of the SPIR-V modules (loss.cl: float32, float16 and bfloat16 accumulated in float32;
// float64.cl: float64), int64 targets. The rules of a sample (ignore_index, invalid targets, weights, mean over
// total weight) are the kernel library's (nll_rules.cuh, as loss.cu); reduction sum/mean is one work-group summing
// with work-group collectives, and the backward writes every element of grad_logp (zeros off the target), a
// work-item each. NLL_KERNELS(T, Acc, suffix) defines nll_loss_none_<suffix>, nll_loss_reduce_<suffix> and
// nll_loss_backward_<suffix>. C++ for OpenCL only.
#pragma once

#include "kernels/accumulate.cuh"  // storage <-> accumulation conversions
#include "kernels/nll_rules.cuh"
#include "kernel_layouts.h"

using hal_spirv::NllShape;

template <class T, class Acc>
inline void term(global const T* logp, global const long* target, global const T* weight, const NllShape& s,
                 int64_t i, Acc& loss, Acc& w) {
  hal_gpu::nll::sample_term<Acc>(
      target[i * s.target], s.c, s.ignore_index,
      [&](int64_t c) { return s.has_weight ? hal_gpu::to_acc<Acc>(weight[c * s.weight]) : Acc(1); },
      [&](int64_t c) { return hal_gpu::to_acc<Acc>(logp[i * s.logp_row + c * s.logp_class]); }, loss, w);
}

// Reduction none: a work-item per sample; total_weight, where wanted, is 0 (as ATen's).
template <class T, class Acc>
inline void nll_none(global const T* logp, global const long* target, global const T* weight, global T* loss,
                     global T* total_weight, const NllShape& s) {
  const int64_t i = get_global_id(0);
  if (i == 0 && s.has_total_weight) *total_weight = hal_gpu::from_acc<T>(Acc(0));
  if (i >= s.n) return;
  Acc l, w;
  term<T, Acc>(logp, target, weight, s, i, l, w);
  loss[i * s.out] = hal_gpu::from_acc<T>(l);
}

// Reduction sum or mean: one work-group; total_weight is the sum of the counted samples' weights.
template <class T, class Acc>
inline void nll_reduce(global const T* logp, global const long* target, global const T* weight, global T* loss,
                       global T* total_weight, const NllShape& s) {
  Acc loss_sum = 0, weight_sum = 0;
  for (int64_t i = get_local_id(0); i < s.n; i += get_local_size(0)) {
    Acc l, w;
    term<T, Acc>(logp, target, weight, s, i, l, w);
    loss_sum += l;
    weight_sum += w;
  }
  loss_sum = work_group_reduce_add(loss_sum);
  weight_sum = work_group_reduce_add(weight_sum);
  if (get_local_id(0) != 0) return;
  *loss = hal_gpu::from_acc<T>(hal_gpu::nll::reduced_loss(loss_sum, weight_sum, s.reduction == hal_gpu::nll::kMean));
  if (s.has_total_weight) *total_weight = hal_gpu::from_acc<T>(weight_sum);
}

// grad_logp[i, c] for c along the launch's first dimension and i along its second.
template <class T, class Acc>
inline void nll_backward(global const T* grad_loss, global const long* target, global const T* weight,
                         global const T* total_weight, global T* grad, const NllShape& s) {
  const int64_t c = get_global_id(0), i = get_global_id(1);
  if (c >= s.c || i >= s.n) return;
  const int64_t t = target[i * s.target];
  Acc g = 0;
  if (c == t) {
    const Acc scale = s.reduction == hal_gpu::nll::kMean ? hal_gpu::to_acc<Acc>(*total_weight) : Acc(1);
    const Acc upstream = s.reduction == hal_gpu::nll::kNone
                             ? hal_gpu::to_acc<Acc>(grad_loss[i * s.out])
                             : hal_gpu::nll::reduced_scale(hal_gpu::to_acc<Acc>(*grad_loss), scale, s.reduction);
    g = hal_gpu::nll::target_gradient<Acc>(
        t, s.c, s.ignore_index,
        [&](int64_t k) { return s.has_weight ? hal_gpu::to_acc<Acc>(weight[k * s.weight]) : Acc(1); }, upstream);
  }
  grad[i * s.grad_row + c * s.grad_class] = hal_gpu::from_acc<T>(g);
}

#define NLL_KERNELS(T, Acc, suffix)                                                                                 \
  kernel void nll_loss_none_##suffix(global const T* logp, global const long* target, global const T* weight,       \
                                     global T* loss, global T* total_weight, NllShape s) {                          \
    nll_none<T, Acc>(logp, target, weight, loss, total_weight, s);                                                  \
  }                                                                                                                 \
  kernel void nll_loss_reduce_##suffix(global const T* logp, global const long* target, global const T* weight,     \
                                       global T* loss, global T* total_weight, NllShape s) {                        \
    nll_reduce<T, Acc>(logp, target, weight, loss, total_weight, s);                                                \
  }                                                                                                                 \
  kernel void nll_loss_backward_##suffix(global const T* grad_loss, global const long* target,                      \
                                         global const T* weight, global const T* total_weight, global T* grad,      \
                                         NllShape s) {                                                              \
    nll_backward<T, Acc>(grad_loss, target, weight, total_weight, grad, s);                                         \
  }
