// Finding one of NVIDIA's math libraries (cuBLAS, cuBLASLt) at run time with dlopen, the same way for each:
// the adapter builds without their headers and loads on machines without them (the ops that need them then
// answer NOT_SUPPORTED and the core falls back).
#pragma once

#include <dlfcn.h>

#include <functional>
#include <string>
#include <vector>

namespace hal_nvidia {

// Tries each soname (newest first) by name, then in the CUDA toolkit's lib64 folders, and returns the
// first library for which `resolve` finds every entry point the adapter needs; it stays loaded for the life
// of the process (handles made from it may live until the process ends). Otherwise returns nullptr and
// appends one line per attempt to `tried`; `what` names the library in those lines ("cuBLAS").
void* open_cuda_library(const std::vector<const char*>& sonames, const char* what,
                        const std::function<bool(void* library)>& resolve, std::string* tried);

// Looks up `name` (or `fallback_name` when given and `name` is absent) in `library` as a function of type Fn.
template <typename Fn>
bool resolve_symbol(void* library, const char* name, const char* fallback_name, Fn* out) {
  void* symbol = dlsym(library, name);
  if (!symbol && fallback_name) symbol = dlsym(library, fallback_name);
  *out = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

}  // namespace hal_nvidia
