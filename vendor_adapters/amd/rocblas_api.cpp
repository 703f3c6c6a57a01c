#include "rocblas_api.h"

namespace hal_amd {

// Loaded on first call; never closed (handles made from it live until the process ends).
const RocblasApi* rocblas(std::string* why) {
  static const hal_support::LoadedLibrary<RocblasApi> loaded = hal_support::load_library<RocblasApi>(
      {"librocblas.so.4", "librocblas.so.3", "librocblas.so.0", "librocblas.so"},
      "no rocBLAS (librocblas.so not found): install ROCm's rocBLAS for native matrix products on AMD GPUs",
      "rocBLAS", "install rocBLAS from ROCm 5.2 or newer");
  return loaded.get(why);
}

}  // namespace hal_amd
