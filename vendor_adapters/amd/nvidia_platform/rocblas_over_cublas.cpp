// A librocblas.so for the AMD adapter's test build on NVIDIA GPUs: the rocBLAS entry points the adapter
// resolves (rocblas_api.cpp) over cuBLAS, found the way the NVIDIA adapter finds it (cublas_library.h,
// compiled into this library). rocBLAS's and cuBLAS's strided-batched GEMMs take the same column-major
// operands; only the enum values differ. rocBLAS keeps workspace memory of its own, where cuBLAS must be
// given some for its faster kernels (split-K among them) and forgets it on every cublasSetStream, so each
// stream a handle serves gets a workspace here, of the size PyTorch gives cuBLAS.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <new>
#include <string>
#include <unordered_map>

#include "cublas_library.h"

namespace {

using hal_nvidia::CublasApi;
using hal_nvidia::cublasHandle_t;

constexpr int kSuccess = 0, kInvalidHandle = 1, kNotImplemented = 2, kInvalidValue = 11, kInternalError = 6;

struct Handle {
  const CublasApi* api;
  cublasHandle_t cublas;
  std::unordered_map<cudaStream_t, void*> workspaces;  // per stream: kernels on two streams may overlap
  size_t workspace_bytes;
};

// 32 MiB on Hopper and newer, 8 MiB before, as PyTorch does.
size_t workspace_bytes_for_current_device() {
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    return size_t{8} << 20;
  }
  return major >= 9 ? size_t{32} << 20 : size_t{8} << 20;
}

bool cuda_type(int rocblas_type, cudaDataType_t* out) {
  switch (rocblas_type) {
    case 150: *out = CUDA_R_16F; return true;
    case 151: *out = CUDA_R_32F; return true;
    case 152: *out = CUDA_R_64F; return true;
    case 168: *out = CUDA_R_16BF; return true;
    default: return false;
  }
}

}  // namespace

extern "C" {

#define HAL_ROCBLAS_EXPORT __attribute__((visibility("default")))

HAL_ROCBLAS_EXPORT int rocblas_create_handle(Handle** handle) {
  std::string why;
  const CublasApi* api = hal_nvidia::cublas(&why);
  if (!api) return kNotImplemented;
  cublasHandle_t cublas = nullptr;
  if (api->create(&cublas) != 0) return kInternalError;
  *handle = new (std::nothrow) Handle{api, cublas, {}, workspace_bytes_for_current_device()};
  if (!*handle) {
    api->destroy(cublas);
    return 5;  // rocblas_status_memory_error
  }
  return kSuccess;
}

HAL_ROCBLAS_EXPORT int rocblas_destroy_handle(Handle* handle) {
  if (!handle) return kInvalidHandle;
  handle->api->destroy(handle->cublas);
  for (auto& [stream, memory] : handle->workspaces) (void)cudaFree(memory);  // waits for the work using it
  delete handle;
  return kSuccess;
}

HAL_ROCBLAS_EXPORT int rocblas_set_stream(Handle* handle, cudaStream_t stream) {
  if (!handle) return kInvalidHandle;
  if (handle->api->set_stream(handle->cublas, stream) != 0) return kInternalError;
  void*& workspace = handle->workspaces[stream];
  if (!workspace && cudaMalloc(&workspace, handle->workspace_bytes) != cudaSuccess) {
    workspace = nullptr;
    handle->workspaces.erase(stream);
    return kSuccess;  // cuBLAS still runs, with its default workspace
  }
  return handle->api->set_workspace(handle->cublas, workspace, handle->workspace_bytes) == 0 ? kSuccess : kInternalError;
}

HAL_ROCBLAS_EXPORT const char* rocblas_status_to_string(int status) {
  switch (status) {
    case kSuccess: return "rocblas_status_success";
    case kInvalidHandle: return "rocblas_status_invalid_handle";
    case kNotImplemented: return "rocblas_status_not_implemented (no cuBLAS under this test rocBLAS)";
    case kInvalidValue: return "rocblas_status_invalid_value";
    default: return "rocblas_status_internal_error (cuBLAS failed)";
  }
}

HAL_ROCBLAS_EXPORT int rocblas_gemm_strided_batched_ex(
    Handle* handle, int trans_a, int trans_b, int32_t m, int32_t n, int32_t k, const void* alpha, const void* a,
    int a_type, int32_t lda, int64_t stride_a, const void* b, int b_type, int32_t ldb, int64_t stride_b,
    const void* beta, const void* c, int c_type, int32_t ldc, int64_t stride_c, void* d, int d_type, int32_t ldd,
    int64_t stride_d, int32_t batch_count, int compute_type, int /*algo*/, int32_t /*solution_index*/,
    uint32_t /*flags*/) {
  if (!handle) return kInvalidHandle;
  // cuBLAS writes C in place: D must be C (the adapter always passes the output as both).
  if (c != d || c_type != d_type || ldc != ldd || stride_c != stride_d) return kNotImplemented;
  cudaDataType_t at{}, bt{}, ct{};
  if (!cuda_type(a_type, &at) || !cuda_type(b_type, &bt) || !cuda_type(c_type, &ct)) return kInvalidValue;
  const int op_a = trans_a == 112 ? 1 : 0, op_b = trans_b == 112 ? 1 : 0;  // rocblas_operation -> cublasOperation_t
  const int compute = compute_type == 152 ? hal_nvidia::kCublasCompute64F : hal_nvidia::kCublasCompute32F;
  const int result = handle->api->gemm_strided_batched_ex(
      handle->cublas, op_a, op_b, m, n, k, alpha, a, at, lda, stride_a, b, bt, ldb, stride_b, beta, d, ct, ldd,
      stride_d, batch_count, compute, hal_nvidia::kCublasGemmDefault);
  return result == 0 ? kSuccess : kInternalError;
}

}  // extern "C"
