// The glue's access to the HAL core: the registry, the per-thread current device, and the translation of
// hal::Error into the exception a PyTorch user expects (torch.OutOfMemoryError, IndexError, ...).
#pragma once

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <string>

#include "hal/device_registry.h"
#include "hal/error.h"

namespace torch_hal {

constexpr c10::DeviceType kHal = c10::DeviceType::PrivateUse1;

// Loads every adapter from `package_lib_dir` (first call only) and returns the registry.
hal::DeviceRegistry& registry();
// At import: checks the core's settings (hal::validate_environment) and then runs the import checks below,
// so that a bad setting raises at import rather than at first use; then loads the adapters.
void initialize(const std::string& package_lib_dir);

// The layers above the runtime read their own settings at import through this hook (the runtime knows none
// of them): `check` reads and validates one or more settings, throwing hal::Error (BadConfig) or a c10 error
// for a bad value. Registered at static initialization (ImportCheck below); initialize() runs them in
// increasing `order`, so the first bad setting reported is always the same one.
void register_import_check(int order, void (*check)());

// `static const ImportCheck kCheck(order, &fn);` at namespace scope registers fn.
struct ImportCheck {
  ImportCheck(int order, void (*check)()) { register_import_check(order, check); }
};

int device_count();
// hal:index, with the core's message (which devices exist) when it does not exist.
const hal::Device& device(c10::DeviceIndex index);

// `index` as a c10::DeviceIndex once the registry confirmed that hal:index exists. Python hands ints;
// c10::DeviceIndex is an int8_t, so a bare cast would make hal:256 silently mean hal:0.
c10::DeviceIndex checked_device_index(int index);

c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);  // checked

// Throws the c10 error matching `error` (OutOfMemoryError, IndexError, ValueError, NotImplementedError,
// or plain Error). Python sees torch.OutOfMemoryError, IndexError, ValueError, NotImplementedError,
// RuntimeError.
[[noreturn]] void rethrow_as_c10(const hal::Error& error);

// Runs `fn`, turning hal::Error into the matching c10 error.
template <typename Fn>
decltype(auto) call_core(Fn&& fn) {
  try {
    return fn();
  } catch (const hal::Error& e) {
    rethrow_as_c10(e);
  }
}

}  // namespace torch_hal
