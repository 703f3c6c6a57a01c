#include "adapter_state.h"

namespace example_asic {

std::unique_ptr<State> g_state;
thread_local std::string t_last_error;

hal_status_t fail(hal_status_t status, std::string message) {
  t_last_error = "example_asic: " + std::move(message);
  return status;
}

}  // namespace example_asic
