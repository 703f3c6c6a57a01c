// cuBLAS, loaded with dlopen at first use (cuda_library_search.h): the adapter builds without cuBLAS headers
// and loads on machines without cuBLAS (GEMM ops then answer NOT_SUPPORTED and the core falls back). Only
// the few entry points and enum values the GEMM path needs are declared here, written from the public cuBLAS
// documentation (docs.nvidia.com/cuda/cublas, "cuBLAS Datatypes Reference"); cuBLAS keeps these values
// stable across major versions because they are part of its ABI.
#pragma once

#include <cuda_runtime_api.h>
#include <library_types.h>  // cudaDataType_t (CUDA_R_32F, ...), shipped with the CUDA runtime headers

#include <string>

#include "../adapter_support/loaded_library.h"

namespace hal_nvidia {

struct cublasContext;
using cublasHandle_t = cublasContext*;

// cublasStatus_t
enum CublasStatus : int {
  kCublasSuccess = 0,
  kCublasNotInitialized = 1,
  kCublasAllocFailed = 3,
  kCublasInvalidValue = 7,
  kCublasArchMismatch = 8,
  kCublasExecutionFailed = 13,
  kCublasNotSupported = 15,
};
// cublasOperation_t
enum CublasOperation : int { kCublasOpN = 0, kCublasOpT = 1 };
// cublasComputeType_t
enum CublasComputeType : int { kCublasCompute32F = 68, kCublasCompute64F = 70 };
// cublasGemmAlgo_t: CUBLAS_GEMM_DEFAULT lets cuBLAS's heuristics choose.
enum CublasGemmAlgo : int { kCublasGemmDefault = -1 };

// The entry points, resolved once: X(member, function type, symbol[, older name tried when it is absent]).
// Signatures as documented for cuBLAS 12 and 13.
#define HAL_CUBLAS_ENTRY_POINTS(X)                                                                                    \
  X(create, int(cublasHandle_t* handle), "cublasCreate_v2", "cublasCreate")                                           \
  X(destroy, int(cublasHandle_t handle), "cublasDestroy_v2", "cublasDestroy")                                         \
  X(set_stream, int(cublasHandle_t handle, cudaStream_t stream), "cublasSetStream_v2", "cublasSetStream")             \
  X(set_workspace, int(cublasHandle_t handle, void* workspace, size_t bytes), "cublasSetWorkspace_v2",                \
    "cublasSetWorkspace")                                                                                             \
  X(gemm_strided_batched_ex,                                                                                          \
    int(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* a,         \
        cudaDataType_t a_type, int lda, long long stride_a, const void* b, cudaDataType_t b_type, int ldb,            \
        long long stride_b, const void* beta, void* c, cudaDataType_t c_type, int ldc, long long stride_c,            \
        int batch_count, int compute_type, int algo),                                                                 \
    "cublasGemmStridedBatchedEx")                                                                                     \
  /* A matrix pointer per batch member (device arrays): the grouped GEMM plans (gemm_plan.h's group_size). */         \
  X(gemm_batched_ex,                                                                                                  \
    int(cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void* alpha,                        \
        const void* const a[], cudaDataType_t a_type, int lda, const void* const b[], cudaDataType_t b_type, int ldb, \
        const void* beta, void* const c[], cudaDataType_t c_type, int ldc, int batch_count, int compute_type,         \
        int algo),                                                                                                    \
    "cublasGemmBatchedEx")                                                                                            \
  X(status_name, const char*(int status), "cublasGetStatusName")                                                      \
  X(status_string, const char*(int status), "cublasGetStatusString")

struct CublasApi {
  HAL_ENTRY_POINT_TABLE(HAL_CUBLAS_ENTRY_POINTS)
};

// The loaded library, or nullptr with `why` saying what was tried and how to fix it. Thread-safe; the
// search runs once per process and its result (either way) is kept.
const CublasApi* cublas(std::string* why);

// "cublasCreate_v2: CUBLAS_STATUS_ALLOC_FAILED: resource allocation failed", in the words of the library's own
// status_name/status_string entry points (cuBLAS's or cuBLASLt's: both report a cublasStatus_t).
template <typename Api>
std::string cublas_error(const Api& api, const char* what, int status) {
  return std::string(what) + ": " + api.status_name(status) + ": " + api.status_string(status);
}

}  // namespace hal_nvidia
