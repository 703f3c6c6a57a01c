#include "hal/ipc.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "hal/caching_allocator.h"
#include "hal/device_registry.h"
#include "hal/error.h"
#include "hal/fork_guard.h"

namespace hal {
namespace {

const Device& ipc_device(int device) {
  check_fork_safety();
  const Device& d = DeviceRegistry::instance().device(device);
  if (!ipc_supported(device)) {
    throw Error(ErrorCode::NotSupported, "hal:" + std::to_string(device) + " (" + d.adapter->name() +
                                             " adapter) cannot share memory with other processes: the adapter "
                                             "has no ipc_export/ipc_open/ipc_close (adapter ABI 1.4)");
  }
  return d;
}

// This process's mappings of other processes' allocations, by device and handle bytes. A recursive mutex:
// the last release of a mapping (its deleter, which takes the lock) may happen on a thread inside open.
std::recursive_mutex g_mutex;
std::map<std::pair<int, std::string>, std::weak_ptr<void>>& mappings() {
  static auto* m = new std::map<std::pair<int, std::string>, std::weak_ptr<void>>();  // leaked: used at exit
  return *m;
}

std::string key_bytes(const hal_ipc_handle_t& handle) {
  const uint32_t n = handle.num_bytes < HAL_IPC_HANDLE_BYTES ? handle.num_bytes : HAL_IPC_HANDLE_BYTES;
  return std::string(reinterpret_cast<const char*>(handle.bytes), n);
}

}  // namespace

bool ipc_supported(int device) {
  const hal_adapter_t* t = &DeviceRegistry::instance().device(device).table();
  return HAL_ADAPTER_HAS(t, ipc_export) && HAL_ADAPTER_HAS(t, ipc_open) && HAL_ADAPTER_HAS(t, ipc_close);
}

IpcExport ipc_export(int device, const void* ptr) {
  const Device& d = ipc_device(device);
  Segment segment;
  if (!segment_containing(ptr, &segment) || segment.device != device) {
    throw Error(ErrorCode::InvalidArgument, "hal:" + std::to_string(device) +
                                                ": only memory of torch_hal's caching allocator can be shared "
                                                "with another process (not memory mapped from one)");
  }
  IpcExport out;
  out.handle.struct_size = sizeof(out.handle);
  out.handle.fd = -1;
  const hal_status_t st = d.table().ipc_export(d.local_index, segment.base, &out.handle);
  if (st == HAL_STATUS_NOT_SUPPORTED) {
    const char* why = d.table().get_last_error();
    throw Error(ErrorCode::NotSupported, "hal:" + std::to_string(device) + " cannot share this memory" +
                                             (why && *why ? std::string(": ") + why : std::string()));
  }
  throw_on_failure(d.table(), st, "ipc_export");
  out.handle.allocation_size = segment.size;
  out.offset = static_cast<uint64_t>(static_cast<const char*>(ptr) - static_cast<const char*>(segment.base));
  return out;
}

std::shared_ptr<void> ipc_open(int device, const hal_ipc_handle_t& handle) {
  const Device& d = ipc_device(device);
  if (handle.num_bytes == 0 || handle.num_bytes > HAL_IPC_HANDLE_BYTES) {
    throw Error(ErrorCode::InvalidArgument, "ipc_open: a handle of " + std::to_string(handle.num_bytes) +
                                                " bytes (at most " + std::to_string(HAL_IPC_HANDLE_BYTES) + ")");
  }
  auto key = std::make_pair(device, key_bytes(handle));
  std::lock_guard<std::recursive_mutex> lock(g_mutex);
  if (auto it = mappings().find(key); it != mappings().end()) {
    if (std::shared_ptr<void> live = it->second.lock()) return live;
  }
  void* base = nullptr;
  throw_on_failure(d.table(), d.table().ipc_open(d.local_index, &handle, &base), "ipc_open");
  const hal_adapter_t* table = &d.table();
  const int32_t local = d.local_index;
  std::shared_ptr<void> mapping(base, [table, local, key](void* p) {
    std::lock_guard<std::recursive_mutex> lock(g_mutex);
    // Closed under the lock: an open of the same handle meanwhile must not find the mapping half gone.
    // A deleter cannot throw: a failing close only leaves the mapping in place.
    table->ipc_close(local, p);
    auto it = mappings().find(key);
    if (it != mappings().end() && it->second.expired()) mappings().erase(it);
  });
  mappings()[key] = mapping;
  return mapping;
}

}  // namespace hal
