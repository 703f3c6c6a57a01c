// The SPIR-V adapters' function table (adapter_table.cpp), filled from the adapter's entries (spirv_traits.h's
// `adapter` namespace) and the shared plans' op_supported. What differs between the adapters, the adapter's own
// adapter_table.cpp says here.
#pragma once

#include "torch_hal/adapter.h"

namespace hal_spirv_shell {

// Defined by the adapter's adapter_table.cpp: its name and description, and the entries only it has.
void describe_adapter(hal_adapter_t* table);

}  // namespace hal_spirv_shell
