// The kernels that compute in float64, a module of their own: a device without fp64 (cl_khr_fp64 is optional;
// Intel's Arc GPUs lack it) cannot build a module that uses double, and the other modules must build everywhere.
// The same walks and the same library math as the float32 kernels, instantiated for double:
//   - elementwise ops where some operand is float64 (the library's compute type rule, adapter_ops.h): typed_walk.h
//     over elementwise_ops.cuh, every operand loaded from its own element type;
//   - ARANGE into float64;
//   - SUM, MEAN, PROD, AMAX, AMIN, ARGMAX, ARGMIN, VAR, STD, ALL, ANY and VECTOR_NORM of float64 (reduce_walk.h,
//     reduce_rules.cuh, vector_norm.cuh);
//   - GEMM, convolution, softmax, layer norm, pooling, NLL loss and the scans of float64 tensors (the families'
//     kernel headers).
// The families' planners choose these kernels; the adapters report a device without fp64 as
// one on which this module does not build, and the ops then take the fallback.
#include "convolution_kernels.h"
#include "gemm_kernels.h"
#include "layer_norm_kernels.h"
#include "loss_kernels.h"
#include "pooling_kernels.h"
#include "reduce_walk.h"
#include "scan_walk.h"
#include "softmax_kernels.h"
#include "typed_walk.h"

using hal_spirv::DoubleParams;
using hal_spirv::DoubleScalars;

TYPED_KERNELS_WITH_SCALARS(double, DoubleScalars, DoubleParams, f64)

kernel void arange_f64(global double* out, long stride, ulong n, double start, double step) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const int64_t at = static_cast<int64_t>(i);
  out[at * stride] = hal_gpu::ew::arange_at(start, step, at);
}

// Reductions with a float64 operand, accumulated in float64: the ops of reduce.cl's reduce_typed_f32.
kernel void reduce_typed_f64(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                             int out_type) {
  local double partial[kMaxGroup];
  reduce_typed(in, in_type, out, out_type, l, partial, OpReducer<double>{op, static_cast<double>(l.length)});
}

kernel void arg_reduce_typed_f64(global const char* in, global char* out, ReduceLayout l, int op, int in_type,
                                 int out_type) {
  local hal_gpu::ValueIndex<double> partial[kMaxGroup];
  arg_reduce<double>(in, in_type, out, out_type, l, op, partial);
}

kernel void moments_typed_f64(global const char* in, global char* out, ReduceLayout l, int op, double correction,
                              int in_type, int out_type) {
  local hal_gpu::Moments<double> partial[kMaxGroup];
  moments_reduce<double>(in, in_type, out, out_type, l, op, correction, partial);
}

kernel void vector_norm_typed_f64(global const char* in, global char* out, ReduceLayout l, int order, double ord,
                                  int in_type, int out_type) {
  local double partial[kMaxGroup];
  local double* p = partial;
  with_norm_reducer<double>(order, ord, [=](const auto& r) { reduce_typed(in, in_type, out, out_type, l, p, r); });
}

// GEMM (gemm_kernels.h), SOFTMAX, LOG_SOFTMAX and their backward (softmax_kernels.h), LAYER_NORM and its backward with float64
// statistics (layer_norm_kernels.h), and the pooling family (pooling_kernels.h), of float64 tensors.
GEMM_KERNEL(double, double, f64, as_double(g.alpha_f64_bits), as_double(g.beta_f64_bits))
SOFTMAX_KERNEL(double, double, f64)
LAYER_NORM_KERNELS(double, double, f64)
POOLING_KERNELS(double, double, f64)

// CUMSUM, CUMPROD, LOGCUMSUMEXP, CUMMAX and CUMMIN of float64 (scan_walk.h).
SCAN_TYPED_KERNELS(double, f64)

// NLL_LOSS and its backward of float64 logp (loss_kernels.h).
NLL_KERNELS(double, double, f64)

// HAL_OP_CONVOLUTION and its two backward ops of float64 (convolution_kernels.h).
CONVOLUTION_KERNELS(double, double, f64)
