// TRIL and TRIU of any dtype for the runtimes that take SPIR-V: the kernel library's rule (gpu_kernels/kernels/
// triangle.cuh, the same source the CUDA and HIP kernels compile) over a work-item per element of the output, whose
// bytes are copied from the input or zeroed; one kernel per element size. plan_triangular.cpp's layout walks the
// output's shape with operand 0 the output's strides and operand 1 the input's. In place (the output is the input),
// kept elements are left alone.
#include "kernels/triangle.cuh"
#include "kernel_layouts.h"
#include "strided_walk.h"

template <class Word>
inline void triangle(global Word* out, global const Word* in, const StridedLayout& l, uint64_t n, int64_t rows,
                     int64_t cols, int64_t diagonal, int upper, int in_place) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const bool keep = hal_gpu::triangle_keeps(static_cast<int64_t>(i), rows, cols, diagonal, upper != 0);
  int64_t at[2];
  offsets_of<2>(i, n, l, at);
  // Loaded whatever `keep` says, and no early return: Intel's CPU compiler vectorizes the kernel only then.
  const Word kept = in[at[1]];
  if (!keep || !in_place) out[at[0]] = keep ? kept : Word(0);
}

#define HAL_TRIANGLE_KERNEL(name, Word)                                                                      \
  kernel void name(global Word* out, global const Word* in, StridedLayout l, ulong n, long rows, long cols, \
                   long diagonal, int upper, int in_place) {                                                \
    triangle(out, in, l, n, rows, cols, diagonal, upper, in_place);                                         \
  }
HAL_TRIANGLE_KERNEL(triangle_b1, uchar)
HAL_TRIANGLE_KERNEL(triangle_b2, ushort)
HAL_TRIANGLE_KERNEL(triangle_b4, uint)
HAL_TRIANGLE_KERNEL(triangle_b8, ulong)
