// UNIFORM and NORMAL into float32 tensors of any strides, and DROPOUT with its backward on dense ones, for the
// runtimes that take SPIR-V. UNIFORM and NORMAL: element i (in the row-major order of the output's shape) from
// Philox at counter offset + i with key seed, the generator and the draws of the kernel library (philox.cuh), so a
// seed gives the same values here as on NVIDIA and AMD GPUs.
#include "kernels/dropout_math.cuh"
#include "kernels/philox.cuh"
#include "strided_walk.h"

using hal_gpu::Words;

// kind 0: uniform in [a, b), a value that rounds up to b becoming a (b_ceiling: the smallest float >= b, so the
// test is the one CUDA's kernel makes in double); kind 1: normal with mean a and standard deviation b.
kernel void random_f32(global float* out, StridedLayout layout, ulong n, ulong seed, ulong offset, int kind,
                       float a, float b, float b_ceiling) {
  const uint64_t i = get_global_id(0);
  if (i >= n) return;
  const Words r = hal_gpu::philox4x32_10(offset + i, seed);
  float v;
  if (kind == 0) {
    v = a + hal_gpu::unit_float(r.x) * (b - a);
    if (v >= b_ceiling) v = a;
  } else {
    v = a + b * hal_gpu::normal_float(r);
  }
  int64_t at[1];
  offsets_of<1>(i, n, layout, at);  // the output is the layout's only operand
  out[at[0]] = v;
}

// DROPOUT on dense float32: a work-item per four elements, the draw of the kernel library (dropout_math.cuh: the
// four words of Philox at counter offset + q decide elements 4q..4q+3), so a seed gives the same mask as on
// NVIDIA and AMD GPUs. The mask is bool (one byte).
kernel void dropout_f32(global const float* x, global float* y, global uchar* mask, ulong n, float p_keep,
                        float scale, ulong seed, ulong offset) {
  const uint64_t q = get_global_id(0);
  if (q * 4 >= n) return;
  const hal_gpu::KeepQuad k = hal_gpu::dropout_keep(seed, offset, static_cast<int64_t>(q), p_keep);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint64_t i = q * 4 + j;
    if (i < n) {
      y[i] = hal_gpu::dropout_value(x[i], k.keep[j], scale);
      mask[i] = k.keep[j] ? 1 : 0;
    }
  }
}

// DROPOUT_BACKWARD: dx = dy * mask * scale, a work-item per element.
kernel void dropout_backward_f32(global const float* dy, global const uchar* mask, global float* dx, ulong n,
                                 float scale) {
  const uint64_t i = get_global_id(0);
  if (i >= n) return;
  dx[i] = hal_gpu::dropout_value(dy[i], mask[i] != 0, scale);
}
