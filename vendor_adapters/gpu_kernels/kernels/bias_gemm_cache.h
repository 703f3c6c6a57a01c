// A GEMM plus bias vector in one call of a "Lt" BLAS (cuBLASLt on NVIDIA, hipBLASLt on AMD: the BIAS
// epilogue), for plans with GemmPlan::bias set: what every GPU adapter keeps of it between calls.
//
// Choosing an algorithm (the Lt library's heuristic) and building the descriptors costs microseconds of CPU
// time per call, more than the launch itself for small GEMMs, so both are done once per problem (shape,
// layout, dtype, pointer alignments) and kept: a repeated call only sets the bias pointer and launches. The
// cache belongs to one device and is used under its BLAS lock; the prepared entry is the adapter's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "kernels/gemm_plan.h"

namespace hal_gpu {

// Everything the heuristic's choice depends on. The pointers' alignments are part of it: the heuristic is
// told what they are and may pick kernels that need them.
struct BiasGemmKey {
  GemmType type = GemmType::F32;
  bool transpose_first = false, transpose_second = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t ld_first = 0, ld_second = 0, ld_out = 0;
  uint32_t align_first = 0, align_second = 0, align_out = 0, align_bias = 0;  // bytes, a power of two <= 256
  uint64_t workspace_bytes = 0;  // what the algorithm may use: the stream's workspace, or 0 without one

  bool operator==(const BiasGemmKey& o) const;
};

struct BiasGemmKeyHash {
  size_t operator()(const BiasGemmKey& key) const;
};

// The largest power of two, up to 256, that divides the address: what the heuristic is told (a default of
// 256 would let it pick kernels this pointer cannot feed).
uint32_t pointer_alignment(const void* p);

// The key of a plan whose `bias` is set, for `workspace_bytes` of scratch memory.
BiasGemmKey bias_gemm_key(const GemmPlan& plan, uint64_t workspace_bytes);

// Prepared GEMMs by key. `Prepared` is the adapter's: its descriptors and algorithm, with a `usable` flag.
template <class Prepared>
class BiasGemmCache {
 public:
  // The prepared GEMM for `key`, made at the first call with prepare(Prepared*) -> status (0: prepared,
  // possibly not usable). A status for which declined(status) is true (the library does not do this
  // problem, the same every time) is kept as "not usable"; any other failure (an allocation, say) keeps
  // nothing and returns nullptr.
  template <class Prepare, class Declined>
  Prepared* find_or_prepare(const BiasGemmKey& key, Prepare prepare, Declined declined) {
    if (auto it = entries_.find(key); it != entries_.end()) return it->second.get();
    auto gemm = std::make_unique<Prepared>();
    const int status = prepare(gemm.get());
    if (status != 0) {
      if (!declined(status)) return nullptr;
      gemm = std::make_unique<Prepared>();  // kept as declined (usable false), without descriptors
    }
    if (entries_.size() >= kCapacity) entries_.clear();
    return entries_.emplace(key, std::move(gemm)).first->second.get();
  }

 private:
  // A model's GEMM shapes are few; distinct ones beyond this (varying sequence lengths, say) start over
  // rather than grow without bound.
  static constexpr size_t kCapacity = 1024;
  std::unordered_map<BiasGemmKey, std::unique_ptr<Prepared>, BiasGemmKeyHash> entries_;
};

}  // namespace hal_gpu
