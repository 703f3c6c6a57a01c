// The search family's rule, one source for nvcc, hipcc and clang's SPIR-V (search.cu, ../../spirv_kernels/
// kernels/search.cl): the binary search of torch.searchsorted / torch.bucketize in one sorted line.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// The position in [0, length] where `value` goes in the ascending line: the first element not below it (left)
// or above it (right), written as PyTorch's CPU kernel compares (!(x >= v), !(x > v)) so that a NaN value goes
// after every element. element(i) gives the line's i-th element in ascending order (through the sorter when
// there is one).
template <class T, class Element>
__device__ __forceinline__ int64_t sorted_position(T value, int64_t length, bool right, Element element) {
  int64_t low = 0, high = length;
  while (low < high) {
    const int64_t mid = low + ((high - low) >> 1);
    const T x = element(mid);
    const bool before = right ? !(x > value) : !(x >= value);
    if (before) low = mid + 1;
    else high = mid;
  }
  return low;
}

}  // namespace hal_gpu
