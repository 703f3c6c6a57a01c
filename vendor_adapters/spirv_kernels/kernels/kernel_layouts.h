// The by-value argument structs of the SPIR-V kernels, one definition read by both sides: the kernels (C++ for
// OpenCL, where opencl_portability.h defines the fixed-width types) and the launch plans (host C++). Only
// fixed-width fields, 8-byte ones first, so both compilers lay them out alike; the plans static_assert the sizes.
// Strides are in elements; a stride of 0 broadcasts.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

namespace hal_spirv {

// Dimensions the strided kernels walk after merging (plan_strided.h); a layout needing more is left to the
// fallback.
constexpr int kMaxDims = 8;

// An elementwise iteration space: the output's shape (row-major order of work-items) and each operand's strides,
// inputs first and the output last. A scalar operand (adapter.h) has its value in scalar[] and bit k of
// scalar_mask set; its strides are 0 and its pointer is never read.
struct StridedLayout {
  int64_t size[kMaxDims];
  int64_t stride[4][kMaxDims];
  int32_t ndim;
  int32_t scalar_mask;
  float scalar[4];
};

// The element types of the typed kernels (elementwise.cl's *_typed_*, reduce.cl's, float64.cl's), which load them
// into the compute type, compute, and store back (element_types.h): float16 and bfloat16 compute in float32 as on
// CUDA (their opmath type); float64 only in float64.cl's kernels. A launch packs operand k's type in bits
// 8k..8k+7 of one int.
enum ElementType : int32_t {
  kF32 = 0, kBool = 1, kU8 = 2, kI8 = 3, kI16 = 4, kI32 = 5, kI64 = 6, kF16 = 7, kBF16 = 8, kF64 = 9
};

// The scalar operands' values of the int64 elementwise kernels (a StridedLayout's are float), by input index.
struct IntegerScalars {
  int64_t value[4];
};

// The scalar operands' values of the float64 kernels, by input index.
struct DoubleScalars {
  double value[4];
};

// An elementwise op's own scalars (elementwise_ops.cuh's Params, which OpenCL does not take as a kernel argument:
// a template with default member initializers) in the compute type: the numbers in order, then the mode.
struct FloatParams {
  float s0, s1, s2;
  int32_t mode;
};
struct IntegerParams {
  int64_t s0, s1, s2;
  int32_t mode;
  int32_t unused;
};
struct DoubleParams {
  double s0, s1, s2;
  int32_t mode;
  int32_t unused;
};

// A reduction: one output element per index of the kept dims, reducing `length` elements over the reduced dims.
struct ReduceLayout {
  int64_t kept_size[kMaxDims];
  int64_t kept_in[kMaxDims];   // the input's strides along the kept dims
  int64_t kept_out[kMaxDims];  // the output's
  int64_t reduced_size[kMaxDims];
  int64_t reduced_in[kMaxDims];
  int64_t length;
  int32_t kept_ndim;
  int32_t reduced_ndim;
};

// out[b, i, j] = alpha * sum_k a[b, i, k] * b[b, k, j] + beta * c[b, i, j]; each operand as (batch, row, column)
// strides, batch stride 0 for a matrix shared by the batch. beta == 0: c is not read.
struct GemmShape {
  int64_t batch, m, n, k;
  int64_t a[3], b[3], c[3], out[3];
  // The same as float64 bits, which float64.cl's kernel reads: a double member would make every module that
  // declares the struct need fp64.
  uint64_t alpha_f64_bits, beta_f64_bits;
  float alpha, beta;
};

// NLL_LOSS over logp [N, C] (a [C] input is N = 1 with a row stride of 0), int64 targets.
struct NllShape {
  int64_t n, c;
  int64_t logp_row, logp_class;  // strides of logp (forward) or of the incoming logp (backward)
  int64_t target, weight;        // strides of target and weight
  int64_t out;                   // forward, reduction none: the loss's stride; backward: grad_loss's (none)
  int64_t grad_row, grad_class;  // backward: grad_logp's strides
  int64_t ignore_index;
  int64_t reduction;  // nll_rules.cuh: 0 none, 1 mean, 2 sum
  int32_t has_weight;
  int32_t has_total_weight;  // forward: whether total_weight is wanted
};

// FUSED_ADAM over one parameter of n elements (kernels/fused_optimizer.cl): the hyperparameters in float (the
// modules use no double), and which of the optional operands are present (absent ones get a stand-in pointer).
struct FusedAdamArgs {
  int64_t n;
  float lr, beta1, beta2, weight_decay, eps;
  int32_t amsgrad, maximize, decoupled;
  int32_t has_device_lr, has_grad_scale, has_found_inf;
};

// FUSED_SGD over one parameter of n elements.
struct FusedSgdArgs {
  int64_t n;
  float lr, weight_decay, momentum, dampening;
  int32_t nesterov, maximize, is_first_step, has_momentum;
  int32_t has_device_lr, has_grad_scale, has_found_inf;
};
// BATCH_NORM and BATCH_NORM_BACKWARD over x [N, C, S] (kernels/batch_norm.cl: a work-group per channel). The [C]
// parameters may have any stride, and be absent (their pointer then a stand-in, never read).
struct BatchNormShape {
  int64_t n, c, s;          // x's sizes; x, y, dy and dx are dense in the layout that flags say
  int64_t param_stride[4];  // forward: weight, bias, running_mean, running_var; backward: weight, dweight, dbias
  float momentum, eps;      // forward
  int32_t flags;            // kBatchNorm* bits
};
constexpr int32_t kBatchNormTraining = 1;      // batch statistics (forward); their gradient (backward)
constexpr int32_t kBatchNormChannelsLast = 2;  // element (n, c, s) at (n * S + s) * C + c, else (n * C + c) * S + s
constexpr int32_t kBatchNormDx = 4;            // backward: dx is wanted
constexpr int32_t kBatchNormParam0 = 8;        // parameter k is present: bit kBatchNormParam0 << k

}  // namespace hal_spirv
