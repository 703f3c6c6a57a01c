// A GEMM plus bias vector in one hipBLASLt call (the BIAS epilogue), for plans with GemmPlan::bias set:
// what rocBLAS cannot do in one kernel. Prepared per problem and kept (kernels/bias_gemm_cache.h) in the
// device's state, used under its BLAS lock.
#pragma once

#include <cstddef>

#include "hipblaslt_api.h"
#include "kernels/bias_gemm_cache.h"
#include "kernels/library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

// The descriptors and chosen algorithm of one problem, or none (usable false) when hipBLASLt has none.
struct LtBiasGemm {
  bool usable = false;
  hal_gpu::LibraryHandle<HipblasLtMatmulDescOpaque> desc;
  hal_gpu::LibraryHandle<HipblasLtMatrixLayoutOpaque> first, second, out;  // the BLAS's A, B and C = D
  hipblasLtMatmulAlgo_t algo{};
};

using LtBiasGemmCache = hal_gpu::BiasGemmCache<LtBiasGemm>;

// out = alpha * a b + bias, queued on `stream` with one hipBLASLt call, `workspace` (of `workspace_bytes`)
// the algorithm's scratch. NOT_SUPPORTED, without a message and with nothing queued, when hipBLASLt declines
// the problem: the caller then takes rocBLAS. Other failures are reported (fail()).
hal_status_t run_lt_bias_gemm(const HipblasLtApi& api, hipblasLtHandle_t handle, LtBiasGemmCache& cache,
                              const hal_gpu::GemmPlan& plan, void* workspace, size_t workspace_bytes,
                              hipStream_t stream);

}  // namespace hal_amd
