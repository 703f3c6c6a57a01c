#include "runtime/hal_context.h"

#include <map>

#include "hal/environment.h"

namespace torch_hal {
namespace {

std::string& lib_dir() {
  static std::string dir;
  return dir;
}

thread_local c10::DeviceIndex tls_current_device = 0;

// Function-local: checks register during static initialization, in any order of translation units.
std::multimap<int, void (*)()>& import_checks() {
  static std::multimap<int, void (*)()> checks;
  return checks;
}

}  // namespace

void register_import_check(int order, void (*check)()) { import_checks().emplace(order, check); }

void initialize(const std::string& package_lib_dir) {
  // A bad setting raises here, at import, rather than at the first allocation or copy.
  call_core([] {
    hal::validate_environment();
    for (const auto& [order, check] : import_checks()) check();
  });
  lib_dir() = package_lib_dir;
  call_core([&] { return &hal::DeviceRegistry::instance(package_lib_dir); });
}

hal::DeviceRegistry& registry() {
  return *call_core([] { return &hal::DeviceRegistry::instance(lib_dir()); });
}

int device_count() { return registry().device_count(); }

const hal::Device& device(c10::DeviceIndex index) {
  return call_core([&]() -> const hal::Device& { return registry().device(index); });
}

c10::DeviceIndex checked_device_index(int index) {
  call_core([&] { registry().device(index); });  // throws naming the devices that exist
  return static_cast<c10::DeviceIndex>(index);
}

c10::DeviceIndex current_device() { return tls_current_device; }

void set_current_device(c10::DeviceIndex index) {
  device(index);  // throws with the list of valid devices
  tls_current_device = index;
}

void rethrow_as_c10(const hal::Error& error) {
  const std::string msg = error.what();
  switch (error.code()) {
    case hal::ErrorCode::OutOfDeviceMemory:
      TORCH_CHECK_WITH(OutOfMemoryError, false, msg);
    case hal::ErrorCode::InvalidArgument:
      // Device indices are the common case; PyTorch reports those as IndexError-like "invalid device".
      TORCH_CHECK_INDEX(false, msg);
    case hal::ErrorCode::NotSupported:
      TORCH_CHECK_NOT_IMPLEMENTED(false, msg);
    case hal::ErrorCode::AdapterLoad:
    case hal::ErrorCode::Unavailable:
    case hal::ErrorCode::BadConfig:
      TORCH_CHECK_VALUE(false, msg);
    default:
      TORCH_CHECK(false, msg);
  }
}

}  // namespace torch_hal
