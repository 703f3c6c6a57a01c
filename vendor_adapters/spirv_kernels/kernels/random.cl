// UNIFORM and NORMAL into float32 tensors of any strides, for the runtimes that take SPIR-V: element i (in the
// row-major order of the output's shape) from Philox at counter offset + i with key seed, the generator and the
// draws of the kernel library (philox.cuh), so a seed gives the same values here as on NVIDIA and AMD GPUs.
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
