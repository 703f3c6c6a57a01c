#include "blas_context.h"

#include <string>

#include "cuda_status.h"

namespace hal_nvidia {

BlasContext::~BlasContext() {
  if (handle_) (void)api_->destroy(handle_);
}

hal_status_t BlasContext::acquire(const CublasApi& api, int32_t device, uint64_t workspace_bytes,
                                  cudaStream_t stream, Lease* lease) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!handle_) {
    const int status = api.create(&handle_);
    if (status != kCublasSuccess) {
      handle_ = nullptr;
      return fail(status == kCublasAllocFailed ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
                  cublas_error(api, ("cublasCreate on device " + std::to_string(device)).c_str(), status));
    }
    api_ = &api;
  }
  // cublasSetStream resets the workspace to cuBLAS's own pool, so the workspace is set after it.
  int status = api.set_stream(handle_, stream);
  if (status != kCublasSuccess) return fail(HAL_STATUS_DEVICE_ERROR, cublas_error(api, "cublasSetStream", status));

  auto it = workspaces_.find(stream);
  if (it == workspaces_.end()) {
    void* memory = nullptr;
    if (cudaMalloc(&memory, workspace_bytes) == cudaSuccess) {
      it = workspaces_.emplace(stream, DeviceBuffer(memory)).first;
    } else {
      // Not an error for the GEMM: without a workspace cuBLAS picks algorithms that need none. The
      // allocation is tried again next time (the core may have released cached memory by then).
      (void)cudaGetLastError();
    }
  }
  void* workspace = it == workspaces_.end() ? nullptr : it->second.get();
  status = api.set_workspace(handle_, workspace, workspace ? workspace_bytes : 0);
  if (status != kCublasSuccess) return fail(HAL_STATUS_DEVICE_ERROR, cublas_error(api, "cublasSetWorkspace", status));

  lease->lock_ = std::move(lock);
  lease->handle_ = handle_;
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_nvidia
