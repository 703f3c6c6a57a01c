// Checks that a file is a complete shared library for this process before dlopen sees it: for the core's adapter
// loader and for every adapter that loads a vendor runtime from a path a setting names (compiled into each, so the
// adapters still depend on adapter.h alone). dlopen maps a
// library's segments straight from the file; where a truncated file ends before a segment does, the loader
// touches pages past the end of the file and the process dies of SIGBUS instead of getting an error (a
// half-copied or interrupted download of an adapter is enough). Reading the ELF headers first turns that
// into a reason that names the file and the fix.
#pragma once

#include <string>

namespace hal_library_check {

// Empty when `path` looks loadable: an ELF shared object of this process's class, byte order and machine
// whose program headers, segments and section headers all lie inside the file. Otherwise why not, as a
// phrase that follows the path, e.g. "is truncated: ...". dlopen still decides everything else.
std::string elf_load_problem(const std::string& path);

// The same for a library name a setting gives (TORCH_HAL_OPENCL_LIBRARY, ...): a bare name is searched for by
// dlopen itself and is not checked; a path is. A FIFO or device file there would block dlopen forever, a truncated
// file kill the process with SIGBUS: both must become a reason instead, since `import torch` loads the adapters.
inline std::string configured_library_problem(const std::string& name) {
  return name.find('/') == std::string::npos ? std::string() : elf_load_problem(name);
}

}  // namespace hal_library_check
