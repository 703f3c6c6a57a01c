// Sharing device memory with other processes (adapter.h's ipc_* functions, ABI 1.4): each allocation is a
// memory file (shared_memory.h) whose descriptor is the handle.
#pragma once

#include "abi_entries.h"

namespace host_adapter {

HAL_ABI_IPC_ENTRIES;

}  // namespace host_adapter
