// The embedding family's kernel body, one source for nvcc, hipcc and clang's SPIR-V (embedding.cu and
// spirv_kernels/kernels/embedding.cl declare the entry points around it): EMBEDDING_BACKWARD's accumulation,
// every (n, d) element of grad [N, D] added atomically to row indices[n] of the zeroed accumulator acc [V, D].
// Rows equal to padding_idx receive nothing, and an index outside [0, V) is skipped: nothing is ever written
// out of bounds. index_at(n) reads index n; grad_at(n, d) reads grad's element in the accumulation type.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

template <class Acc, class IndexAt, class GradAt>
__device__ __forceinline__ void embedding_accumulate_body(IndexAt index_at, GradAt grad_at, Acc* acc, int64_t N,
                                                          int64_t D, int64_t V, int64_t padding_idx) {
  const int64_t n_elements = N * D;
  for (int64_t e = grid_thread(); e < n_elements; e += grid_threads()) {
    const int64_t n = e / D, d = e - n * D;
    const int64_t v = index_at(n);
    if (v < 0 || v >= V || v == padding_idx) continue;
    atomic_add(acc + v * D + d, grad_at(n, d));
  }
}

}  // namespace hal_gpu
