// The Intel adapter as the SPIR-V shell (../spirv_shell) sees it: `adapter` names the namespace where the shell
// defines its share of the table's entries and finds the rest, the state (g_state, dev(), a Device's records,
// kernels and info.memory_bytes), fail() and guarded(), stream_of(), and the hooks open_state(), close_state(),
// release_device_memory() and release_stream(). The OpenCL adapter's spirv_traits.h names its own.
#pragma once

#include "adapter_state.h"
#include "memory.h"
#include "streams_events.h"

namespace hal_spirv_shell {
namespace adapter = hal_level_zero;
}  // namespace hal_spirv_shell
