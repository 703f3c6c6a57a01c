#include "hipblaslt_api.h"

#include <dlfcn.h>

#include "dl_symbols.h"

namespace hal_amd {
namespace {

struct LoadedHipblasLt {
  HipblasLtApi api{};
  bool ok = false;
  std::string why;
};

// Loaded once and never closed: handles and descriptors made from it live until the process ends.
LoadedHipblasLt load() {
  LoadedHipblasLt out;
  void* library = nullptr;
  for (const char* name : {"libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library) break;
  }
  if (!library) {
    out.why = "no hipBLASLt (libhipblaslt.so not found): install ROCm's hipBLASLt for one-kernel GEMMs with bias";
    return out;
  }
  HipblasLtApi& a = out.api;
  std::string missing;
  resolve(library, "hipblasLtCreate", a.create, missing);
  resolve(library, "hipblasLtDestroy", a.destroy, missing);
  resolve(library, "hipblasLtMatmulDescCreate", a.matmul_desc_create, missing);
  resolve(library, "hipblasLtMatmulDescDestroy", a.matmul_desc_destroy, missing);
  resolve(library, "hipblasLtMatmulDescSetAttribute", a.matmul_desc_set_attribute, missing);
  resolve(library, "hipblasLtMatrixLayoutCreate", a.matrix_layout_create, missing);
  resolve(library, "hipblasLtMatrixLayoutDestroy", a.matrix_layout_destroy, missing);
  resolve(library, "hipblasLtMatmulPreferenceCreate", a.matmul_preference_create, missing);
  resolve(library, "hipblasLtMatmulPreferenceDestroy", a.matmul_preference_destroy, missing);
  resolve(library, "hipblasLtMatmulPreferenceSetAttribute", a.matmul_preference_set_attribute, missing);
  resolve(library, "hipblasLtMatmulAlgoGetHeuristic", a.matmul_algo_get_heuristic, missing);
  resolve(library, "hipblasLtMatmul", a.matmul, missing);
  if (!missing.empty()) {
    out.why = "the hipBLASLt found lacks " + missing + ": install hipBLASLt from ROCm 6 or newer";
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

const HipblasLtApi* hipblaslt(std::string* why) {
  static const LoadedHipblasLt loaded = load();
  if (!loaded.ok && why) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace hal_amd
