// The runtime asked of the adapter's runtime_traits.h (Runtime):
//   kName                                   "CUDA", "HIP": in messages
//   use_device(device), fail(status, message)
//   IpcMemHandle                            the runtime's IPC handle type (64 opaque bytes)
//   ipc_get_mem_handle(&handle, base), ipc_open_mem_handle(&base, handle), ipc_close_mem_handle(base):
//                                           the runtime's calls, their failures recorded (SUCCESS otherwise)
#include "ipc.h"

#include <cstring>
#include <string>

#include "runtime_traits.h"

namespace hal_gpu_shell {

static_assert(sizeof(Runtime::IpcMemHandle) <= HAL_IPC_HANDLE_BYTES, "a runtime's IPC handle must fit hal_ipc_handle_t");

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle) {
  if (hal_status_t s = Runtime::use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // `base` is what the runtime's malloc returned (the core passes the allocation, not a block inside it), as
  // the runtime's IpcGetMemHandle requires.
  Runtime::IpcMemHandle h;
  if (hal_status_t s = Runtime::ipc_get_mem_handle(&h, base); s != HAL_STATUS_SUCCESS) {
    return s;
  }
  std::memcpy(handle->bytes, &h, sizeof(h));
  handle->num_bytes = sizeof(h);
  handle->fd = -1;  // the handle's bytes are all another process needs
  return HAL_STATUS_SUCCESS;
}

hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base) {
  if (hal_status_t s = Runtime::use_device(device); s != HAL_STATUS_SUCCESS) return s;
  if (handle->num_bytes != sizeof(Runtime::IpcMemHandle)) {
    return Runtime::fail(HAL_STATUS_INVALID_ARGUMENT, std::string("ipc_open: not a ") + Runtime::kName +
                                                          " IPC handle (" + std::to_string(handle->num_bytes) +
                                                          " bytes, not " + std::to_string(sizeof(Runtime::IpcMemHandle)) +
                                                          ")");
  }
  Runtime::IpcMemHandle h;
  std::memcpy(&h, handle->bytes, sizeof(h));
  // Lazy peer access: the exporting GPU may be another one than `device`.
  return Runtime::ipc_open_mem_handle(base, h);
}

hal_status_t ipc_close(int32_t device, void* base) {
  if (hal_status_t s = Runtime::use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return Runtime::ipc_close_mem_handle(base);
}

}  // namespace hal_gpu_shell
