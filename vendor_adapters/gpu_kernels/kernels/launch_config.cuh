// Grid sizes for grid-stride kernels, from the device's SM count (queried once per device).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "kernels/adapter_services.h"
#include "kernels/gpu_runtime.h"
#include "kernels/op_call.h"

namespace hal_gpu {

// Number of SMs (CUs on AMD) of `device`, cached: the adapter's query is not free on every launch.
inline int sm_count(int32_t device) {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  constexpr int kUnknown = 132;  // an H100's count: grids sized for a large GPU stay correct on any
  if (device < 0 || device >= kMaxCachedDevices) return kUnknown;
  int n = cache[device].load(std::memory_order_relaxed);
  if (n == 0) {
    n = multiprocessor_count(device);
    if (n <= 0) n = kUnknown;
    cache[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

// blocks_per_sm for streaming kernels that give each thread one item: the grid covers all the work and the
// hardware's block scheduler balances it, bounded only by the grid's own limit (the kernel loops past it).
constexpr int kUncapped = 0;

// Blocks for `work` items of `per_block` each: enough to fill the GPU several times over, no more (the
// kernels loop over the rest), and at least one.
inline unsigned grid_for(int64_t work, int per_block, int32_t device, int blocks_per_sm = 32) {
  const int64_t needed = (work + per_block - 1) / per_block;
  const int64_t cap = blocks_per_sm == kUncapped ? int64_t{0x7fffffff}
                                                 : static_cast<int64_t>(sm_count(device)) * blocks_per_sm;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(needed, cap)));
}

}  // namespace hal_gpu
