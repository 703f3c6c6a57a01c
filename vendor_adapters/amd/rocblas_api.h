// rocBLAS as the AMD adapter sees it: the few C entry points its GEMMs call, resolved with dlopen (Debian
// ships no rocBLAS, and ROCm's headers are not needed for five functions). The values below are rocBLAS's
// enum values, the same from ROCm 5 to 7.
#pragma once

#include <cstdint>
#include <string>

#include "../adapter_support/loaded_library.h"
#include "hip_api.h"

namespace hal_amd {

using rocblas_handle = struct _rocblas_handle*;
using rocblas_status = int;
constexpr rocblas_status kRocblasSuccess = 0;
constexpr rocblas_status kRocblasMemoryError = 5;  // rocblas_status_memory_error

constexpr int kRocblasOpNone = 111;       // rocblas_operation_none
constexpr int kRocblasOpTranspose = 112;  // rocblas_operation_transpose
constexpr int kRocblasF16 = 150;          // rocblas_datatype_f16_r
constexpr int kRocblasF32 = 151;          // rocblas_datatype_f32_r
constexpr int kRocblasF64 = 152;          // rocblas_datatype_f64_r
constexpr int kRocblasBF16 = 168;         // rocblas_datatype_bf16_r
constexpr int kRocblasGemmStandard = 0;   // rocblas_gemm_algo_standard

// The entry points: X(member, function type, symbol).
#define HAL_ROCBLAS_ENTRY_POINTS(X)                                                                                  \
  X(create_handle, rocblas_status(rocblas_handle*), "rocblas_create_handle")                                         \
  X(destroy_handle, rocblas_status(rocblas_handle), "rocblas_destroy_handle")                                        \
  X(set_stream, rocblas_status(rocblas_handle, hipStream_t), "rocblas_set_stream")                                   \
  X(status_to_string, const char*(rocblas_status), "rocblas_status_to_string")                                       \
  /* D = alpha op(A) op(B) + beta C, column-major; here C and D are one. */                                          \
  X(gemm_strided_batched_ex,                                                                                         \
    rocblas_status(rocblas_handle, int trans_a, int trans_b, int32_t m, int32_t n, int32_t k, const void* alpha,     \
                   const void* a, int a_type, int32_t lda, int64_t stride_a, const void* b, int b_type, int32_t ldb, \
                   int64_t stride_b, const void* beta, const void* c, int c_type, int32_t ldc, int64_t stride_c,     \
                   void* d, int d_type, int32_t ldd, int64_t stride_d, int32_t batch_count, int compute_type,        \
                   int algo, int32_t solution_index, uint32_t flags),                                                \
    "rocblas_gemm_strided_batched_ex")

struct RocblasApi {
  HAL_ENTRY_POINT_TABLE(HAL_ROCBLAS_ENTRY_POINTS)
};

// rocBLAS, loaded on first call; nullptr when the machine has none, with the reason (and the fix) in *why.
const RocblasApi* rocblas(std::string* why);

}  // namespace hal_amd
