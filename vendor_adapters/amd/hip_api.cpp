#include "hip_api.h"

#include "../adapter_support/loaded_library.h"

namespace hal_amd {

// Loaded on first call, newest ROCm first; never closed (kernels and memory of it may be in use until exit).
const HipApi* hip_api(std::string* why) {
  static const hal_support::LoadedLibrary<HipApi> loaded = hal_support::load_library<HipApi>(
      {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"},
      "no ROCm runtime (libamdhip64.so.7, libamdhip64.so.6, libamdhip64.so.5, libamdhip64.so not found): install "
      "ROCm (the HIP runtime, libamdhip64) to use AMD GPUs",
      "HIP runtime", "install ROCm 5.2 or newer");
  return loaded.get(why);
}

std::string hip_error_text(hipError_t error) {
  const HipApi* api = hip_api(nullptr);
  if (!api) return "HIP error " + std::to_string(error);
  const char* name = api->GetErrorName(error);
  const char* text = api->GetErrorString(error);
  const std::string n = name ? name : "hipError " + std::to_string(error);
  return (text && n != text) ? n + ": " + text : n;  // HIP 5 describes some errors by their name alone
}

}  // namespace hal_amd
