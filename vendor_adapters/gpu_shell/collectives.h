// The GPU adapters' collectives (adapter.h's hal_collectives_t, ABI 1.3) over a library of NCCL's API: NCCL for
// the NVIDIA adapter, RCCL for the AMD adapter (collectives.cpp, over their runtime_traits.h).
#pragma once

#include "torch_hal/adapter.h"

namespace hal_gpu_shell {

// The table, loading the library (runtime_traits.h's CollectiveLibrary) at its first use.
const hal_collectives_t* collectives();

}  // namespace hal_gpu_shell
