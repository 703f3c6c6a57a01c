#include "cublas_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace hal_nvidia {
namespace {

// Newest first: the 13 matches this adapter's CUDA 13 runtime; 12 is API-compatible for these calls.
const char* const kSonames[] = {"libcublas.so.13", "libcublas.so.12"};

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  // By soname first: this also finds a cuBLAS that the process already loaded (PyTorch's wheel loads
  // its own from site-packages/nvidia/...), so both share one copy.
  for (const char* soname : kSonames) paths.emplace_back(soname);
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64"};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  for (const std::string& dir : dirs) {
    for (const char* soname : kSonames) paths.push_back(dir + "/" + soname);
  }
  return paths;
}

template <typename Fn>
bool resolve(void* library, const char* name, const char* fallback_name, Fn* out) {
  void* symbol = dlsym(library, name);
  if (!symbol && fallback_name) symbol = dlsym(library, fallback_name);
  *out = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

struct Loaded {
  CublasApi api{};
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded result;
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    // RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace of the process.
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* reason = dlerror();
      tried += "\n  " + path + ": " + (reason ? reason : "cannot be loaded");
      continue;
    }
    CublasApi& a = result.api;
    const bool complete =
        resolve(library, "cublasCreate_v2", "cublasCreate", &a.create) &&
        resolve(library, "cublasDestroy_v2", "cublasDestroy", &a.destroy) &&
        resolve(library, "cublasSetStream_v2", "cublasSetStream", &a.set_stream) &&
        resolve(library, "cublasSetWorkspace_v2", "cublasSetWorkspace", &a.set_workspace) &&
        resolve(library, "cublasGemmStridedBatchedEx", nullptr, &a.gemm_strided_batched_ex) &&
        resolve(library, "cublasGetStatusName", nullptr, &a.status_name) &&
        resolve(library, "cublasGetStatusString", nullptr, &a.status_string);
    if (complete) {
      result.ok = true;  // the library stays loaded for the life of the process
      return result;
    }
    tried += "\n  " + path + ": lacks a cuBLAS entry point the adapter needs (cuBLAS 12 or newer)";
    dlclose(library);
  }
  result.why = "cuBLAS was not found, so matrix multiplication on NVIDIA devices takes the slow fallback path. "
               "Install it (pip install nvidia-cublas, or the CUDA toolkit) or set CUDA_HOME. Tried:" + tried;
  return result;
}

}  // namespace

const CublasApi* cublas(std::string* why) {
  // Searched once; the library is never unloaded (handles made from it may live until the process ends).
  static const Loaded loaded = load();
  if (loaded.ok) return &loaded.api;
  if (why) *why = loaded.why;
  return nullptr;
}

std::string cublas_error(const CublasApi& api, const char* what, int status) {
  return std::string(what) + ": " + api.status_name(status) + ": " + api.status_string(status);
}

}  // namespace hal_nvidia
