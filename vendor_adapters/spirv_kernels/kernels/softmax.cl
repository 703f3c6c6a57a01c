// SOFTMAX, LOG_SOFTMAX and their backward over any dimension of contiguous float32 tensors, for the runtimes
// that take SPIR-V. The math is the kernel library's (softmax_math.cuh, the same line walk the CUDA and HIP
// kernels run); here a work-group takes one line (a row, or a column `inner` apart) and reduces across its
// work-items with OpenCL's work-group collectives, which CUDA has no equivalent of.
#include "kernels/accumulate.cuh"  // the storage <-> accumulation conversions softmax_math.cuh expects
#include "kernels/softmax_math.cuh"

// a = x (forward) or grad_y (backward); b = y (backward; unused forward); lines of `size` elements `inner`
// apart, line g at (g / inner) * size * inner + g % inner.
kernel void softmax_f32(global const float* a, global const float* b, global float* out, ulong size, ulong inner,
                        int kind) {
  const uint64_t line = get_group_id(0), outer = line / inner;
  const uint64_t base = outer * size * inner + (line - outer * inner);
  hal_gpu::softmax_line<float, float, float>(
      static_cast<hal_gpu::SoftmaxKind>(kind), a + base, b + base, out + base, size, inner, get_local_id(0),
      get_local_size(0), [](float v) { return work_group_reduce_add(v); },
      [](float v) { return work_group_reduce_max(v); });
}
