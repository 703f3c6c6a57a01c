#include "ipc.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"

namespace host_adapter {

hal_status_t ipc_export(int32_t device, void* base, hal_ipc_handle_t* handle) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.allocations.find(base);
  if (it == d.allocations.end()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_export: host device " + std::to_string(device) +
                                                 " did not allocate this pointer");
  }
  const Region& region = *it->second.region;
  if (!region.identity(handle->bytes)) {
    return fail(HAL_STATUS_NOT_SUPPORTED,
                "this block of host device memory was allocated when the process had no file descriptor to spare "
                "(raise the open-files limit, ulimit -n), so it cannot be shared");
  }
  handle->num_bytes = 16;
  handle->fd = region.fd();
  return HAL_STATUS_SUCCESS;
}

hal_status_t ipc_open(int32_t device, const hal_ipc_handle_t* handle, void** base) {
  if (handle->fd < 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_open: host device memory is shared through a file descriptor, "
                                             "and the handle carries none");
  }
  return guarded("ipc_open", [&]() -> hal_status_t {
    std::unique_ptr<Region> region = Region::map_exported(handle->fd, handle->allocation_size);
    if (!region) {
      return fail(HAL_STATUS_DEVICE_ERROR,
                  std::string("ipc_open: cannot map the shared host device memory: ") + std::strerror(errno));
    }
    HostDevice& d = dev(device);
    std::lock_guard<std::mutex> lock(d.mutex);
    *base = region->data();
    d.imported.emplace(*base, std::move(region));
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t ipc_close(int32_t device, void* base) {
  HostDevice& d = dev(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.imported.erase(base) == 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "ipc_close: not a pointer that ipc_open returned on host device " +
                                                 std::to_string(device));
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace host_adapter
