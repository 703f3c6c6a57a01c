// How the multi-tensor families (multi_tensor.cu, multi_tensor_norm.cu) split their list of tensors into
// launches: each launch's by-value argument holds a fixed array of groups (one tensor, or one tensor of each
// operand list) and, for each, the first of its blocks (the kernels find their group by a binary search).
// A launch takes groups in order until its array is full or the next group's blocks would pass max_blocks.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "torch_hal/adapter.h"

namespace hal_gpu {

// Whether a tensor's pointer allows 16-byte (pack) accesses.
inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Args has groups[kMax], first_block[kMax] (int32_t) and num_groups; blocks_of(group) is its block count;
// launch(args, blocks) runs one batch. Stops at the first launch that fails, and returns its status.
template <class Args, class Group, class BlocksOf, class Launch>
hal_status_t launch_in_batches(const std::vector<Group>& groups, Args& a, int64_t max_blocks, BlocksOf&& blocks_of,
                               Launch&& launch) {
  constexpr int kMaxGroups = static_cast<int>(std::extent<decltype(Args::first_block)>::value);
  int64_t blocks = 0;
  a.num_groups = 0;
  for (const Group& g : groups) {
    const int64_t needed = blocks_of(g);
    if (a.num_groups == kMaxGroups || blocks + needed > max_blocks) {
      if (hal_status_t st = launch(a, blocks); st != HAL_STATUS_SUCCESS) return st;
      a.num_groups = 0;
      blocks = 0;
    }
    a.groups[a.num_groups] = g;
    a.first_block[a.num_groups] = static_cast<int32_t>(blocks);
    ++a.num_groups;
    blocks += needed;
  }
  return a.num_groups == 0 ? HAL_STATUS_SUCCESS : launch(a, blocks);
}

}  // namespace hal_gpu
