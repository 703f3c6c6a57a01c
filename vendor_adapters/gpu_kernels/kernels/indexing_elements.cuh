// The indexing family's element rules and its row selection, one source for nvcc, hipcc and clang's SPIR-V
// (indexing.cu and spirv_kernels/kernels/indexing.cl declare the entry points around them): an index checked
// (and wrapped) against its dimension, elements copied or zeroed as raw bytes of their size, and the body of
// INDEX_SELECT along dim 0 of contiguous tensors (an embedding's lookup), in gpu_runtime.h's thread model.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

__device__ __forceinline__ void copy_element(char* dst, const char* src, int size) {
  switch (size) {
    case 1: *reinterpret_cast<uint8_t*>(dst) = *reinterpret_cast<const uint8_t*>(src); break;
    case 2: *reinterpret_cast<uint16_t*>(dst) = *reinterpret_cast<const uint16_t*>(src); break;
    case 4: *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<const uint32_t*>(src); break;
    default: *reinterpret_cast<uint64_t*>(dst) = *reinterpret_cast<const uint64_t*>(src); break;
  }
}
__device__ __forceinline__ void zero_element(char* dst, int size) {
  switch (size) {
    case 1: *reinterpret_cast<uint8_t*>(dst) = 0; break;
    case 2: *reinterpret_cast<uint16_t*>(dst) = 0; break;
    case 4: *reinterpret_cast<uint32_t*>(dst) = 0; break;
    default: *reinterpret_cast<uint64_t*>(dst) = 0; break;
  }
}

// The index made non-negative Python-style when `wrap`; -1 when out of [0, size).
__device__ __forceinline__ int64_t checked_index(int64_t i, int64_t size, bool wrap) {
  if (wrap && i < 0) i += size;
  return (i >= 0 && i < size) ? i : -1;
}

// out[k, :] = self[index[k], :] over `rows` rows of `units_per_row` units (a row's bytes in units of `Unit`), the
// index wrapped and checked against self's `self_rows` (a bad one selects zeros); index_at(k) reads index k.
template <class Unit, class IndexAt>
__device__ __forceinline__ void index_select_rows_body(Unit* out, const Unit* self, IndexAt index_at, int64_t rows,
                                                       int64_t units_per_row, int64_t self_rows) {
  const int64_t n = rows * units_per_row;
  for (int64_t e = grid_thread(); e < n; e += grid_threads()) {
    const int64_t k = e / units_per_row, u = e - k * units_per_row;
    const int64_t i = checked_index(index_at(k), self_rows, true);
    if (i < 0) {
      Unit zero;
      __builtin_memset(&zero, 0, sizeof(Unit));
      out[e] = zero;
    } else {
      out[e] = self[i * units_per_row + u];
    }
  }
}

}  // namespace hal_gpu
