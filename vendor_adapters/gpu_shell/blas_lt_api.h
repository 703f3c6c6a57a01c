// The entry points of a BLAS-Lt library that both GPU adapters load with dlopen: cuBLASLt (NVIDIA) and hipBLASLt
// (AMD), which copies cuBLASLt's API: the same functions with the same parameters, named "hipblasLt..." for
// "cublasLt...". Declared once here over what differs, each adapter's types (template parameters) and symbol
// prefix (resolve_with_prefix()); their enum values differ too, and stay in each adapter's header
// (../nvidia/cublaslt_library.h, ../amd/hipblaslt_api.h), which derives its Api struct from BlasLtApi.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../adapter_support/loaded_library.h"

namespace hal_gpu_shell {

// Handle, Stream: the library's handle and the runtime's stream. DataType: cudaDataType_t, or hipDataType (an
// int here). MatmulAlgo, HeuristicResult: the structs the heuristic fills, whose layouts differ. Enum
// parameters are passed as int, their C ABI type.
template <class HandleT, class StreamT, class DataTypeT, class MatmulAlgoT, class HeuristicResultT>
struct BlasLtApi {
  // What the descriptors point to: structures the library allocates, never looked into; nested, so that
  // each library's are types of their own.
  struct MatmulDescOpaque;
  struct MatrixLayoutOpaque;
  struct PreferenceOpaque;
  using MatmulDesc = MatmulDescOpaque*;
  using MatrixLayout = MatrixLayoutOpaque*;
  using Preference = PreferenceOpaque*;
  using Handle = HandleT;
  using Stream = StreamT;
  using DataType = DataTypeT;
  using MatmulAlgo = MatmulAlgoT;
  using HeuristicResult = HeuristicResultT;

// X(member, function type, symbol without the library's prefix).
#define HAL_BLAS_LT_ENTRY_POINTS(X)                                                                              \
  X(create, int(Handle*), "Create")                                                                              \
  X(destroy, int(Handle), "Destroy")                                                                             \
  X(matmul_desc_create, int(MatmulDesc*, int compute_type, DataType scale_type), "MatmulDescCreate")             \
  X(matmul_desc_destroy, int(MatmulDesc), "MatmulDescDestroy")                                                   \
  X(matmul_desc_set_attribute, int(MatmulDesc, int attribute, const void* value, size_t bytes),                  \
    "MatmulDescSetAttribute")                                                                                    \
  X(matrix_layout_create, int(MatrixLayout*, DataType, uint64_t rows, uint64_t cols, int64_t ld),                \
    "MatrixLayoutCreate")                                                                                        \
  X(matrix_layout_destroy, int(MatrixLayout), "MatrixLayoutDestroy")                                             \
  X(matmul_preference_create, int(Preference*), "MatmulPreferenceCreate")                                        \
  X(matmul_preference_destroy, int(Preference), "MatmulPreferenceDestroy")                                       \
  X(matmul_preference_set_attribute, int(Preference, int attribute, const void* value, size_t bytes),            \
    "MatmulPreferenceSetAttribute")                                                                              \
  X(matmul_algo_get_heuristic,                                                                                   \
    int(Handle, MatmulDesc, MatrixLayout a, MatrixLayout b, MatrixLayout c, MatrixLayout d, Preference,          \
        int requested, HeuristicResult* results, int* returned),                                                 \
    "MatmulAlgoGetHeuristic")                                                                                    \
  /* D = alpha op(A) op(B) + beta C, then the epilogue; alpha and beta point to host values. */                  \
  X(matmul,                                                                                                      \
    int(Handle, MatmulDesc, const void* alpha, const void* a, MatrixLayout, const void* b, MatrixLayout,         \
        const void* beta, const void* c, MatrixLayout, void* d, MatrixLayout, const MatmulAlgo* algo,            \
        void* workspace, size_t workspace_bytes, Stream stream),                                                 \
    "Matmul")

  HAL_BLAS_LT_ENTRY_POINTS(HAL_ENTRY_POINT_MEMBER)

  // Fills the entry points from `resolver`'s library, whose symbols are `prefix` ("cublasLt") + the name.
  void resolve_with_prefix(hal_support::SymbolResolver& resolver, const std::string& prefix) {
#define HAL_BLAS_LT_RESOLVE(member, type, name) resolver(member, prefix + name);
    HAL_BLAS_LT_ENTRY_POINTS(HAL_BLAS_LT_RESOLVE)
#undef HAL_BLAS_LT_RESOLVE
  }
#undef HAL_BLAS_LT_ENTRY_POINTS
};

}  // namespace hal_gpu_shell
