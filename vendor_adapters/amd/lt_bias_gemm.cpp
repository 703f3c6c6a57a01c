#include "lt_bias_gemm.h"

#include <string>

#include "adapter_context.h"

namespace hal_amd {

HipblasLt::DataType HipblasLt::data_type(hal_gpu::GemmType type) {
  switch (type) {
    case hal_gpu::GemmType::F16: return kHipR16F;
    case hal_gpu::GemmType::BF16: return kHipR16BF;
    default: return kHipR32F;
  }
}

int HipblasLt::set_preferences(const Api& api, Api::Preference made, const hal_gpu::BiasGemmKey& key) {
  const uint64_t workspace = key.workspace_bytes;
  return api.matmul_preference_set_attribute(made, kHipblasLtPrefMaxWorkspaceBytes, &workspace, sizeof(workspace));
}

hal_status_t HipblasLt::matmul_failure(const Api&, int status) {
  return fail(status == kHipblasAllocFailed ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
              "hipblasLtMatmul failed with hipblasStatus " + std::to_string(status));
}

hal_status_t run_lt_bias_gemm(const HipblasLtApi& api, hipblasLtHandle_t handle, LtBiasGemmCache& cache,
                              const hal_gpu::GemmPlan& plan, void* workspace, size_t workspace_bytes,
                              hipStream_t stream) {
  return hal_gpu_shell::run_lt_bias_gemm<HipblasLt>(api, handle, cache, plan, workspace, workspace_bytes, stream);
}

}  // namespace hal_amd
