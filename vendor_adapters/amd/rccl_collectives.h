// The AMD adapter's collectives (adapter.h's hal_collectives_t) over RCCL.
#pragma once

#include "torch_hal/adapter.h"

namespace hal_amd {

const hal_collectives_t* rccl_collectives();

}  // namespace hal_amd
