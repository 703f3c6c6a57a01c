// Making a device current for the calling thread before a runtime call that acts on "the current device".
#pragma once

#include <cstdint>

#include "torch_hal/adapter.h"

namespace hal_nvidia {

// SUCCESS once `device` is this thread's current CUDA device; otherwise the error is recorded.
hal_status_t use_device(int32_t device);

}  // namespace hal_nvidia
