// The adapter's collectives (adapter.h's hal_collectives_t) over NCCL.
#pragma once

#include "torch_hal/adapter.h"

namespace hal_nvidia {

const hal_collectives_t* nccl_collectives();

}  // namespace hal_nvidia
