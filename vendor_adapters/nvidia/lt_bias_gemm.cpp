#include "lt_bias_gemm.h"

#include "blas_types.h"
#include "cuda_status.h"

namespace hal_nvidia {
namespace {

// Statuses with which cuBLASLt says it does not do this problem (the same every time for one key), as
// opposed to failures of the moment such as an allocation.
bool is_decline(int status) {
  return status == kCublasNotSupported || status == kCublasInvalidValue || status == kCublasArchMismatch;
}

// Each attribute has one value type; cuBLASLt checks the size passed against it.
template <typename T>
int set_attribute(const CublasLtApi& api, cublasLtMatmulDesc_t desc, LtMatmulDescAttribute attribute, T value) {
  return api.matmul_desc_set_attribute(desc, attribute, &value, sizeof(value));
}
template <typename T>
int set_attribute(const CublasLtApi& api, cublasLtMatmulPreference_t preference,
                  LtMatmulPreferenceAttribute attribute, T value) {
  return api.matmul_preference_set_attribute(preference, attribute, &value, sizeof(value));
}

int make_layout(const CublasLtApi& api, cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld,
                LibraryHandle<cublasLtMatrixLayoutOpaque>* layout) {
  cublasLtMatrixLayout_t made = nullptr;
  const int status = api.matrix_layout_create(&made, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld);
  if (status == kCublasSuccess) *layout = LibraryHandle<cublasLtMatrixLayoutOpaque>(made, {api.matrix_layout_destroy});
  return status;
}

// Builds the descriptors of `key` and asks the heuristic for its best algorithm. SUCCESS with
// gemm->usable false when the heuristic has none.
int prepare(const CublasLtApi& api, cublasLtHandle_t handle, const hal_gpu::BiasGemmKey& key, const GemmPlan& plan,
            LtBiasGemm* gemm) {
  const cudaDataType_t type = cuda_type(key.type);
  // FP32 accumulation and FP32 alpha for every type this path takes, without TF32: the compute type of the
  // cuBLAS path (cuBLAS's default math mode), and torch.cuda's default.
  cublasLtMatmulDesc_t desc = nullptr;
  int status = api.matmul_desc_create(&desc, kCublasCompute32F, CUDA_R_32F);
  if (status != kCublasSuccess) return status;
  gemm->desc = LibraryHandle<cublasLtMatmulDescOpaque>(desc, {api.matmul_desc_destroy});

  const int32_t transpose_first = key.transpose_first ? kCublasOpT : kCublasOpN;
  const int32_t transpose_second = key.transpose_second ? kCublasOpT : kCublasOpN;
  // The bias has the output's type: what "Bias data type" defaults to for these types, said explicitly.
  const int32_t bias_type = type;
  // The heuristic reads the bias pointer (not the data) to learn its alignment; each call sets its own.
  for (const int s : {set_attribute(api, desc, kLtMatmulDescTransA, transpose_first),
                      set_attribute(api, desc, kLtMatmulDescTransB, transpose_second),
                      set_attribute(api, desc, kLtMatmulDescEpilogue, static_cast<uint32_t>(kLtEpilogueBias)),
                      set_attribute(api, desc, kLtMatmulDescBiasDataType, bias_type),
                      set_attribute(api, desc, kLtMatmulDescBiasPointer, plan.bias)}) {
    if (s != kCublasSuccess) return s;
  }

  // Layouts of the matrices as stored (before op()): an operand used transposed is stored k x m (n x k).
  if ((status = make_layout(api, type, key.transpose_first ? key.k : key.m, key.transpose_first ? key.m : key.k,
                            key.ld_first, &gemm->first)) != kCublasSuccess ||
      (status = make_layout(api, type, key.transpose_second ? key.n : key.k, key.transpose_second ? key.k : key.n,
                            key.ld_second, &gemm->second)) != kCublasSuccess ||
      (status = make_layout(api, type, key.m, key.n, key.ld_out, &gemm->out)) != kCublasSuccess) {
    return status;
  }

  cublasLtMatmulPreference_t made = nullptr;
  if ((status = api.matmul_preference_create(&made)) != kCublasSuccess) return status;
  const LibraryHandle<cublasLtMatmulPreferenceOpaque> preference(made, {api.matmul_preference_destroy});
  for (const int s : {set_attribute(api, made, kLtMatmulPrefMaxWorkspaceBytes, key.workspace_bytes),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentABytes, key.align_first),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentBBytes, key.align_second),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentCBytes, key.align_out),
                      set_attribute(api, made, kLtMatmulPrefMinAlignmentDBytes, key.align_out)}) {
    if (s != kCublasSuccess) return s;
  }

  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  // C is D (beta is 0, so C is not read): one layout for both.
  status = api.matmul_algo_get_heuristic(handle, desc, gemm->first.get(), gemm->second.get(), gemm->out.get(),
                                         gemm->out.get(), made, 1, &result, &returned);
  if (status != kCublasSuccess) return status;
  gemm->usable = returned >= 1 && result.state == kCublasSuccess && result.workspaceSize <= key.workspace_bytes;
  gemm->algo = result.algo;
  gemm->workspace_bytes = result.workspaceSize;
  return kCublasSuccess;
}

}  // namespace

hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream) {
  const hal_gpu::BiasGemmKey key = hal_gpu::bias_gemm_key(plan, workspace_bytes);
  LtBiasGemm* gemm = cache.find_or_prepare(
      key, [&](LtBiasGemm* made) { return prepare(api, handle, key, plan, made); }, is_decline);
  if (!gemm || !gemm->usable) return HAL_STATUS_NOT_SUPPORTED;
  // The descriptor is shared by every call of this key; the bias pointer is this call's.
  if (set_attribute(api, gemm->desc.get(), kLtMatmulDescBiasPointer, plan.bias) != kCublasSuccess) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // out = alpha a b + 0 * out + bias: beta 0 so that out, uninitialized, is never read.
  const float alpha = static_cast<float>(plan.alpha), beta = 0.0f;
  const int status = api.matmul(handle, gemm->desc.get(), &alpha, plan.first.data, gemm->first.get(),
                                plan.second.data, gemm->second.get(), &beta, plan.out, gemm->out.get(), plan.out,
                                gemm->out.get(), &gemm->algo, workspace, workspace_bytes, stream);
  if (status == kCublasSuccess) return HAL_STATUS_SUCCESS;
  if (is_decline(status)) {
    // Checked before anything is queued: nothing was written. Not asked again for this key.
    gemm->usable = false;
    return HAL_STATUS_NOT_SUPPORTED;
  }
  return fail(status_of_cublas(status), cublas_error(api, "cublasLtMatmul", status));
}

}  // namespace hal_nvidia
