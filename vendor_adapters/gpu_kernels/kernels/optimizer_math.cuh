// The per-element math of the fused optimizers (FUSED_ADAM and FUSED_SGD, adapter_ops.def): one Adam, AdamW or
// SGD update of one parameter element and its state, as ATen's CUDA fused kernels compute it, down to where
// a value is rounded. H is the hyperparameters' type: double on CUDA and HIP, as in ATen (`beta1 * exp_avg` is
// computed in double and rounded to the compute type T, float for f32, f16 and bf16 storage, double for f64);
// float in the SPIR-V modules, which use no double (devices without fp64 take them too). Plain functions of
// values (no memory access, no thread model), so every compiler of the library can use them.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

template <class H>
struct AdamHyper {
  H lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's weight decay
};

template <class H>
struct SgdHyper {
  H lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, is_first_step;
};

// One element's values in the compute type; the step writes back the ones it changes.
template <class T>
struct AdamElement {
  T param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq;
};

// The step's bias corrections, from the step count (already incremented by the optimizer): computed once per
// block in H, and used as T as ATen passes them to its per-element math.
template <class T>
struct AdamCorrections {
  T bias_correction1;       // 1 - beta1^step
  T bias_correction2_sqrt;  // sqrt(1 - beta2^step)
};

template <class T, class H>
__device__ __forceinline__ AdamCorrections<T> adam_corrections(const AdamHyper<H>& h, H step) {
  AdamCorrections<T> c;
  c.bias_correction1 = static_cast<T>(H(1) - pow(h.beta1, step));
  c.bias_correction2_sqrt = static_cast<T>(sqrt(H(1) - pow(h.beta2, step)));
  return c;
}

// grad_scale: the GradScaler's scale by which the gradient is divided first (1 when there is none; the
// caller then does not store the gradient).
template <class T, class H>
__device__ __forceinline__ void adam_step(AdamElement<T>& e, const AdamHyper<H>& h, H lr, float grad_scale,
                                          const AdamCorrections<T>& c) {
  e.grad = static_cast<T>(e.grad / static_cast<H>(grad_scale));
  T grad = h.maximize ? -e.grad : e.grad;
  if (h.weight_decay != 0) {
    if (h.decoupled) e.param = static_cast<T>(e.param - lr * h.weight_decay * e.param);
    else grad = static_cast<T>(grad + e.param * h.weight_decay);
  }
  e.exp_avg = static_cast<T>(h.beta1 * e.exp_avg + (1 - h.beta1) * grad);
  e.exp_avg_sq = static_cast<T>(h.beta2 * e.exp_avg_sq + (1 - h.beta2) * grad * grad);
  const T step_size = static_cast<T>(lr / c.bias_correction1);
  T second = e.exp_avg_sq;
  if (h.amsgrad) {
    e.max_exp_avg_sq = e.max_exp_avg_sq > e.exp_avg_sq ? e.max_exp_avg_sq : e.exp_avg_sq;
    second = e.max_exp_avg_sq;
  }
  const T denom = static_cast<T>((sqrt(second) / c.bias_correction2_sqrt) + h.eps);
  e.param -= step_size * e.exp_avg / denom;
}

template <class T>
struct SgdElement {
  T param, grad, momentum_buffer;
};

// has_momentum: the group has a momentum buffer (the optimizer passes none when momentum is 0).
template <class T, class H>
__device__ __forceinline__ void sgd_step(SgdElement<T>& e, const SgdHyper<H>& h, H lr, float grad_scale,
                                         bool has_momentum) {
  e.grad = static_cast<T>(e.grad / static_cast<H>(grad_scale));
  T grad = h.maximize ? -e.grad : e.grad;
  if (h.weight_decay != 0) grad = static_cast<T>(grad + h.weight_decay * e.param);
  if (has_momentum) {
    const H buffer = h.is_first_step ? static_cast<H>(grad)
                                     : h.momentum * e.momentum_buffer + (1 - h.dampening) * grad;
    e.momentum_buffer = static_cast<T>(buffer);
    grad = h.nesterov ? static_cast<T>(grad + h.momentum * buffer) : static_cast<T>(buffer);
  }
  e.param = static_cast<T>(e.param - lr * grad);
}

}  // namespace hal_gpu
