// A GEMM plus bias vector in one hipBLASLt call (the BIAS epilogue), for plans with GemmPlan::bias set: what
// rocBLAS cannot do in one kernel. The GPU shell's (../gpu_shell/lt_bias_gemm.h), over hipBLASLt's traits below.
// Prepared per problem and kept (kernels/bias_gemm_cache.h) in the device's state, used under its BLAS lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_shell/lt_bias_gemm.h"
#include "hipblaslt_api.h"
#include "kernels/bias_gemm_cache.h"
#include "kernels/gemm_plan.h"
#include "kernels/library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

// hipBLASLt as the shared GEMM plus bias sees it: its types and values (hipblaslt_api.h: not cuBLASLt's), and
// where it differs from cuBLASLt (lt_bias_gemm.cpp).
struct HipblasLt {
  using Api = HipblasLtApi;
  using DataType = Api::DataType;
  static constexpr int kSuccess = kHipblasSuccess, kNotSupported = kHipblasNotSupported;  // statuses
  static constexpr int kInvalidValue = kHipblasInvalidValue, kArchMismatch = kHipblasArchMismatch;
  static constexpr int kOpN = kHipblasOpN, kOpT = kHipblasOpT, kCompute32F = kHipblasCompute32F;
  static constexpr DataType kR32F = kHipR32F;
  static constexpr int kDescTransA = kHipblasLtDescTransA, kDescTransB = kHipblasLtDescTransB,  // attributes
      kDescEpilogue = kHipblasLtDescEpilogue, kDescBiasPointer = kHipblasLtDescBiasPointer,
      kDescBiasDataType = kHipblasLtDescBiasDataType;
  static constexpr uint32_t kEpilogueBias = kHipblasLtEpilogueBias;

  static DataType data_type(hal_gpu::GemmType type);
  // FP32 compute only here: an FP64 plan goes to rocBLAS at once.
  static bool takes(const hal_gpu::GemmPlan& plan) { return plan.type != hal_gpu::GemmType::F64; }
  // The workspace only.
  static int set_preferences(const Api& api, Api::Preference preference, const hal_gpu::BiasGemmKey& key);
  static hal_status_t matmul_failure(const Api& api, int status);
};

using LtBiasGemm = hal_gpu_shell::LtBiasGemm<HipblasLt>;
using LtBiasGemmCache = hal_gpu_shell::LtBiasGemmCache<HipblasLt>;

// out = alpha * a b + bias, queued on `stream` with one hipBLASLt call, `workspace` (of `workspace_bytes`)
// the algorithm's scratch. NOT_SUPPORTED, without a message and with nothing queued, when hipBLASLt declines
// the problem: the caller then takes rocBLAS. Other failures are reported (fail()).
hal_status_t run_lt_bias_gemm(const HipblasLtApi& api, hipblasLtHandle_t handle, LtBiasGemmCache& cache,
                              const hal_gpu::GemmPlan& plan, void* workspace, size_t workspace_bytes,
                              hipStream_t stream);

}  // namespace hal_amd
