#include "blas_context.h"

#include <string>

#include "cuda_status.h"

namespace hal_nvidia {

void BlasContext::acquire(int32_t device, uint64_t workspace_bytes, cudaStream_t stream, Lease* lease) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = workspaces_.find(stream);
  if (it == workspaces_.end()) {
    void* memory = nullptr;
    if (cudaMalloc(&memory, workspace_bytes) == cudaSuccess) {
      it = workspaces_.emplace(stream, DeviceBuffer(memory)).first;
    } else {
      // Not an error for the GEMM: without a workspace cuBLAS and cuBLASLt pick algorithms that need none.
      // The allocation is tried again next time (the core may have released cached memory by then).
      (void)cudaGetLastError();
    }
  }
  lease->context_ = this;
  lease->lock_ = std::move(lock);
  lease->device_ = device;
  lease->stream_ = stream;
  lease->workspace_ = it == workspaces_.end() ? nullptr : it->second.get();
  lease->workspace_bytes_ = lease->workspace_ ? workspace_bytes : 0;
}

void BlasContext::forget(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  workspaces_.erase(stream);
}

hal_status_t BlasContext::Lease::cublas(const CublasApi& api, cublasHandle_t* handle) {
  LibraryHandle<cublasContext>& owned = context_->cublas_;
  if (!owned) {
    cublasHandle_t made = nullptr;
    const int status = api.create(&made);
    if (status != kCublasSuccess) {
      return fail(status == kCublasAllocFailed ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
                  cublas_error(api, ("cublasCreate on device " + std::to_string(device_)).c_str(), status));
    }
    owned = LibraryHandle<cublasContext>(made, {api.destroy});
  }
  // cublasSetStream resets the workspace to cuBLAS's own pool, so the workspace is set after it.
  int status = api.set_stream(owned.get(), stream_);
  if (status != kCublasSuccess) return fail(HAL_STATUS_DEVICE_ERROR, cublas_error(api, "cublasSetStream", status));
  status = api.set_workspace(owned.get(), workspace_, workspace_bytes_);
  if (status != kCublasSuccess) return fail(HAL_STATUS_DEVICE_ERROR, cublas_error(api, "cublasSetWorkspace", status));
  *handle = owned.get();
  return HAL_STATUS_SUCCESS;
}

cublasLtHandle_t BlasContext::Lease::cublas_lt(const CublasLtApi& api) {
  LibraryHandle<cublasLtContext>& owned = context_->cublas_lt_;
  if (!owned) {
    cublasLtHandle_t made = nullptr;
    if (api.create(&made) != kCublasSuccess) return nullptr;
    owned = LibraryHandle<cublasLtContext>(made, {api.destroy});
  }
  return owned.get();
}

}  // namespace hal_nvidia
