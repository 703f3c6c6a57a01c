#include "level_zero_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "library_file_check.h"

namespace hal_level_zero {
namespace {

struct Loaded {
  LevelZeroApi api{};
  std::string why;  // empty when every required entry point was found
};

template <typename F>
void resolve(void* library, const char* name, F* slot, std::string* missing) {
  *slot = reinterpret_cast<F>(dlsym(library, name));
  if (*slot == nullptr && missing != nullptr && missing->empty()) *missing = name;
}

Loaded load() {
  Loaded out;
  const char* configured = std::getenv("TORCH_HAL_LEVEL_ZERO_LIBRARY");
  const std::string name = configured != nullptr && *configured != '\0' ? configured : "libze_loader.so.1";
  if (const std::string problem = hal_library_check::configured_library_problem(name); !problem.empty()) {
    out.why = "no Level Zero loader: " + name + " (TORCH_HAL_LEVEL_ZERO_LIBRARY) " + problem +
              ". Point TORCH_HAL_LEVEL_ZERO_LIBRARY at a complete libze_loader.so.1, or unset it";
    return out;
  }
  // RTLD_LOCAL: the loader's drivers and their dependencies stay out of the process's global symbol scope.
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    out.why = "no Level Zero loader: dlopen(\"" + name + "\") failed (" + (error ? error : "unknown error") +
              "). Install the Level Zero loader (Debian and Ubuntu: libze1) and Intel's GPU driver, or point "
              "TORCH_HAL_LEVEL_ZERO_LIBRARY at a libze_loader.so.1";
    return out;
  }
  std::string missing;
  LevelZeroApi& a = out.api;
#define HAL_ZE_RESOLVE_REQUIRED(entry) resolve(library, #entry, &a.entry, &missing);
#define HAL_ZE_RESOLVE_OPTIONAL(entry) resolve(library, #entry, &a.entry, nullptr);
  HAL_ZE_REQUIRED_ENTRY_POINTS(HAL_ZE_RESOLVE_REQUIRED)
  HAL_ZE_OPTIONAL_ENTRY_POINTS(HAL_ZE_RESOLVE_OPTIONAL)
#undef HAL_ZE_RESOLVE_REQUIRED
#undef HAL_ZE_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    out.why = name + " has no " + missing + ": it is not a Level Zero loader (libze_loader.so.1 of Level Zero 1.0 "
              "or later, Debian and Ubuntu: libze1)";
    dlclose(library);
  }
  return out;
}

}  // namespace

const LevelZeroApi* level_zero_api(std::string* why) {
  // Loaded once and kept for the life of the process: unloading a driver with live threads crashes at exit.
  static const Loaded loaded = load();
  if (!loaded.why.empty()) {
    *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

std::string ze_result_name(ze_result_t code) {
  const char* name = nullptr;
  switch (code) {
    case ZE_RESULT_SUCCESS: name = "ZE_RESULT_SUCCESS"; break;
    case ZE_RESULT_NOT_READY: name = "ZE_RESULT_NOT_READY"; break;
    case ZE_RESULT_ERROR_DEVICE_LOST: name = "ZE_RESULT_ERROR_DEVICE_LOST"; break;
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: name = "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"; break;
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: name = "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"; break;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE: name = "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"; break;
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE: name = "ZE_RESULT_ERROR_MODULE_LINK_FAILURE"; break;
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS: name = "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS"; break;
    case ZE_RESULT_ERROR_NOT_AVAILABLE: name = "ZE_RESULT_ERROR_NOT_AVAILABLE"; break;
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE: name = "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE"; break;
    case ZE_RESULT_ERROR_UNINITIALIZED: name = "ZE_RESULT_ERROR_UNINITIALIZED"; break;
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION: name = "ZE_RESULT_ERROR_UNSUPPORTED_VERSION"; break;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: name = "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"; break;
    case ZE_RESULT_ERROR_INVALID_ARGUMENT: name = "ZE_RESULT_ERROR_INVALID_ARGUMENT"; break;
    case ZE_RESULT_ERROR_INVALID_NULL_HANDLE: name = "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"; break;
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER: name = "ZE_RESULT_ERROR_INVALID_NULL_POINTER"; break;
    case ZE_RESULT_ERROR_INVALID_SIZE: name = "ZE_RESULT_ERROR_INVALID_SIZE"; break;
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE: name = "ZE_RESULT_ERROR_UNSUPPORTED_SIZE"; break;
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: name = "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT"; break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME: name = "ZE_RESULT_ERROR_INVALID_KERNEL_NAME"; break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX: name = "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX"; break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE: name = "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"; break;
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION: name = "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION"; break;
    case ZE_RESULT_ERROR_UNKNOWN: name = "ZE_RESULT_ERROR_UNKNOWN"; break;
    default: break;
  }
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", static_cast<unsigned>(code));
  return name != nullptr ? std::string(name) + " (" + hex + ")" : std::string("Level Zero error ") + hex;
}

hal_status_t hal_status_of(ze_result_t code) {
  switch (code) {
    case ZE_RESULT_SUCCESS: return HAL_STATUS_SUCCESS;
    case ZE_RESULT_NOT_READY: return HAL_STATUS_NOT_READY;
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return HAL_STATUS_OUT_OF_HOST_MEMORY;
    // A size beyond the device's largest allocation cannot be served either: the core reports it as device
    // memory the request cannot get, with the numbers.
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE: return HAL_STATUS_OUT_OF_DEVICE_MEMORY;
    default: return HAL_STATUS_DEVICE_ERROR;
  }
}

hal_status_t failed(const std::string& call, ze_result_t code, std::string* error) {
  *error = call + " failed: " + ze_result_name(code);
  return hal_status_of(code);
}

}  // namespace hal_level_zero
