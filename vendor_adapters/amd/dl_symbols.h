// Resolving the C entry points of a library loaded with dlopen (the HIP runtime, rocBLAS) into a table of
// function pointers, noting the first one missing.
#pragma once

#include <dlfcn.h>

#include <string>

namespace hal_amd {

template <class Fn>
void resolve(void* library, const char* name, Fn& slot, std::string& missing) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  if (!slot && missing.empty()) missing = name;
}

}  // namespace hal_amd
