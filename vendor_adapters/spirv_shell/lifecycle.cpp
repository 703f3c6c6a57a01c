// The SPIR-V adapters' lifecycle and device counting, written in the adapter's namespace (spirv_traits.h):
// initialize() and shutdown() are counted, so that the state (the adapter's open_state() and close_state())
// lives from the first initialize() to the last shutdown().
#include <mutex>
#include <string>

#include "spirv_traits.h"

namespace {

std::mutex g_lifecycle_mutex;
int g_initializations = 0;

}  // namespace

hal_status_t hal_spirv_shell::adapter::initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations > 0) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  const hal_status_t st = guarded("initialize", [] { return open_state(); });
  if (st == HAL_STATUS_SUCCESS) g_initializations = 1;
  return st;
}

void hal_spirv_shell::adapter::shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  close_state();
}

const char* hal_spirv_shell::adapter::get_last_error() { return hal_abi_boundary::thread_error().c_str(); }

hal_status_t hal_spirv_shell::adapter::device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

// Neither runtime has a query of free memory that works everywhere (Level Zero's needs Sysman, enabled only by
// ZES_ENABLE_SYSMAN=1 before zeInit; OpenCL has none): what is not allocated through the adapter counts as free.
hal_status_t hal_spirv_shell::adapter::get_memory_info(int32_t device, uint64_t* free_bytes, uint64_t* total_bytes) {
  const Device& d = dev(device);
  *total_bytes = d.info.memory_bytes;
  *free_bytes = d.records.free_of(*total_bytes);
  return HAL_STATUS_SUCCESS;
}
