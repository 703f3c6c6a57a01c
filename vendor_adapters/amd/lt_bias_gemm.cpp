#include "lt_bias_gemm.h"

#include <string>

#include "adapter_context.h"

namespace hal_amd {
namespace {

int hip_type(hal_gpu::GemmType type) {
  switch (type) {
    case hal_gpu::GemmType::F16: return kHipR16F;
    case hal_gpu::GemmType::BF16: return kHipR16BF;
    default: return kHipR32F;
  }
}

// What hipBLASLt answers, the same every time, for a problem it does not do.
bool is_decline(int status) {
  return status == kHipblasNotSupported || status == kHipblasInvalidValue || status == kHipblasArchMismatch;
}

template <typename T>
int set_desc(const HipblasLtApi& api, hipblasLtMatmulDesc_t desc, int attribute, T value) {
  return api.matmul_desc_set_attribute(desc, attribute, &value, sizeof(value));  // the size is checked
}

int make_layout(const HipblasLtApi& api, int type, int64_t rows, int64_t cols, int64_t ld,
                hal_gpu::LibraryHandle<HipblasLtMatrixLayoutOpaque>* layout) {
  hipblasLtMatrixLayout_t made = nullptr;
  const int status = api.matrix_layout_create(&made, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld);
  if (status == kHipblasSuccess) *layout = {made, {api.matrix_layout_destroy}};
  return status;
}

// The descriptors of `key` and the heuristic's best algorithm for them (usable false when it has none).
int prepare(const HipblasLtApi& api, hipblasLtHandle_t handle, const hal_gpu::BiasGemmKey& key,
            const hal_gpu::GemmPlan& plan, LtBiasGemm* gemm) {
  const int type = hip_type(key.type);
  hipblasLtMatmulDesc_t desc = nullptr;
  // FP32 accumulation and alpha, as the rocBLAS path and torch.cuda's defaults.
  int status = api.matmul_desc_create(&desc, kHipblasCompute32F, kHipR32F);
  if (status != kHipblasSuccess) return status;
  gemm->desc = {desc, {api.matmul_desc_destroy}};
  for (const int s : {set_desc(api, desc, kHipblasLtDescTransA, int32_t{key.transpose_first ? kHipblasOpT : kHipblasOpN}),
                      set_desc(api, desc, kHipblasLtDescTransB, int32_t{key.transpose_second ? kHipblasOpT : kHipblasOpN}),
                      set_desc(api, desc, kHipblasLtDescEpilogue, kHipblasLtEpilogueBias),
                      set_desc(api, desc, kHipblasLtDescBiasDataType, int32_t{type}),  // the output's type
                      set_desc(api, desc, kHipblasLtDescBiasPointer, plan.bias)}) {
    if (s != kHipblasSuccess) return s;
  }
  // Layouts as stored (before op()): an operand used transposed is stored k x m (n x k).
  if ((status = make_layout(api, type, key.transpose_first ? key.k : key.m, key.transpose_first ? key.m : key.k,
                            key.ld_first, &gemm->first)) != kHipblasSuccess ||
      (status = make_layout(api, type, key.transpose_second ? key.n : key.k, key.transpose_second ? key.k : key.n,
                            key.ld_second, &gemm->second)) != kHipblasSuccess ||
      (status = make_layout(api, type, key.m, key.n, key.ld_out, &gemm->out)) != kHipblasSuccess) {
    return status;
  }
  hipblasLtMatmulPreference_t made = nullptr;
  if ((status = api.matmul_preference_create(&made)) != kHipblasSuccess) return status;
  const hal_gpu::LibraryHandle<HipblasLtMatmulPreferenceOpaque> preference(made, {api.matmul_preference_destroy});
  const uint64_t workspace = key.workspace_bytes;
  status = api.matmul_preference_set_attribute(made, kHipblasLtPrefMaxWorkspaceBytes, &workspace, sizeof(workspace));
  if (status != kHipblasSuccess) return status;
  hipblasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  status = api.matmul_algo_get_heuristic(handle, desc, gemm->first.get(), gemm->second.get(), gemm->out.get(),
                                         gemm->out.get(), made, 1, &result, &returned);
  if (status != kHipblasSuccess) return status;
  gemm->usable = returned >= 1 && result.state == kHipblasSuccess && result.workspaceSize <= key.workspace_bytes;
  gemm->algo = result.algo;
  return kHipblasSuccess;
}

}  // namespace

hal_status_t run_lt_bias_gemm(const HipblasLtApi& api, hipblasLtHandle_t handle, LtBiasGemmCache& cache,
                              const hal_gpu::GemmPlan& plan, void* workspace, size_t workspace_bytes,
                              hipStream_t stream) {
  if (plan.type == hal_gpu::GemmType::F64) return HAL_STATUS_NOT_SUPPORTED;  // FP32 compute only here
  const hal_gpu::BiasGemmKey key = hal_gpu::bias_gemm_key(plan, workspace_bytes);
  LtBiasGemm* gemm = cache.find_or_prepare(
      key, [&](LtBiasGemm* made) { return prepare(api, handle, key, plan, made); }, is_decline);
  if (!gemm || !gemm->usable) return HAL_STATUS_NOT_SUPPORTED;
  // The descriptor is shared by every call of this problem; the bias pointer is this call's.
  if (set_desc(api, gemm->desc.get(), kHipblasLtDescBiasPointer, plan.bias) != kHipblasSuccess) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // beta 0: out, uninitialized, is never read.
  const float alpha = static_cast<float>(plan.alpha), beta = 0.0f;
  const int status = api.matmul(handle, gemm->desc.get(), &alpha, plan.first.data, gemm->first.get(), plan.second.data,
                                gemm->second.get(), &beta, plan.out, gemm->out.get(), plan.out, gemm->out.get(),
                                &gemm->algo, workspace, workspace_bytes, stream);
  if (status == kHipblasSuccess) return HAL_STATUS_SUCCESS;
  if (is_decline(status)) {
    gemm->usable = false;  // checked before anything is queued; not asked again for this problem
    return HAL_STATUS_NOT_SUPPORTED;
  }
  return fail(status == kHipblasAllocFailed ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
              "hipblasLtMatmul failed with hipblasStatus " + std::to_string(status));
}

}  // namespace hal_amd
