// SUM, MEAN, PROD, AMAX and AMIN of float32 over any dims and strides, for the runtimes that take SPIR-V. A
// work-group per output element: its work-items stride over the reduced elements, then combine their partials
// in a local-memory tree of fixed shape (deterministic results, run to run). The NaN rule of amax/amin is the
// elementwise library's maximum/minimum (elementwise_ops.cuh: a NaN anywhere is the result), as reduce.cu's.
#include "kernels/elementwise_ops.cuh"
#include "kernel_layouts.h"

using hal_spirv::ReduceLayout;

constexpr int kMaxGroup = 256;  // the plan's work-group size is a power of two up to this (plan_reduce.cpp)

inline float identity_of(int op) {
  switch (op) {
    case HAL_OP_PROD: return 1.0f;
    case HAL_OP_AMAX: return -INFINITY;
    case HAL_OP_AMIN: return INFINITY;
    default: return 0.0f;
  }
}

inline float combine(int op, float a, float b) {
  switch (op) {
    case HAL_OP_PROD: return a * b;
    case HAL_OP_AMAX: return hal_gpu::ew::max_nan(a, b);
    case HAL_OP_AMIN: return hal_gpu::ew::min_nan(a, b);
    default: return a + b;
  }
}

// The offset of element j of `count` dims (row-major over `size`), with `strides`.
inline int64_t offset_of(uint64_t j, const int64_t* size, const int64_t* strides, int count) {
  int64_t offset = 0;
  for (int d = count - 1; d >= 0; --d) {
    const uint64_t q = j / static_cast<uint64_t>(size[d]);  // remainder from quotient: no `freeze` for llvm-spirv
    offset += static_cast<int64_t>(j - q * static_cast<uint64_t>(size[d])) * strides[d];
    j = q;
  }
  return offset;
}

kernel void reduce_f32(global const float* in, global float* out, ReduceLayout l, int op) {
  local float partial[kMaxGroup];
  const uint64_t m = get_group_id(0);
  const int lane = get_local_id(0), lanes = get_local_size(0);
  in += offset_of(m, l.kept_size, l.kept_in, l.kept_ndim);
  float acc = identity_of(op);
  for (int64_t j = lane; j < l.length; j += lanes) {
    acc = combine(op, acc, in[offset_of(j, l.reduced_size, l.reduced_in, l.reduced_ndim)]);
  }
  partial[lane] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = lanes / 2; width > 0; width /= 2) {
    if (lane < width) partial[lane] = combine(op, partial[lane], partial[lane + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane != 0) return;
  float result = partial[0];
  if (op == HAL_OP_MEAN) result *= 1.0f / static_cast<float>(l.length);  // as reduce.cu: 0 elements give NaN
  out[offset_of(m, l.kept_size, l.kept_out, l.kept_ndim)] = result;
}
