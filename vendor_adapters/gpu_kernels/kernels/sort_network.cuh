// The order SORT and TOPK sort by, and the block-wide bitonic network that sorts a line (or a run of a long line)
// in shared memory: shared by sort.cu (lines a block holds) and sort_long_lines.cu (longer lines: runs sorted by
// the network, then merged). CUDA and HIP.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

template <class K>
__device__ __forceinline__ bool is_nan_key(K v) {
  if constexpr (std::is_floating_point_v<K>) return v != v;
  else return false;
}

// Whether (ka, ia) comes before (kb, ib) in a sorted line of `length` elements (positions past it are padding).
// The order is total: equal values keep their positions' order (stable, descending too), NaN ranks above every
// number (as ATen), padding below everything.
template <class K>
__device__ __forceinline__ bool before(K ka, int32_t ia, K kb, int32_t ib, bool descending, int32_t length) {
  const bool pad_a = ia >= length, pad_b = ib >= length;
  if (pad_a || pad_b) return pad_a && pad_b ? ia < ib : pad_b;
  const bool nan_a = is_nan_key(ka), nan_b = is_nan_key(kb);
  if (nan_a || nan_b) {
    if (nan_a && nan_b) return ia < ib;
    return descending ? nan_a : nan_b;  // NaN is the largest value
  }
  if (ka != kb) return descending ? ka > kb : ka < kb;
  return ia < ib;
}

// Sorts keys[0, n) with their positions pos[] (n a power of two) by `before`, with the block's `threads` threads
// (all of which call it); ends with the block synchronized.
template <class K>
__device__ __forceinline__ void bitonic_sort(K* keys, int32_t* pos, int32_t n, int32_t length, bool descending,
                                             int32_t threads) {
  // Bitonic merges of runs of size k, each in steps of distance j: n / 2 compare-exchanges per step.
  for (int32_t k = 2; k <= n; k <<= 1) {
    for (int32_t j = k >> 1; j > 0; j >>= 1) {
      for (int32_t p = threadIdx.x; p < n / 2; p += threads) {
        const int32_t i = 2 * j * (p / j) + (p % j), other = i + j;
        const bool ascending_run = (i & k) == 0;
        const bool swap = ascending_run ? before(keys[other], pos[other], keys[i], pos[i], descending, length)
                                        : before(keys[i], pos[i], keys[other], pos[other], descending, length);
        if (swap) {
          const K key = keys[i];
          keys[i] = keys[other];
          keys[other] = key;
          const int32_t q = pos[i];
          pos[i] = pos[other];
          pos[other] = q;
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace hal_gpu
