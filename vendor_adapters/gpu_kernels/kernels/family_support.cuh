// Small helpers shared by the kernel families: the op's scalars (converted by tensor_operands.h), storage-type
// conversions and warp/block sums (accumulate.cuh, which the SPIR-V kernels take too), 16-byte packs for templated
// kernels, stream-ordered scratch memory, and launch geometry. Additive to tensor_access.cuh (which owns dtype
// loads/stores).
#pragma once

#include <cstdint>

#include "kernels/accumulate.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

// The op's own scalar k, as adapter.h numbers them (after any scalar operands' values, which come first).
inline const hal_scalar_t& op_scalar(const OpCall& call, int k, int scalar_operands = 0) {
  return call.scalars[scalar_operands + k];
}
// Scalars the caller must have passed: NOT_SUPPORTED (no side effect) when it passed fewer.
inline bool has_scalars(const OpCall& call, int count) { return call.scalars != nullptr && call.num_scalars >= count; }

// kSize elements of storage type S in one 16-byte access (vectorized loads and stores).
template <class S>
struct alignas(16) Pack {
  static constexpr int kSize = 16 / static_cast<int>(sizeof(S));
  S v[kSize];
};

// A 1-D grid for `n` work items with grid-stride loops (grid.x capped so it never exceeds limits).
inline unsigned grid_for(int64_t n, int threads, int64_t max_blocks = 65536LL * 8) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks < max_blocks ? blocks : max_blocks);
}

}  // namespace hal_gpu
