#include "dispatch/kernel_table.h"

#include "hal/op_names.h"

#include <mutex>

namespace torch_hal::native {
namespace {

std::mutex& table_mutex() {
  static std::mutex mutex;
  return mutex;
}
// Function-local: registrations run during static initialization, in any order of translation units.
std::vector<KernelRecord>& table() {
  static std::vector<KernelRecord> records;
  return records;
}

}  // namespace

const char* route_name(Route route) {
  switch (route) {
    case Route::AdapterFirst: return "adapter_first";
    case Route::Foreach: return "foreach";
    case Route::Composite: return "composite";
    case Route::Runtime: return "runtime";
    case Route::CpuKernel: return "cpu_kernel";
  }
  return "unknown";
}

void record_kernel(std::string name, Route route, const LaunchedOps& ops) {
  std::lock_guard<std::mutex> lock(table_mutex());
  table().push_back(KernelRecord{std::move(name), route, std::vector<hal_op_t>(ops.ids, ops.ids + ops.count)});
}

std::vector<KernelRecord> recorded_kernels() {
  std::lock_guard<std::mutex> lock(table_mutex());
  return table();
}

std::string hal_op_name(hal_op_t op) { return hal::op_id_name(op); }

}  // namespace torch_hal::native
