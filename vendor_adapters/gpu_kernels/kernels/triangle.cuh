// The triangular family's rule, one source for nvcc, hipcc and clang's SPIR-V (triangular.cu and
// spirv_kernels/kernels/triangular.cl walk the elements around it): whether element i (row-major over a shape
// whose last two dims are rows x cols) stays in TRIL's (TRIU's) triangle of `diagonal`.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// The remainders come from the quotients (llvm-spirv-15 cannot translate the `freeze` of a div/rem pair).
__device__ __forceinline__ bool triangle_keeps(int64_t i, int64_t rows, int64_t cols, int64_t diagonal, bool upper) {
  const int64_t line = i / cols, col = i - line * cols, row = line - line / rows * rows;
  return upper ? col - row >= diagonal : col - row <= diagonal;
}

}  // namespace hal_gpu
