// A GEMM plus bias vector in one BLAS-Lt call (the BIAS epilogue), for plans with GemmPlan::bias set: cuBLASLt
// for the NVIDIA adapter, hipBLASLt for the AMD adapter (what rocBLAS cannot do in one kernel). The prepared
// descriptors and algorithm are kept per problem (kernels/bias_gemm_cache.h) in the device's state, used under
// its BLAS lock. Written once here, header-only, over the adapter's BLAS-Lt traits `Lt` (nvidia/lt_bias_gemm.h,
// amd/lt_bias_gemm.h: they must be complete where the device's state holds the cache, so they are not
// runtime_traits.h's, which includes that state):
//
//   struct Lt {
//     using Api;             // the loaded library (a BlasLtApi, blas_lt_api.h: its entry points and types)
//     static constexpr int kSuccess, kNotSupported, kInvalidValue, kArchMismatch;   // statuses
//     static constexpr int kOpN, kOpT, kCompute32F;  static constexpr DataType kR32F;
//     static constexpr int kDescTransA, kDescTransB, kDescEpilogue, kDescBiasPointer, kDescBiasDataType;
//     static constexpr uint32_t kEpilogueBias;
//     static DataType data_type(hal_gpu::GemmType type);
//     static bool takes(const hal_gpu::GemmPlan& plan);           // false: NOT_SUPPORTED at once
//     static int set_preferences(const Api&, Preference, const hal_gpu::BiasGemmKey&);  // the heuristic's limits
//     static hal_status_t matmul_failure(const Api&, int status); // a failed matmul, reported (fail())
//   };
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/bias_gemm_cache.h"
#include "kernels/gemm_plan.h"
#include "kernels/library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_gpu_shell {

// The descriptors and chosen algorithm of one key, or none when the library has no algorithm for it (the
// answer is kept too, so that such a problem goes straight to the plain BLAS path next time).
template <class Lt>
struct LtBiasGemm {
  bool usable = false;
  hal_gpu::LibraryHandle<typename Lt::Api::MatmulDescOpaque> desc;
  hal_gpu::LibraryHandle<typename Lt::Api::MatrixLayoutOpaque> first, second, out;  // the BLAS's A, B and C = D
  typename Lt::Api::MatmulAlgo algo{};
  size_t workspace_bytes = 0;
};

template <class Lt>
using LtBiasGemmCache = hal_gpu::BiasGemmCache<LtBiasGemm<Lt>>;

namespace lt_bias_gemm_detail {

// Statuses with which the library says it does not do this problem (the same every time for one key), as
// opposed to failures of the moment such as an allocation.
template <class Lt>
bool is_decline(int status) {
  return status == Lt::kNotSupported || status == Lt::kInvalidValue || status == Lt::kArchMismatch;
}

// Each attribute has one value type; the library checks the size passed against it.
template <class Lt, typename T>
int set_desc(const typename Lt::Api& api, typename Lt::Api::MatmulDesc desc, int attribute, T value) {
  return api.matmul_desc_set_attribute(desc, attribute, &value, sizeof(value));
}

template <class Lt>
int make_layout(const typename Lt::Api& api, typename Lt::Api::DataType type, int64_t rows, int64_t cols, int64_t ld,
                hal_gpu::LibraryHandle<typename Lt::Api::MatrixLayoutOpaque>* layout) {
  typename Lt::Api::MatrixLayout made = nullptr;
  const int status = api.matrix_layout_create(&made, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld);
  if (status == Lt::kSuccess) {
    *layout = hal_gpu::LibraryHandle<typename Lt::Api::MatrixLayoutOpaque>(made, {api.matrix_layout_destroy});
  }
  return status;
}

// Builds the descriptors of `key` and asks the heuristic for its best algorithm. SUCCESS with
// gemm->usable false when the heuristic has none.
template <class Lt>
int prepare(const typename Lt::Api& api, typename Lt::Api::Handle handle, const hal_gpu::BiasGemmKey& key,
            const hal_gpu::GemmPlan& plan, LtBiasGemm<Lt>* gemm) {
  const typename Lt::Api::DataType type = Lt::data_type(key.type);
  // FP32 accumulation and FP32 alpha for every type this path takes, without TF32: the compute type of the
  // plain BLAS path, and torch.cuda's default.
  typename Lt::Api::MatmulDesc desc = nullptr;
  int status = api.matmul_desc_create(&desc, Lt::kCompute32F, Lt::kR32F);
  if (status != Lt::kSuccess) return status;
  gemm->desc = hal_gpu::LibraryHandle<typename Lt::Api::MatmulDescOpaque>(desc, {api.matmul_desc_destroy});

  const int32_t transpose_first = key.transpose_first ? Lt::kOpT : Lt::kOpN;
  const int32_t transpose_second = key.transpose_second ? Lt::kOpT : Lt::kOpN;
  // The bias has the output's type: what "Bias data type" defaults to for these types, said explicitly.
  const int32_t bias_type = static_cast<int32_t>(type);
  // The heuristic reads the bias pointer (not the data) to learn its alignment; each call sets its own.
  for (const int s : {set_desc<Lt>(api, desc, Lt::kDescTransA, transpose_first),
                      set_desc<Lt>(api, desc, Lt::kDescTransB, transpose_second),
                      set_desc<Lt>(api, desc, Lt::kDescEpilogue, static_cast<uint32_t>(Lt::kEpilogueBias)),
                      set_desc<Lt>(api, desc, Lt::kDescBiasDataType, bias_type),
                      set_desc<Lt>(api, desc, Lt::kDescBiasPointer, plan.bias)}) {
    if (s != Lt::kSuccess) return s;
  }

  // Layouts of the matrices as stored (before op()): an operand used transposed is stored k x m (n x k).
  if ((status = make_layout<Lt>(api, type, key.transpose_first ? key.k : key.m, key.transpose_first ? key.m : key.k,
                                key.ld_first, &gemm->first)) != Lt::kSuccess ||
      (status = make_layout<Lt>(api, type, key.transpose_second ? key.n : key.k, key.transpose_second ? key.k : key.n,
                                key.ld_second, &gemm->second)) != Lt::kSuccess ||
      (status = make_layout<Lt>(api, type, key.m, key.n, key.ld_out, &gemm->out)) != Lt::kSuccess) {
    return status;
  }

  typename Lt::Api::Preference made = nullptr;
  if ((status = api.matmul_preference_create(&made)) != Lt::kSuccess) return status;
  const hal_gpu::LibraryHandle<typename Lt::Api::PreferenceOpaque> preference(made, {api.matmul_preference_destroy});
  if ((status = Lt::set_preferences(api, made, key)) != Lt::kSuccess) return status;

  typename Lt::Api::HeuristicResult result{};
  int returned = 0;
  // C is D (beta is 0, so C is not read): one layout for both.
  status = api.matmul_algo_get_heuristic(handle, desc, gemm->first.get(), gemm->second.get(), gemm->out.get(),
                                         gemm->out.get(), made, 1, &result, &returned);
  if (status != Lt::kSuccess) return status;
  gemm->usable = returned >= 1 && result.state == Lt::kSuccess && result.workspaceSize <= key.workspace_bytes;
  gemm->algo = result.algo;
  gemm->workspace_bytes = result.workspaceSize;
  return Lt::kSuccess;
}

}  // namespace lt_bias_gemm_detail

// out = alpha * a b + bias, queued on `stream` with one BLAS-Lt call, `workspace` (of `workspace_bytes`) the
// algorithm's scratch. NOT_SUPPORTED, without a message and with nothing queued, when the library declines
// the problem: the caller then takes the plain BLAS path. Other failures are reported (Lt::matmul_failure).
// Called under the device's BLAS lock.
template <class Lt>
hal_status_t run_lt_bias_gemm(const typename Lt::Api& api, typename Lt::Api::Handle handle, LtBiasGemmCache<Lt>& cache,
                              const hal_gpu::GemmPlan& plan, void* workspace, uint64_t workspace_bytes,
                              typename Lt::Api::Stream stream) {
  using namespace lt_bias_gemm_detail;
  if (!Lt::takes(plan)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_gpu::BiasGemmKey key = hal_gpu::bias_gemm_key(plan, workspace_bytes);
  LtBiasGemm<Lt>* gemm = cache.find_or_prepare(
      key, [&](LtBiasGemm<Lt>* made) { return prepare<Lt>(api, handle, key, plan, made); }, is_decline<Lt>);
  if (!gemm || !gemm->usable) return HAL_STATUS_NOT_SUPPORTED;
  // The descriptor is shared by every call of this key; the bias pointer is this call's.
  if (set_desc<Lt>(api, gemm->desc.get(), Lt::kDescBiasPointer, plan.bias) != Lt::kSuccess) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // out = alpha a b + 0 * out + bias: beta 0 so that out, uninitialized, is never read.
  const float alpha = static_cast<float>(plan.alpha), beta = 0.0f;
  const int status = api.matmul(handle, gemm->desc.get(), &alpha, plan.first.data, gemm->first.get(),
                                plan.second.data, gemm->second.get(), &beta, plan.out, gemm->out.get(), plan.out,
                                gemm->out.get(), &gemm->algo, workspace, workspace_bytes, stream);
  if (status == Lt::kSuccess) return HAL_STATUS_SUCCESS;
  if (is_decline<Lt>(status)) {
    // Checked before anything is queued: nothing was written. Not asked again for this key.
    gemm->usable = false;
    return HAL_STATUS_NOT_SUPPORTED;
  }
  return Lt::matmul_failure(api, status);
}

}  // namespace hal_gpu_shell
