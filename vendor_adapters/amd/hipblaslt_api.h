// hipBLASLt as the AMD adapter sees it: the entry points of a GEMM with a bias epilogue (addmm, nn.Linear),
// resolved with dlopen like HIP and rocBLAS. Values and layouts are hipBLASLt's public ones (hipblaslt.h,
// hipblas-common.h of ROCm 6), which differ from cuBLASLt's: change none without checking those headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hip_api.h"

namespace hal_amd {

using hipblasLtHandle_t = void*;
struct HipblasLtMatmulDescOpaque;
using hipblasLtMatmulDesc_t = HipblasLtMatmulDescOpaque*;
struct HipblasLtMatrixLayoutOpaque;
using hipblasLtMatrixLayout_t = HipblasLtMatrixLayoutOpaque*;
struct HipblasLtMatmulPreferenceOpaque;
using hipblasLtMatmulPreference_t = HipblasLtMatmulPreferenceOpaque*;

// hipblasLtMatmulAlgo_t: filled by the heuristic, passed back to hipblasLtMatmul unchanged.
struct hipblasLtMatmulAlgo_t {
  uint8_t data[16];
  size_t max_workspace_bytes;
};
struct hipblasLtMatmulHeuristicResult_t {
  hipblasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  int state;  // hipblasStatus_t: the other fields are valid only when HIPBLAS_STATUS_SUCCESS
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(hipblasLtMatmulAlgo_t) == 24, "hipblasLtMatmulAlgo_t is uint8_t data[16], size_t");
static_assert(sizeof(hipblasLtMatmulHeuristicResult_t) == 56, "algo (24), workspaceSize, state, wavesCount, reserved");

// hipblasStatus_t
constexpr int kHipblasSuccess = 0;
constexpr int kHipblasAllocFailed = 2;
constexpr int kHipblasInvalidValue = 3;
constexpr int kHipblasNotSupported = 7;
constexpr int kHipblasArchMismatch = 8;
constexpr int kHipblasOpN = 111, kHipblasOpT = 112;  // hipblasOperation_t
constexpr int kHipblasCompute32F = 2;       // hipblasComputeType_t HIPBLAS_COMPUTE_32F
constexpr int kHipR32F = 0, kHipR16F = 2, kHipR16BF = 14;  // hipDataType (CUDA's values)
// hipblasLtMatmulDescAttributes_t and the value type of each.
constexpr int kHipblasLtDescTransA = 0;         // int32_t
constexpr int kHipblasLtDescTransB = 1;         // int32_t
constexpr int kHipblasLtDescEpilogue = 2;       // uint32_t
constexpr int kHipblasLtDescBiasPointer = 3;    // const void*
constexpr int kHipblasLtDescBiasDataType = 4;   // int32_t (hipDataType)
constexpr uint32_t kHipblasLtEpilogueBias = 4;  // hipblasLtEpilogue_t
constexpr int kHipblasLtPrefMaxWorkspaceBytes = 1;  // uint64_t

struct HipblasLtApi {
  int (*create)(hipblasLtHandle_t*);
  int (*destroy)(hipblasLtHandle_t);
  int (*matmul_desc_create)(hipblasLtMatmulDesc_t*, int compute_type, int scale_type);
  int (*matmul_desc_destroy)(hipblasLtMatmulDesc_t);
  int (*matmul_desc_set_attribute)(hipblasLtMatmulDesc_t, int attribute, const void* value, size_t bytes);
  int (*matrix_layout_create)(hipblasLtMatrixLayout_t*, int type, uint64_t rows, uint64_t cols, int64_t ld);
  int (*matrix_layout_destroy)(hipblasLtMatrixLayout_t);
  int (*matmul_preference_create)(hipblasLtMatmulPreference_t*);
  int (*matmul_preference_destroy)(hipblasLtMatmulPreference_t);
  int (*matmul_preference_set_attribute)(hipblasLtMatmulPreference_t, int attribute, const void* value, size_t bytes);
  int (*matmul_algo_get_heuristic)(hipblasLtHandle_t, hipblasLtMatmulDesc_t, hipblasLtMatrixLayout_t a,
                                   hipblasLtMatrixLayout_t b, hipblasLtMatrixLayout_t c, hipblasLtMatrixLayout_t d,
                                   hipblasLtMatmulPreference_t, int requested, hipblasLtMatmulHeuristicResult_t* results,
                                   int* returned);
  // D = alpha op(A) op(B) + beta C, then the epilogue; alpha and beta point to host values.
  int (*matmul)(hipblasLtHandle_t, hipblasLtMatmulDesc_t, const void* alpha, const void* a, hipblasLtMatrixLayout_t,
                const void* b, hipblasLtMatrixLayout_t, const void* beta, const void* c, hipblasLtMatrixLayout_t,
                void* d, hipblasLtMatrixLayout_t, const hipblasLtMatmulAlgo_t* algo, void* workspace,
                size_t workspace_bytes, hipStream_t stream);
};

// hipBLASLt, loaded on first call; nullptr (with the reason in *why) where the machine has none: the bias
// GEMMs then take rocBLAS and a copy of the bias.
const HipblasLtApi* hipblaslt(std::string* why);

}  // namespace hal_amd
