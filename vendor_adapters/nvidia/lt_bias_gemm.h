// A GEMM plus bias vector in one cuBLASLt call (the BIAS epilogue), for plans with GemmPlan::bias set: the GPU
// shell's (../gpu_shell/lt_bias_gemm.h), over cuBLASLt's traits below. The prepared descriptors and algorithm
// are kept per problem (kernels/bias_gemm_cache.h), in one device's BlasContext, used under its lock.
#pragma once

#include <cstdint>

#include "../gpu_shell/lt_bias_gemm.h"
#include "blas_types.h"  // GemmPlan, GemmType, cuda_type(), with the kernel library's names
#include "cublaslt_library.h"
#include "kernels/library_handle.h"

namespace hal_nvidia {

using hal_gpu::LibraryHandle;

// cuBLASLt as the shared GEMM plus bias sees it: its types and values (cublaslt_library.h), and where it
// differs from hipBLASLt (lt_bias_gemm.cpp).
struct CublasLt {
  using Api = CublasLtApi;
  using DataType = Api::DataType;
  static constexpr int kSuccess = kCublasSuccess, kNotSupported = kCublasNotSupported;  // statuses
  static constexpr int kInvalidValue = kCublasInvalidValue, kArchMismatch = kCublasArchMismatch;
  static constexpr int kOpN = kCublasOpN, kOpT = kCublasOpT, kCompute32F = kCublasCompute32F;
  static constexpr DataType kR32F = CUDA_R_32F;
  static constexpr int kDescTransA = kLtMatmulDescTransA, kDescTransB = kLtMatmulDescTransB,  // attributes
      kDescEpilogue = kLtMatmulDescEpilogue, kDescBiasPointer = kLtMatmulDescBiasPointer,
      kDescBiasDataType = kLtMatmulDescBiasDataType;
  static constexpr uint32_t kEpilogueBias = kLtEpilogueBias;

  static DataType data_type(GemmType type) { return cuda_type(type); }
  // Every plan is asked of the heuristic (which declines what it has no algorithm for).
  static bool takes(const GemmPlan&) { return true; }
  // The workspace, and the alignments the operands' pointers actually have.
  static int set_preferences(const Api& api, Api::Preference preference, const hal_gpu::BiasGemmKey& key);
  static hal_status_t matmul_failure(const Api& api, int status);
};

using LtBiasGemm = hal_gpu_shell::LtBiasGemm<CublasLt>;
using LtBiasGemmCache = hal_gpu_shell::LtBiasGemmCache<CublasLt>;

// out = alpha * a b + bias, queued on `stream` with one cuBLASLt call. NOT_SUPPORTED, without a message and
// with nothing queued, when cuBLASLt declines the problem: the caller then takes the two-kernel path.
// Other failures are reported (fail()) as usual. Called under the device's BLAS lock.
hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream);

}  // namespace hal_nvidia
