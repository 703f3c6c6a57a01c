#include "rocblas_api.h"

#include <dlfcn.h>

#include "dl_symbols.h"

namespace hal_amd {
namespace {

struct LoadedRocblas {
  RocblasApi api{};
  bool ok = false;
  std::string why;
};

// Loaded once and never closed: handles made from it live until the process ends.
LoadedRocblas load() {
  LoadedRocblas out;
  void* library = nullptr;
  for (const char* name : {"librocblas.so.4", "librocblas.so.3", "librocblas.so.0", "librocblas.so"}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library) break;
  }
  if (!library) {
    out.why = "no rocBLAS (librocblas.so not found): install ROCm's rocBLAS for native matrix products on AMD GPUs";
    return out;
  }
  RocblasApi& a = out.api;
  std::string missing;
  resolve(library, "rocblas_create_handle", a.create_handle, missing);
  resolve(library, "rocblas_destroy_handle", a.destroy_handle, missing);
  resolve(library, "rocblas_set_stream", a.set_stream, missing);
  resolve(library, "rocblas_status_to_string", a.status_to_string, missing);
  resolve(library, "rocblas_gemm_strided_batched_ex", a.gemm_strided_batched_ex, missing);
  if (!missing.empty()) {
    out.why = "the rocBLAS found lacks " + missing + ": install rocBLAS from ROCm 5.2 or newer";
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

const RocblasApi* rocblas(std::string* why) {
  static const LoadedRocblas loaded = load();
  if (!loaded.ok && why) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace hal_amd
