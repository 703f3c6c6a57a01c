#include "cublas_library.h"

#include "cuda_library_search.h"

namespace hal_nvidia {
namespace {

struct Loaded {
  CublasApi api{};
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded result;
  CublasApi& a = result.api;
  std::string tried;
  // Newest first: the 13 matches this adapter's CUDA 13 runtime; 12 is API-compatible for these calls.
  result.ok = open_cuda_library({"libcublas.so.13", "libcublas.so.12"}, "cuBLAS", [&a](void* library) {
    return resolve_symbol(library, "cublasCreate_v2", "cublasCreate", &a.create) &&
           resolve_symbol(library, "cublasDestroy_v2", "cublasDestroy", &a.destroy) &&
           resolve_symbol(library, "cublasSetStream_v2", "cublasSetStream", &a.set_stream) &&
           resolve_symbol(library, "cublasSetWorkspace_v2", "cublasSetWorkspace", &a.set_workspace) &&
           resolve_symbol(library, "cublasGemmStridedBatchedEx", nullptr, &a.gemm_strided_batched_ex) &&
           resolve_symbol(library, "cublasGemmBatchedEx", nullptr, &a.gemm_batched_ex) &&
           resolve_symbol(library, "cublasGetStatusName", nullptr, &a.status_name) &&
           resolve_symbol(library, "cublasGetStatusString", nullptr, &a.status_string);
  }, &tried) != nullptr;
  if (!result.ok) {
    result.why = "cuBLAS was not found, so matrix multiplication on NVIDIA devices takes the slow fallback path. "
                 "Install it (pip install nvidia-cublas, or the CUDA toolkit) or set CUDA_HOME. Tried:" + tried;
  }
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

}  // namespace hal_nvidia
