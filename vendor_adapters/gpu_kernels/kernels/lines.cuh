// Ops that work along one dimension (scans, sorts) see their tensors as LINES: every index of the other
// dimensions names one line, and the op runs along it. Lines<N> describes N tensors that agree on every
// dimension but the op's (their sizes along it may differ, as topk's output from its input): the lines'
// row-major geometry with adjacent dimensions merged where every tensor allows, and each tensor's stride
// along the op's dimension.
#pragma once

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

template <int N>
struct Lines {
  int32_t dims = 0;                  // merged dimensions of the lines, row-major (last fastest)
  int64_t sizes[HAL_MAX_DIMS] = {};
  int64_t strides[N][HAL_MAX_DIMS] = {};
  int64_t count = 0;                 // number of lines
  int64_t step[N] = {};              // each tensor's stride along the op's dimension
  int64_t length[N] = {};            // each tensor's size along it
};

// The lines of `tensors` along `dim` (wrapped; a 0-dim tensor is one line of one element). False when the
// tensors differ in rank or in a size other than dim's.
template <int N>
inline bool lines_of(const hal_tensor_t* const (&tensors)[N], int64_t dim, Lines<N>& out) {
  const int32_t rank = tensors[0]->ndim;
  for (int k = 0; k < N; ++k) {
    if (tensors[k]->ndim != rank) return false;
    out.step[k] = rank > 0 ? tensors[k]->strides[dim] : 0;
    out.length[k] = rank > 0 ? tensors[k]->shape[dim] : 1;
  }
  out.count = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    const int64_t size = tensors[0]->shape[d];
    for (int k = 1; k < N; ++k) {
      if (tensors[k]->shape[d] != size) return false;
    }
    out.count *= size;
    if (size == 1) continue;
    const int j = out.dims;
    // Merged into the previous line dimension where it steps exactly over this one in every tensor.
    bool merge = j > 0;
    for (int k = 0; merge && k < N; ++k) merge = out.strides[k][j - 1] == tensors[k]->strides[d] * size;
    if (merge) {
      out.sizes[j - 1] *= size;
      for (int k = 0; k < N; ++k) out.strides[k][j - 1] = tensors[k]->strides[d];
    } else {
      out.sizes[j] = size;
      for (int k = 0; k < N; ++k) out.strides[k][j] = tensors[k]->strides[d];
      out.dims = j + 1;
    }
  }
  return true;
}

// Element offsets of line m's first element in each tensor.
template <int N>
__device__ __forceinline__ void line_offsets(int64_t m, const Lines<N>& l, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = l.dims - 1; d >= 0; --d) {
    const int64_t c = m % l.sizes[d];
    m /= l.sizes[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += c * l.strides[k][d];
  }
}

// The op's dimension from its scalar, wrapped into [0, rank) (rank 0 counts as 1); -1 when out of range.
inline int64_t wrapped_dim(const hal_scalar_t& s, int32_t ndim) {
  int64_t dim = s.kind == 1 ? s.value.i : static_cast<int64_t>(s.value.f);
  const int64_t rank = ndim > 0 ? ndim : 1;
  if (dim < 0) dim += rank;
  return dim >= 0 && dim < rank ? dim : -1;
}

}  // namespace hal_gpu
