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

#include "../gpu_shell/blas_lt_api.h"
#include "cublas_library.h"  // CublasStatus, CublasOperation, CublasComputeType: shared with cuBLAS

namespace hal_nvidia {

// The handle: a pointer to a structure cuBLASLt allocates, which the adapter never looks into (so are the
// descriptors, CublasLtApi's below).
struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext*;

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

// The entry points, resolved once: those hipBLASLt has too (../gpu_shell/blas_lt_api.h, as documented in
// "cuBLASLt API Reference" for cuBLASLt 12 and 13), over cuBLASLt's types, and its status names.
struct CublasLtApi : hal_gpu_shell::BlasLtApi<cublasLtHandle_t, cudaStream_t, cudaDataType_t, cublasLtMatmulAlgo_t,
                                              cublasLtMatmulHeuristicResult_t> {
  hal_support::EntryPoint<const char*(int status)> status_name, status_string;  // cublasLtGetStatus{Name,String}

  void resolve(hal_support::SymbolResolver& resolver) {
    resolve_with_prefix(resolver, "cublasLt");
    resolver(status_name, "cublasLtGetStatusName");
    resolver(status_string, "cublasLtGetStatusString");
  }
};
using cublasLtMatmulDesc_t = CublasLtApi::MatmulDesc;
using cublasLtMatrixLayout_t = CublasLtApi::MatrixLayout;
using cublasLtMatmulPreference_t = CublasLtApi::Preference;

// The loaded library, or nullptr with `why` saying what was tried. Thread-safe; the search runs once per
// process and its result (either way) is kept.
const CublasLtApi* cublas_lt(std::string* why);

}  // namespace hal_nvidia
