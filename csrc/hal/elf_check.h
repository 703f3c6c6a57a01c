// Checks that a file is a complete shared library for this process before dlopen sees it. dlopen maps a
// library's segments straight from the file; where a truncated file ends before a segment does, the loader
// touches pages past the end of the file and the process dies of SIGBUS instead of getting an error (a
// half-copied or interrupted download of an adapter is enough). Reading the ELF headers first turns that
// into a reason that names the file and the fix.
#pragma once

#include <string>

namespace hal {

// Empty when `path` looks loadable: an ELF shared object of this process's class, byte order and machine
// whose program headers, segments and section headers all lie inside the file. Otherwise why not, as a
// phrase that follows the path, e.g. "is truncated: ...". dlopen still decides everything else.
std::string elf_load_problem(const std::string& path);

}  // namespace hal
