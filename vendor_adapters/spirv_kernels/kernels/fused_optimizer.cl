// FUSED_ADAM and FUSED_SGD on float32 for the runtimes that take SPIR-V: a launch per parameter (plan_fused_optimizer.cpp;
// OpenCL kernel arguments cannot carry a list of pointers), a work-item per element, the per-element math of the
// kernel library (gpu_kernels/kernels/optimizer_math.cuh, which the CUDA and HIP kernels compile too) with its
// hyperparameters in float. The step count, a device learning rate, GradScaler's scale and found_inf are read on
// the device; absent ones have a stand-in pointer, read but not used, so that every load is unconditional.
#include "kernels/gpu_runtime.h"
#include "kernels/optimizer_math.cuh"
#include "kernel_layouts.h"

using hal_spirv::FusedAdamArgs;
using hal_spirv::FusedSgdArgs;

kernel void fused_adam_f32(global float* param, global float* grad, global float* exp_avg, global float* exp_avg_sq,
                           global float* max_exp_avg_sq, global const float* step, global const float* device_lr,
                           global const float* grad_scale, global const float* found_inf, FusedAdamArgs a) {
  const int64_t i = get_global_id(0);
  if (i >= a.n) return;
  const bool skip = a.has_found_inf != 0 && *found_inf == 1.f;  // GradScaler found inf or NaN: the step is skipped
  if (skip) return;
  const float lr_value = *device_lr, scale_value = *grad_scale;
  const float lr = a.has_device_lr != 0 ? lr_value : a.lr;
  const float scale = a.has_grad_scale != 0 ? scale_value : 1.f;
  const hal_gpu::AdamHyper<float> h{a.lr,          a.beta1,           a.beta2,           a.weight_decay,
                                    a.eps,         a.amsgrad != 0,    a.maximize != 0,   a.decoupled != 0};
  const hal_gpu::AdamCorrections<float> c = hal_gpu::adam_corrections<float, float>(h, *step);
  const float max_value = max_exp_avg_sq[i];
  hal_gpu::AdamElement<float> e{param[i], grad[i], exp_avg[i], exp_avg_sq[i], h.amsgrad ? max_value : 0.f};
  hal_gpu::adam_step(e, h, lr, scale, c);
  param[i] = e.param;
  exp_avg[i] = e.exp_avg;
  exp_avg_sq[i] = e.exp_avg_sq;
  if (h.amsgrad) max_exp_avg_sq[i] = e.max_exp_avg_sq;
  if (a.has_grad_scale != 0) grad[i] = e.grad;
}

kernel void fused_sgd_f32(global float* param, global float* grad, global float* momentum_buffer,
                          global const float* device_lr, global const float* grad_scale, global const float* found_inf,
                          FusedSgdArgs a) {
  const int64_t i = get_global_id(0);
  if (i >= a.n) return;
  const bool skip = a.has_found_inf != 0 && *found_inf == 1.f;
  if (skip) return;
  const float lr_value = *device_lr, scale_value = *grad_scale;
  const float lr = a.has_device_lr != 0 ? lr_value : a.lr;
  const float scale = a.has_grad_scale != 0 ? scale_value : 1.f;
  const hal_gpu::SgdHyper<float> h{a.lr,           a.weight_decay,   a.momentum,          a.dampening,
                                   a.nesterov != 0, a.maximize != 0, a.is_first_step != 0};
  const float buffer = momentum_buffer[i];
  hal_gpu::SgdElement<float> e{param[i], grad[i], buffer};
  hal_gpu::sgd_step(e, h, lr, scale, a.has_momentum != 0);
  param[i] = e.param;
  if (a.has_momentum != 0) momentum_buffer[i] = e.momentum_buffer;
  if (a.has_grad_scale != 0) grad[i] = e.grad;
}
