#include "adapter_table.h"

#include "launch_plan.h"
#include "spirv_traits.h"

namespace {

// The entries the adapter has in its namespace, by abi_entries.h's lists, so that no name is spelled twice.
hal_adapter_t filled_table() {
  hal_adapter_t table{};
#define HAL_SPIRV_SHELL_ENTRY(name) table.name = hal_spirv_shell::adapter::name;
  HAL_ABI_DEVICE_NAMES(HAL_SPIRV_SHELL_ENTRY)
  HAL_ABI_MEMORY_NAMES(HAL_SPIRV_SHELL_ENTRY)
  HAL_ABI_STREAM_EVENT_NAMES(HAL_SPIRV_SHELL_ENTRY)
#undef HAL_SPIRV_SHELL_ENTRY
  table.get_last_error = hal_spirv_shell::adapter::get_last_error;
  table.op_supported = hal_spirv::op_supported;  // what the shared plans take, the same on every device
  table.launch_op = hal_spirv_shell::adapter::launch_op;
  hal_spirv_shell::describe_adapter(&table);
  table.struct_size = sizeof(hal_adapter_t);
  table.abi_version = HAL_ABI_VERSION;
  return table;
}

}  // namespace

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  (void)max_abi_version;  // returned to any core: its abi_version lets a core of another major refuse by name
  static const hal_adapter_t table = filled_table();
  return &table;
}
