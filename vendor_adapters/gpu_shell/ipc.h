// Sharing device memory with other processes through the runtime's IPC handles (adapter.h's ipc_* functions,
// ABI 1.4): what torch.cuda, on CUDA and on ROCm, uses to send a GPU tensor through torch.multiprocessing.
// Written once for the GPU adapters, over their runtime_traits.h (ipc.cpp).
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_gpu_shell {

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle);
hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base);
hal_status_t ipc_close(int32_t device, void* base);

}  // namespace hal_gpu_shell
