#include "ipc.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {

static_assert(sizeof(cudaIpcMemHandle_t) <= HAL_IPC_HANDLE_BYTES, "a CUDA IPC handle must fit hal_ipc_handle_t");

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // `base` is what cudaMalloc returned (the core passes the allocation, not a block inside it), as
  // cudaIpcGetMemHandle requires.
  cudaIpcMemHandle_t h;
  if (hal_status_t s = check(cudaIpcGetMemHandle(&h, base), "cudaIpcGetMemHandle"); s != HAL_STATUS_SUCCESS) {
    return s;
  }
  std::memcpy(handle->bytes, &h, sizeof(h));
  handle->num_bytes = sizeof(h);
  handle->fd = -1;  // the handle's bytes are all another process needs
  return HAL_STATUS_SUCCESS;
}

hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  if (handle->num_bytes != sizeof(cudaIpcMemHandle_t)) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_open: not a CUDA IPC handle (" + std::to_string(handle->num_bytes) +
                                                 " bytes, not " + std::to_string(sizeof(cudaIpcMemHandle_t)) + ")");
  }
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle->bytes, sizeof(h));
  // Lazy peer access: the exporting GPU may be another one than `device`, reached over NVLink or PCIe.
  return check(cudaIpcOpenMemHandle(base, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
}

hal_status_t ipc_close(int32_t device, void* base) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return check(cudaIpcCloseMemHandle(base), "cudaIpcCloseMemHandle");
}

}  // namespace hal_nvidia
