// The softmax kernels' line walk (softmax.cl for float32, float16 and bfloat16 accumulated in float32, float64.cl
// for float64): a work-group per line, the kernel library's softmax_line over OpenCL's work-group collectives.
// SOFTMAX_KERNEL(T, Acc, suffix) defines the entry point softmax_<suffix>. C++ for OpenCL only.
#pragma once

#include "kernels/accumulate.cuh"  // the storage <-> accumulation conversions softmax_math.cuh expects
#include "kernels/softmax_math.cuh"

// a = x (forward) or grad_y (backward); b = y (backward; unused forward); lines of `size` elements `inner`
// apart, line g at (g / inner) * size * inner + g % inner.
template <class T, class Acc>
inline void softmax_lines(global const T* a, global const T* b, global T* out, uint64_t size, uint64_t inner,
                          int kind) {
  const uint64_t line = get_group_id(0), outer = line / inner;
  const uint64_t base = outer * size * inner + (line - outer * inner);
  hal_gpu::softmax_line<T, T, Acc>(
      static_cast<hal_gpu::SoftmaxKind>(kind), a + base, b + base, out + base, size, inner, get_local_id(0),
      get_local_size(0), [](Acc v) { return work_group_reduce_add(v); },
      [](Acc v) { return work_group_reduce_max(v); });
}

#define SOFTMAX_KERNEL(T, Acc, suffix)                                                                                 \
  kernel void softmax_##suffix(global const T* a, global const T* b, global T* out, ulong size, ulong inner,           \
                               int kind) {                                                                             \
    softmax_lines<T, Acc>(a, b, out, size, inner, kind);                                                               \
  }
