// Sharing device memory with other processes (adapter.h's ipc_* functions, ABI 1.4). A block of the caching
// allocator is exported as its whole device allocation plus the block's offset in it, as torch.cuda shares
// its blocks: an adapter can only name memory it allocated. An importing process maps each allocation once,
// however many tensors of it arrive, and unmaps it when the last of them is gone.
#pragma once

#include <cstdint>
#include <memory>

#include "torch_hal/adapter.h"

namespace hal {

// Whether hal:device's adapter implements sharing (the ABI 1.4 functions).
bool ipc_supported(int device);

struct IpcExport {
  hal_ipc_handle_t handle{};  // its fd, if any, is the adapter's: valid while the allocation lives
  uint64_t offset = 0;        // where the exported pointer lies in the allocation
};

// Exports the memory at `ptr`, which must lie in a live block of hal:device's caching allocator. Throws
// NotSupported when the adapter cannot share it (no ipc functions, or memory it cannot name), and
// InvalidArgument when ptr is not in such a block (memory mapped from another process, say).
IpcExport ipc_export(int device, const void* ptr);

// Maps on hal:device an allocation another process exported, or hands back this process's live mapping of
// it. The pointer is the allocation's base; the adapter's ipc_close runs when its last copy is released.
// The caller keeps ownership of handle.fd.
std::shared_ptr<void> ipc_open(int device, const hal_ipc_handle_t& handle);

}  // namespace hal
