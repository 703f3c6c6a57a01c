// A GEMM plus bias vector in one cuBLASLt call (the BIAS epilogue), for plans with GemmPlan::bias set. The
// prepared descriptors and algorithm are kept per problem (kernels/bias_gemm_cache.h), in one device's
// BlasContext, used under its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "cublaslt_library.h"
#include "kernels/bias_gemm_cache.h"
#include "kernels/gemm_plan.h"
#include "kernels/library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

// The plan is the kernel library's (shared with the AMD adapter's rocBLAS path).
using hal_gpu::BlasOperand;
using hal_gpu::GemmPlan;
using hal_gpu::GemmType;
using hal_gpu::plan_gemm;
using hal_gpu::LibraryHandle;

// The descriptors and chosen algorithm of one key, or none when cuBLASLt has no algorithm for it (the
// answer is kept too, so that such a problem goes straight to the two-kernel path next time).
struct LtBiasGemm {
  bool usable = false;
  LibraryHandle<cublasLtMatmulDescOpaque> desc;
  LibraryHandle<cublasLtMatrixLayoutOpaque> first, second, out;  // cuBLAS's A, B and C = D
  cublasLtMatmulAlgo_t algo{};
  size_t workspace_bytes = 0;
};

using LtBiasGemmCache = hal_gpu::BiasGemmCache<LtBiasGemm>;

// out = alpha * a b + bias, queued on `stream` with one cuBLASLt call. NOT_SUPPORTED, without a message and
// with nothing queued, when cuBLASLt declines the problem: the caller then takes the two-kernel path.
// Other failures are reported (fail()) as usual. Called under the device's BLAS lock.
hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream);

}  // namespace hal_nvidia
