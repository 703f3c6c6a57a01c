// A GEMM plus bias vector in one cuBLASLt call (the BIAS epilogue), for plans with GemmPlan::bias set.
//
// Choosing an algorithm (cublasLtMatmulAlgoGetHeuristic) and building the descriptors costs microseconds
// of CPU time per call, more than the launch itself for small GEMMs, so both are done once per problem
// (shape, layout, dtype, pointer alignments) and kept: a repeated call only sets the bias pointer and
// launches. The cache belongs to one device's BlasContext and is used under its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "cublaslt_library.h"
#include "kernels/gemm_plan.h"
#include "library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

// The plan is the kernel library's (shared with the AMD adapter's rocBLAS path).
using hal_gpu::BlasOperand;
using hal_gpu::GemmPlan;
using hal_gpu::GemmType;
using hal_gpu::plan_gemm;

// Everything cuBLASLt's choice of algorithm depends on. The pointers' alignments are part of it: the
// heuristic is told what they are and may pick kernels that need them.
struct LtBiasGemmKey {
  GemmType type = GemmType::F32;
  bool transpose_first = false, transpose_second = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t ld_first = 0, ld_second = 0, ld_out = 0;
  uint32_t align_first = 0, align_second = 0, align_out = 0, align_bias = 0;  // bytes, a power of two <= 256
  uint64_t workspace_bytes = 0;  // what the algorithm may use: the stream's workspace, or 0 without one

  bool operator==(const LtBiasGemmKey& o) const;
};

struct LtBiasGemmKeyHash {
  size_t operator()(const LtBiasGemmKey& key) const;
};

// The descriptors and chosen algorithm of one key, or none when cuBLASLt has no algorithm for it (the
// answer is kept too, so that such a problem goes straight to the two-kernel path next time).
struct LtBiasGemm {
  bool usable = false;
  LibraryHandle<cublasLtMatmulDescOpaque> desc;
  LibraryHandle<cublasLtMatrixLayoutOpaque> first, second, out;  // cuBLAS's A, B and C = D
  cublasLtMatmulAlgo_t algo{};
  size_t workspace_bytes = 0;
};

class LtBiasGemmCache {
 public:
  // The prepared GEMM for `key` (made with the heuristic at the first call), or nullptr when cuBLASLt
  // declined it now (nothing is kept then: a failure such as an allocation may not repeat).
  LtBiasGemm* find_or_prepare(const CublasLtApi& api, cublasLtHandle_t handle, const LtBiasGemmKey& key,
                              const GemmPlan& plan);

 private:
  // A model's GEMM shapes are few; distinct ones beyond this (varying sequence lengths, say) start over
  // rather than grow without bound.
  static constexpr size_t kCapacity = 1024;
  std::unordered_map<LtBiasGemmKey, std::unique_ptr<LtBiasGemm>, LtBiasGemmKeyHash> entries_;
};

// The key of a plan whose `bias` is set, for `workspace_bytes` of scratch memory.
LtBiasGemmKey lt_bias_gemm_key(const GemmPlan& plan, uint64_t workspace_bytes);

// out = alpha * a b + bias, queued on `stream` with one cuBLASLt call. NOT_SUPPORTED, without a message and
// with nothing queued, when cuBLASLt declines the problem: the caller then takes the two-kernel path.
// Other failures are reported (fail()) as usual. Called under the device's BLAS lock.
hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream);

}  // namespace hal_nvidia
