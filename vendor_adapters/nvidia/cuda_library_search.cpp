#include "cuda_library_search.h"

#include <cstdlib>

namespace hal_nvidia {
namespace {

std::vector<std::string> candidate_paths(const std::vector<const char*>& sonames) {
  std::vector<std::string> paths;
  // By soname first: this also finds a copy the process already loaded (PyTorch's wheel loads its own from
  // site-packages/nvidia/..., and libcublas loads its libcublasLt), so both share one copy.
  for (const char* soname : sonames) paths.emplace_back(soname);
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64"};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  for (const std::string& dir : dirs) {
    for (const char* soname : sonames) paths.push_back(dir + "/" + soname);
  }
  return paths;
}

}  // namespace

void* open_cuda_library(const std::vector<const char*>& sonames, const char* what,
                        const std::function<bool(void* library)>& resolve, std::string* tried) {
  for (const std::string& path : candidate_paths(sonames)) {
    // RTLD_LOCAL: the library's symbols stay out of the global namespace of the process.
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* reason = dlerror();
      *tried += "\n  " + path + ": " + (reason ? reason : "cannot be loaded");
      continue;
    }
    if (resolve(library)) return library;
    *tried += "\n  " + path + ": lacks a " + what + " entry point the adapter needs (version 12 or newer)";
    dlclose(library);
  }
  return nullptr;
}

}  // namespace hal_nvidia
