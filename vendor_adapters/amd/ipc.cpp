// Sharing device memory with other processes through HIP IPC handles (adapter.h's ipc_* functions, ABI
// 1.4): what torch.cuda on ROCm uses to send a GPU tensor through torch.multiprocessing.
#include <cstring>
#include <string>

#include "adapter_context.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

static_assert(sizeof(HipIpcMemHandle) <= HAL_IPC_HANDLE_BYTES, "a HIP IPC handle must fit hal_ipc_handle_t");

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // `base` is what hipMalloc returned (the core passes the allocation, not a block inside it), as
  // hipIpcGetMemHandle requires.
  HipIpcMemHandle h;
  if (hal_status_t s = check(hip().IpcGetMemHandle(&h, base), "hipIpcGetMemHandle"); s != HAL_STATUS_SUCCESS) {
    return s;
  }
  std::memcpy(handle->bytes, &h, sizeof(h));
  handle->num_bytes = sizeof(h);
  handle->fd = -1;  // the handle's bytes are all another process needs
  return HAL_STATUS_SUCCESS;
}

hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  if (handle->num_bytes != sizeof(HipIpcMemHandle)) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_open: not a HIP IPC handle (" + std::to_string(handle->num_bytes) +
                                                 " bytes, not " + std::to_string(sizeof(HipIpcMemHandle)) + ")");
  }
  HipIpcMemHandle h;
  std::memcpy(&h, handle->bytes, sizeof(h));
  // Lazy peer access: the exporting GPU may be another one than `device`.
  return check(hip().IpcOpenMemHandle(base, h, kIpcMemLazyEnablePeerAccess), "hipIpcOpenMemHandle");
}

hal_status_t ipc_close(int32_t device, void* base) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().IpcCloseMemHandle(base), "hipIpcCloseMemHandle");
}

}  // namespace hal_amd
