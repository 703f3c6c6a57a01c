// cuBLASLt, loaded with dlopen at first use like cuBLAS (cuda_library_search.h): used for GEMMs whose c is a
// bias vector, which cuBLASLt adds in the GEMM's epilogue (one kernel instead of a copy and a GEMM).
//
// Only the entry points, enum values and structs that path needs are declared here, written from the public
// cuBLAS documentation (docs.nvidia.com/cuda/cublas, chapter "Using the cuBLASLt API": "cuBLASLt Datatypes
// Reference" for the types and enums, "cuBLASLt API Reference" for the functions). The numeric values are
// part of cuBLASLt's ABI and were cross-checked against two public copies of NVIDIA's cublasLt.h (a CUDA 11
// one and a CUDA 13 one: the values below are the same in both, apart from BIAS_DATA_TYPE, which CUDA 11 does
// not have) and against NVIDIA's nvmath-python bindings reference (nvmath.bindings.cublasLt.*). A wrong value
// would silently compute something else, so change none without checking those sources again.
#pragma once

#include <cuda_runtime_api.h>
#include <library_types.h>  // cudaDataType_t (CUDA_R_32F, ...), shipped with the CUDA runtime headers

#include <cstddef>
#include <cstdint>
#include <string>

#include "cublas_library.h"  // CublasStatus, CublasOperation, CublasComputeType: shared with cuBLAS

namespace hal_nvidia {

// The opaque handle types (pointers to structures cuBLASLt allocates; the adapter never looks inside).
struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext*;
struct cublasLtMatmulDescOpaque;
using cublasLtMatmulDesc_t = cublasLtMatmulDescOpaque*;
struct cublasLtMatrixLayoutOpaque;
using cublasLtMatrixLayout_t = cublasLtMatrixLayoutOpaque*;
struct cublasLtMatmulPreferenceOpaque;
using cublasLtMatmulPreference_t = cublasLtMatmulPreferenceOpaque*;

// cublasLtMatmulAlgo_t ("cuBLASLt Datatypes Reference"): semi-opaque, filled by the heuristic and passed back
// to cublasLtMatmul unchanged.
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
// cublasLtMatmulHeuristicResult_t: one algorithm the heuristic proposes.
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;  // scratch bytes the algorithm needs
  int state;             // cublasStatus_t: the other fields are valid only when CUBLAS_STATUS_SUCCESS
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(cublasLtMatmulAlgo_t) == 64, "cublasLtMatmulAlgo_t is uint64_t data[8]");
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == 96,
              "cublasLtMatmulHeuristicResult_t: algo (64), workspaceSize (8), state (4), wavesCount (4), reserved[4]");

// cublasLtMatmulDescAttributes_t, with the value type each attribute takes (cublasLtMatmulDescSetAttribute
// answers INVALID_VALUE when the size passed is not that type's size).
enum LtMatmulDescAttribute : int {
  kLtMatmulDescTransA = 3,         // int32_t, cublasOperation_t
  kLtMatmulDescTransB = 4,         // int32_t, cublasOperation_t
  kLtMatmulDescEpilogue = 7,       // uint32_t, cublasLtEpilogue_t
  kLtMatmulDescBiasPointer = 8,    // const void*: the bias vector, one value per row of D
  kLtMatmulDescBiasDataType = 26,  // int32_t, cudaDataType_t (-1, the default, means D's type)
};
// cublasLtEpilogue_t (uint32_t)
enum LtEpilogue : uint32_t {
  kLtEpilogueDefault = 1,
  kLtEpilogueBias = 4,  // adds the bias vector (length = rows of D, packed) to every column of D
};
// cublasLtMatmulPreferenceAttributes_t
enum LtMatmulPreferenceAttribute : int {
  kLtMatmulPrefMaxWorkspaceBytes = 1,  // uint64_t
  kLtMatmulPrefMinAlignmentABytes = 5,  // uint32_t: the alignment A's pointer actually has
  kLtMatmulPrefMinAlignmentBBytes = 6,  // uint32_t
  kLtMatmulPrefMinAlignmentCBytes = 7,  // uint32_t
  kLtMatmulPrefMinAlignmentDBytes = 8,  // uint32_t
};

// The entry points, resolved once. Signatures as documented for cuBLASLt 12 and 13 ("cuBLASLt API
// Reference"); enum parameters are passed as int, their C ABI type.
struct CublasLtApi {
  int (*create)(cublasLtHandle_t* handle);  // cublasLtCreate
  int (*destroy)(cublasLtHandle_t handle);  // cublasLtDestroy
  int (*matmul_desc_create)(cublasLtMatmulDesc_t* desc, int compute_type, cudaDataType_t scale_type);
  int (*matmul_desc_destroy)(cublasLtMatmulDesc_t desc);
  int (*matmul_desc_set_attribute)(cublasLtMatmulDesc_t desc, int attribute, const void* value, size_t bytes);
  int (*matrix_layout_create)(cublasLtMatrixLayout_t* layout, cudaDataType_t type, uint64_t rows, uint64_t cols,
                              int64_t ld);
  int (*matrix_layout_destroy)(cublasLtMatrixLayout_t layout);
  int (*matmul_preference_create)(cublasLtMatmulPreference_t* preference);
  int (*matmul_preference_destroy)(cublasLtMatmulPreference_t preference);
  int (*matmul_preference_set_attribute)(cublasLtMatmulPreference_t preference, int attribute, const void* value,
                                         size_t bytes);
  int (*matmul_algo_get_heuristic)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                                   cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                   cublasLtMatmulPreference_t preference, int requested,
                                   cublasLtMatmulHeuristicResult_t* results, int* returned);
  // D = alpha * op(A) op(B) + beta * C, then the epilogue; alpha and beta point to host values.
  int (*matmul)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                cublasLtMatrixLayout_t a_layout, const void* b, cublasLtMatrixLayout_t b_layout, const void* beta,
                const void* c, cublasLtMatrixLayout_t c_layout, void* d, cublasLtMatrixLayout_t d_layout,
                const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes, cudaStream_t stream);
  const char* (*status_name)(int status);    // cublasLtGetStatusName
  const char* (*status_string)(int status);  // cublasLtGetStatusString
};

// The loaded library, or nullptr with `why` saying what was tried. Thread-safe; the search runs once per
// process and its result (either way) is kept.
const CublasLtApi* cublas_lt(std::string* why);

}  // namespace hal_nvidia
