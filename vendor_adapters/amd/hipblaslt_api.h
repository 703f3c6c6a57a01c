// hipBLASLt as the AMD adapter sees it: the entry points of a GEMM with a bias epilogue (addmm, nn.Linear),
// resolved with dlopen like HIP and rocBLAS. Values and layouts are hipBLASLt's public ones (hipblaslt.h,
// hipblas-common.h of ROCm 6), which differ from cuBLASLt's: change none without checking those headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../gpu_shell/blas_lt_api.h"
#include "hip_api.h"

namespace hal_amd {

using hipblasLtHandle_t = void*;

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

// The entry points cuBLASLt has too (../gpu_shell/blas_lt_api.h), over hipBLASLt's types.
struct HipblasLtApi : hal_gpu_shell::BlasLtApi<hipblasLtHandle_t, hipStream_t, int, hipblasLtMatmulAlgo_t,
                                               hipblasLtMatmulHeuristicResult_t> {
  void resolve(hal_support::SymbolResolver& resolver) { resolve_with_prefix(resolver, "hipblasLt"); }
};
using hipblasLtMatmulDesc_t = HipblasLtApi::MatmulDesc;
using hipblasLtMatrixLayout_t = HipblasLtApi::MatrixLayout;
using hipblasLtMatmulPreference_t = HipblasLtApi::Preference;

// hipBLASLt, loaded on first call; nullptr (with the reason in *why) where the machine has none: the bias
// GEMMs then take rocBLAS and a copy of the bias.
const HipblasLtApi* hipblaslt(std::string* why);

}  // namespace hal_amd
