#include "lt_bias_gemm.h"

#include "blas_types.h"
#include "cuda_status.h"

namespace hal_nvidia {
namespace {

// Each attribute has one value type; cuBLASLt checks the size passed against it.
template <typename T>
int set_attribute(const CublasLtApi& api, cublasLtMatmulPreference_t preference,
                  LtMatmulPreferenceAttribute attribute, T value) {
  return api.matmul_preference_set_attribute(preference, attribute, &value, sizeof(value));
}

}  // namespace

int CublasLt::set_preferences(const Api& api, Api::Preference made, const hal_gpu::BiasGemmKey& key) {
  for (const int s : {set_attribute(api, made, kLtMatmulPrefMaxWorkspaceBytes, key.workspace_bytes),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentABytes, key.align_first),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentBBytes, key.align_second),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentCBytes, key.align_out),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentDBytes, key.align_out)}) {
    if (s != kCublasSuccess) return s;
  }
  return kCublasSuccess;
}

hal_status_t CublasLt::matmul_failure(const Api& api, int status) {
  return fail(status_of_cublas(status), cublas_error(api, "cublasLtMatmul", status));
}

hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream) {
  return hal_gpu_shell::run_lt_bias_gemm<CublasLt>(api, handle, cache, plan, workspace, workspace_bytes, stream);
}

}  // namespace hal_nvidia
