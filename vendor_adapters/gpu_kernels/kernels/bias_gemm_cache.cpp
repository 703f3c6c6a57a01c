#include "kernels/bias_gemm_cache.h"

#include <functional>

namespace hal_gpu {
namespace {

// boost-style hash_combine: mixes each field into the running hash.
void mix(size_t* seed, uint64_t value) {
  *seed ^= std::hash<uint64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (*seed << 6) + (*seed >> 2);
}

}  // namespace

bool BiasGemmKey::operator==(const BiasGemmKey& o) const {
  return type == o.type && transpose_first == o.transpose_first && transpose_second == o.transpose_second &&
         m == o.m && n == o.n && k == o.k && ld_first == o.ld_first && ld_second == o.ld_second &&
         ld_out == o.ld_out && align_first == o.align_first && align_second == o.align_second &&
         align_out == o.align_out && align_bias == o.align_bias && workspace_bytes == o.workspace_bytes;
}

size_t BiasGemmKeyHash::operator()(const BiasGemmKey& key) const {
  size_t seed = 0;
  mix(&seed, static_cast<uint64_t>(key.type) | (uint64_t{key.transpose_first} << 8) |
                 (uint64_t{key.transpose_second} << 9));
  for (const int64_t v : {key.m, key.n, key.k, key.ld_first, key.ld_second, key.ld_out}) {
    mix(&seed, static_cast<uint64_t>(v));
  }
  mix(&seed, uint64_t{key.align_first} | (uint64_t{key.align_second} << 16) | (uint64_t{key.align_out} << 32) |
                 (uint64_t{key.align_bias} << 48));
  mix(&seed, key.workspace_bytes);
  return seed;
}

uint32_t pointer_alignment(const void* p) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (2 * alignment) == 0) alignment *= 2;
  return alignment;
}

BiasGemmKey bias_gemm_key(const GemmPlan& plan, uint64_t workspace_bytes) {
  BiasGemmKey key;
  key.type = plan.type;
  key.transpose_first = plan.first.transpose;
  key.transpose_second = plan.second.transpose;
  key.m = plan.m;
  key.n = plan.n;
  key.k = plan.k;
  key.ld_first = plan.first.ld;
  key.ld_second = plan.second.ld;
  key.ld_out = plan.ld_out;
  key.align_first = pointer_alignment(plan.first.data);
  key.align_second = pointer_alignment(plan.second.data);
  key.align_out = pointer_alignment(plan.out);
  key.align_bias = pointer_alignment(plan.bias);
  key.workspace_bytes = workspace_bytes;
  return key;
}

}  // namespace hal_gpu
