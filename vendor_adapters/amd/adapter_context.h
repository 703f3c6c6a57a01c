// The AMD adapter's shared state: the loaded HIP runtime, the per-thread error message, and turning HIP
// errors into hal statuses.
#pragma once

#include <string>

#include "hip_api.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

// The runtime, once initialize() succeeded (every entry point but initialize runs after it).
const HipApi& hip();

// Records the message get_last_error() returns on this thread; returns `status`.
hal_status_t fail(hal_status_t status, const std::string& message);
const char* last_error();

// SUCCESS for hipSuccess; otherwise the matching status, with "<what>: hipErrorName: text" recorded.
hal_status_t check(hipError_t error, const std::string& what);

}  // namespace hal_amd
