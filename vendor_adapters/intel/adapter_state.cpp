#include "adapter_state.h"

#include <string>
#include <vector>

namespace hal_level_zero {

State* g_state = nullptr;

hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, "intel: " + std::move(message));
}

hal_status_t reported(hal_status_t status, const std::string& error) {
  if (status == HAL_STATUS_SUCCESS || status == HAL_STATUS_NOT_READY) return status;
  return fail(status, error);
}

hal_status_t synchronize_all(Device& d) {
  std::vector<Stream*> streams{d.default_stream.get()};
  for (hal_stream_t s : d.records.streams()) streams.push_back(&s->stream);
  std::string error;
  for (Stream* s : streams) {
    if (hal_status_t st = s->synchronize(&error)) return fail(st, error);
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_level_zero
