#include "lt_bias_gemm.h"

#include <functional>

#include "blas_types.h"
#include "cuda_status.h"

namespace hal_nvidia {
namespace {

// The largest power of two, up to 256, that divides the address: what the heuristic is told (the
// preference's default assumes 256, which would let it pick kernels this pointer cannot feed).
uint32_t alignment_of(const void* p) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (2 * alignment) == 0) alignment *= 2;
  return alignment;
}

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
int prepare(const CublasLtApi& api, cublasLtHandle_t handle, const LtBiasGemmKey& key, const GemmPlan& plan,
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

// boost-style hash_combine: mixes each field into the running hash.
void mix(size_t* seed, uint64_t value) {
  *seed ^= std::hash<uint64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (*seed << 6) + (*seed >> 2);
}

}  // namespace

bool LtBiasGemmKey::operator==(const LtBiasGemmKey& o) const {
  return type == o.type && transpose_first == o.transpose_first && transpose_second == o.transpose_second &&
         m == o.m && n == o.n && k == o.k && ld_first == o.ld_first && ld_second == o.ld_second &&
         ld_out == o.ld_out && align_first == o.align_first && align_second == o.align_second &&
         align_out == o.align_out && align_bias == o.align_bias && workspace_bytes == o.workspace_bytes;
}

size_t LtBiasGemmKeyHash::operator()(const LtBiasGemmKey& key) const {
  size_t seed = 0;
  mix(&seed, static_cast<uint64_t>(key.type) | (uint64_t{key.transpose_first} << 8) |
                 (uint64_t{key.transpose_second} << 9));
  for (const int64_t v : {key.m, key.n, key.k, key.ld_first, key.ld_second, key.ld_out}) {
    mix(&seed, static_cast<uint64_t>(v));
  }
  mix(&seed, uint64_t{key.align_first} | (uint64_t{key.align_second} << 16) | (uint64_t{key.align_out} << 32) |
                 (uint64_t{key.align_bias} << 48));
  mix(&seed, key.workspace_bytes);
  return seed;
}

LtBiasGemmKey lt_bias_gemm_key(const GemmPlan& plan, uint64_t workspace_bytes) {
  LtBiasGemmKey key;
  key.type = plan.type;
  key.transpose_first = plan.first.transpose;
  key.transpose_second = plan.second.transpose;
  key.m = plan.m;
  key.n = plan.n;
  key.k = plan.k;
  key.ld_first = plan.first.ld;
  key.ld_second = plan.second.ld;
  key.ld_out = plan.ld_out;
  key.align_first = alignment_of(plan.first.data);
  key.align_second = alignment_of(plan.second.data);
  key.align_out = alignment_of(plan.out);
  key.align_bias = alignment_of(plan.bias);
  key.workspace_bytes = workspace_bytes;
  return key;
}

LtBiasGemm* LtBiasGemmCache::find_or_prepare(const CublasLtApi& api, cublasLtHandle_t handle,
                                             const LtBiasGemmKey& key, const GemmPlan& plan) {
  if (auto it = entries_.find(key); it != entries_.end()) return it->second.get();
  auto gemm = std::make_unique<LtBiasGemm>();
  const int status = prepare(api, handle, key, plan, gemm.get());
  if (status != kCublasSuccess) {
    if (!is_decline(status)) return nullptr;
    gemm = std::make_unique<LtBiasGemm>();  // kept as "declined" (usable false), without descriptors
  }
  if (entries_.size() >= kCapacity) entries_.clear();
  return entries_.emplace(key, std::move(gemm)).first->second.get();
}

hal_status_t run_lt_bias_gemm(const CublasLtApi& api, cublasLtHandle_t handle, LtBiasGemmCache& cache,
                              const GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream) {
  LtBiasGemm* gemm = cache.find_or_prepare(api, handle, lt_bias_gemm_key(plan, workspace_bytes), plan);
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
