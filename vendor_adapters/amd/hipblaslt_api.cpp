#include "hipblaslt_api.h"

namespace hal_amd {

// Loaded on first call; never closed (handles and descriptors made from it live until the process ends).
const HipblasLtApi* hipblaslt(std::string* why) {
  static const hal_support::LoadedLibrary<HipblasLtApi> loaded = hal_support::load_library<HipblasLtApi>(
      {"libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"},
      "no hipBLASLt (libhipblaslt.so not found): install ROCm's hipBLASLt for one-kernel GEMMs with bias",
      "hipBLASLt", "install hipBLASLt from ROCm 6 or newer");
  return loaded.get(why);
}

}  // namespace hal_amd
