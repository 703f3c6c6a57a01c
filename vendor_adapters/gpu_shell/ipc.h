// Sharing device memory with other processes through the runtime's IPC handles (adapter.h's ipc_* functions,
// ABI 1.4): what torch.cuda, on CUDA and on ROCm, uses to send a GPU tensor through torch.multiprocessing.
// Written once for the GPU adapters, over their runtime_traits.h (ipc.cpp).
#pragma once

#include "abi_entries.h"

namespace hal_gpu_shell {

HAL_ABI_IPC_ENTRIES;

}  // namespace hal_gpu_shell
