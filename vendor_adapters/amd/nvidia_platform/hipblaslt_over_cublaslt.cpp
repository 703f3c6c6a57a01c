// A libhipblaslt.so for the AMD adapter's test build on NVIDIA GPUs: the hipBLASLt entry points the adapter
// resolves (hipblaslt_api.cpp) over cuBLASLt, found the way the NVIDIA adapter finds it (cublaslt_library.h,
// compiled into this library). The two APIs have the same calls; their enum values and the algorithm struct
// differ (hipBLASLt's holds 16 bytes, cuBLASLt's 64), so an algorithm crosses as an index into a table of
// cuBLASLt's, kept here.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>

#include "cublaslt_library.h"
#include "hipblaslt_api.h"

namespace {

using namespace hal_nvidia;
using hal_amd::hipblasLtMatmulAlgo_t;
using hal_amd::hipblasLtMatmulHeuristicResult_t;

const CublasLtApi* lt() {
  static const CublasLtApi* api = cublas_lt(nullptr);
  return api;
}

// cublasStatus_t -> hipblasStatus_t
int hip_status(int cublas) {
  switch (cublas) {
    case kCublasSuccess: return hal_amd::kHipblasSuccess;
    case kCublasAllocFailed: return hal_amd::kHipblasAllocFailed;
    case kCublasInvalidValue: return hal_amd::kHipblasInvalidValue;
    case kCublasArchMismatch: return hal_amd::kHipblasArchMismatch;
    case kCublasNotSupported: return hal_amd::kHipblasNotSupported;
    default: return 6;  // HIPBLAS_STATUS_INTERNAL_ERROR
  }
}

int cuda_operation(int32_t hip_operation) { return hip_operation == hal_amd::kHipblasOpT ? kCublasOpT : kCublasOpN; }

// cuBLASLt's algorithms by the index a hipBLASLt algorithm carries; never shrinks (a model has few).
struct AlgoTable {
  std::mutex mutex;
  std::deque<cublasLtMatmulAlgo_t> algos;
};
AlgoTable& algo_table() {
  static AlgoTable* table = new AlgoTable;  // never destroyed: algorithms may be used until exit
  return *table;
}

}  // namespace

extern "C" {

#define HAL_HIPBLASLT_EXPORT __attribute__((visibility("default")))

HAL_HIPBLASLT_EXPORT int hipblasLtCreate(void** handle) {
  if (!lt()) return hal_amd::kHipblasNotSupported;
  return hip_status(lt()->create(reinterpret_cast<cublasLtHandle_t*>(handle)));
}
HAL_HIPBLASLT_EXPORT int hipblasLtDestroy(void* handle) {
  return hip_status(lt()->destroy(static_cast<cublasLtHandle_t>(handle)));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, int compute_type, int scale_type) {
  const int compute = compute_type == 7 ? kCublasCompute64F : kCublasCompute32F;  // HIPBLAS_COMPUTE_64F is 7
  return hip_status(lt()->matmul_desc_create(desc, compute, static_cast<cudaDataType_t>(scale_type)));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  return hip_status(lt()->matmul_desc_destroy(desc));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, int attribute, const void* value,
                                                         size_t bytes) {
  switch (attribute) {
    case hal_amd::kHipblasLtDescTransA:
    case hal_amd::kHipblasLtDescTransB: {
      if (bytes != sizeof(int32_t)) return hal_amd::kHipblasInvalidValue;
      int32_t operation = 0;
      std::memcpy(&operation, value, sizeof(operation));
      const int32_t cuda = cuda_operation(operation);
      const int which = attribute == hal_amd::kHipblasLtDescTransA ? kLtMatmulDescTransA : kLtMatmulDescTransB;
      return hip_status(lt()->matmul_desc_set_attribute(desc, which, &cuda, sizeof(cuda)));
    }
    case hal_amd::kHipblasLtDescEpilogue:  // the epilogue values are the same
      return hip_status(lt()->matmul_desc_set_attribute(desc, kLtMatmulDescEpilogue, value, bytes));
    case hal_amd::kHipblasLtDescBiasPointer:
      return hip_status(lt()->matmul_desc_set_attribute(desc, kLtMatmulDescBiasPointer, value, bytes));
    case hal_amd::kHipblasLtDescBiasDataType:  // hipDataType has cudaDataType_t's values
      return hip_status(lt()->matmul_desc_set_attribute(desc, kLtMatmulDescBiasDataType, value, bytes));
    default:
      return hal_amd::kHipblasNotSupported;
  }
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, int type, uint64_t rows,
                                                     uint64_t cols, int64_t ld) {
  if (!lt()) return hal_amd::kHipblasNotSupported;
  return hip_status(lt()->matrix_layout_create(layout, static_cast<cudaDataType_t>(type), rows, cols, ld));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  return hip_status(lt()->matrix_layout_destroy(layout));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* preference) {
  if (!lt()) return hal_amd::kHipblasNotSupported;
  return hip_status(lt()->matmul_preference_create(preference));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  return hip_status(lt()->matmul_preference_destroy(preference));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t preference, int attribute,
                                                               const void* value, size_t bytes) {
  if (attribute != hal_amd::kHipblasLtPrefMaxWorkspaceBytes) return hal_amd::kHipblasNotSupported;
  return hip_status(lt()->matmul_preference_set_attribute(preference, kLtMatmulPrefMaxWorkspaceBytes, value, bytes));
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmulAlgoGetHeuristic(void* handle, cublasLtMatmulDesc_t desc,
                                                         cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                         cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                         cublasLtMatmulPreference_t preference, int requested,
                                                         hipblasLtMatmulHeuristicResult_t* results, int* returned) {
  if (requested <= 0 || requested > 8) return hal_amd::kHipblasInvalidValue;
  cublasLtMatmulHeuristicResult_t found[8]{};
  const int status = lt()->matmul_algo_get_heuristic(static_cast<cublasLtHandle_t>(handle), desc, a, b, c, d,
                                                     preference, requested, found, returned);
  if (status != kCublasSuccess) return hip_status(status);
  AlgoTable& table = algo_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  for (int i = 0; i < *returned; ++i) {
    const uint64_t index = table.algos.size();
    table.algos.push_back(found[i].algo);
    hipblasLtMatmulHeuristicResult_t& out = results[i];
    out = hipblasLtMatmulHeuristicResult_t{};
    std::memcpy(out.algo.data, &index, sizeof(index));
    out.algo.max_workspace_bytes = found[i].workspaceSize;
    out.workspaceSize = found[i].workspaceSize;
    out.state = hip_status(found[i].state);
    out.wavesCount = found[i].wavesCount;
  }
  return hal_amd::kHipblasSuccess;
}
HAL_HIPBLASLT_EXPORT int hipblasLtMatmul(void* handle, cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                                         cublasLtMatrixLayout_t a_layout, const void* b,
                                         cublasLtMatrixLayout_t b_layout, const void* beta, const void* c,
                                         cublasLtMatrixLayout_t c_layout, void* d, cublasLtMatrixLayout_t d_layout,
                                         const hipblasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                         cudaStream_t stream) {
  cublasLtMatmulAlgo_t chosen{};
  if (algo) {
    uint64_t index = 0;
    std::memcpy(&index, algo->data, sizeof(index));
    AlgoTable& table = algo_table();
    std::lock_guard<std::mutex> lock(table.mutex);
    if (index >= table.algos.size()) return hal_amd::kHipblasInvalidValue;
    chosen = table.algos[index];
  }
  return hip_status(lt()->matmul(static_cast<cublasLtHandle_t>(handle), desc, alpha, a, a_layout, b, b_layout, beta,
                                 c, c_layout, d, d_layout, algo ? &chosen : nullptr, workspace, workspace_bytes,
                                 stream));
}

}  // extern "C"
