// Sharing device memory with other processes (adapter.h's ipc_* functions, ABI 1.4): each allocation is a
// memory file (shared_memory.h) whose descriptor is the handle.
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace host_adapter {

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle);
hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base);
hal_status_t ipc_close(int32_t device, void* base);

}  // namespace host_adapter
