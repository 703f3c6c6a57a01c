// Finding one of NVIDIA's math libraries (cuBLAS, cuBLASLt, cuDNN) at run time with dlopen, the same way for each:
// the adapter builds without their headers and loads on machines without them (the ops that need them then
// answer NOT_SUPPORTED and the core falls back).
#pragma once

#include <dlfcn.h>

#include <functional>
#include <string>
#include <vector>

#include "../adapter_support/loaded_library.h"

namespace hal_nvidia {

// Tries each soname (newest first) by name, then in the CUDA toolkit's lib64 folders, and returns the
// first library for which `resolve` finds every entry point the adapter needs; it stays loaded for the life
// of the process (handles made from it may live until the process ends). Otherwise returns nullptr and
// appends one line per attempt to `tried`; `what` names the library in those lines ("cuBLAS").
void* open_cuda_library(const std::vector<const char*>& sonames, const char* what,
                        const std::function<bool(void* library)>& resolve, std::string* tried);

// The library's table (`Api`, an entry-point table: ../adapter_support/loaded_library.h) from the first candidate
// that has every entry point and that `accept` (when given) takes; otherwise `why` is `not_found` followed by
// the attempts.
template <typename Api>
hal_support::LoadedLibrary<Api> load_cuda_library(const std::vector<const char*>& sonames, const char* what,
                                                  const char* not_found, bool (*accept)(const Api&) = nullptr) {
  hal_support::LoadedLibrary<Api> out;
  std::string tried;
  out.ok = open_cuda_library(sonames, what, [&out, accept](void* library) {
    return hal_support::resolve_entry_points(library, out.api, nullptr) && (!accept || accept(out.api));
  }, &tried) != nullptr;
  if (!out.ok) out.why = not_found + tried;
  return out;
}

}  // namespace hal_nvidia
