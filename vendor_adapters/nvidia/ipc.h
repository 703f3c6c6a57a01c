// Sharing device memory with other processes through CUDA IPC (adapter.h's ipc_* functions, ABI 1.4):
// what torch.cuda uses to send a CUDA tensor through torch.multiprocessing.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_nvidia {

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle);
hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base);
hal_status_t ipc_close(int32_t device, void* base);

}  // namespace hal_nvidia
