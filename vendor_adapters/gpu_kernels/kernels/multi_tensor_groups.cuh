// The device side of multi_tensor_batches.h: which group of a multi-tensor launch a block works on.
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

// The last group whose first block is at or before `block` (Args's first_block[0..num_groups) ascends, as
// launch_in_batches fills it): a binary search, since a launch holds up to a hundred groups.
template <class Args>
__device__ __forceinline__ int group_of_block(const Args& a, int32_t block) {
  int lo = 0, hi = a.num_groups - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (a.first_block[mid] <= block) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace hal_gpu
