#include "cublaslt_library.h"

#include "cuda_library_search.h"

namespace hal_nvidia {
namespace {

struct Loaded {
  CublasLtApi api{};
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded result;
  CublasLtApi& a = result.api;
  std::string tried;
  // Newest first, as for cuBLAS: libcublas.so.N loads libcublasLt.so.N, so by soname this finds that copy.
  result.ok = open_cuda_library({"libcublasLt.so.13", "libcublasLt.so.12"}, "cuBLASLt", [&a](void* library) {
    return resolve_symbol(library, "cublasLtCreate", nullptr, &a.create) &&
           resolve_symbol(library, "cublasLtDestroy", nullptr, &a.destroy) &&
           resolve_symbol(library, "cublasLtMatmulDescCreate", nullptr, &a.matmul_desc_create) &&
           resolve_symbol(library, "cublasLtMatmulDescDestroy", nullptr, &a.matmul_desc_destroy) &&
           resolve_symbol(library, "cublasLtMatmulDescSetAttribute", nullptr, &a.matmul_desc_set_attribute) &&
           resolve_symbol(library, "cublasLtMatrixLayoutCreate", nullptr, &a.matrix_layout_create) &&
           resolve_symbol(library, "cublasLtMatrixLayoutDestroy", nullptr, &a.matrix_layout_destroy) &&
           resolve_symbol(library, "cublasLtMatmulPreferenceCreate", nullptr, &a.matmul_preference_create) &&
           resolve_symbol(library, "cublasLtMatmulPreferenceDestroy", nullptr, &a.matmul_preference_destroy) &&
           resolve_symbol(library, "cublasLtMatmulPreferenceSetAttribute", nullptr,
                          &a.matmul_preference_set_attribute) &&
           resolve_symbol(library, "cublasLtMatmulAlgoGetHeuristic", nullptr, &a.matmul_algo_get_heuristic) &&
           resolve_symbol(library, "cublasLtMatmul", nullptr, &a.matmul) &&
           resolve_symbol(library, "cublasLtGetStatusName", nullptr, &a.status_name) &&
           resolve_symbol(library, "cublasLtGetStatusString", nullptr, &a.status_string);
  }, &tried) != nullptr;
  if (!result.ok) {
    result.why = "cuBLASLt was not found, so a GEMM with a bias takes two kernels (the bias copied into the "
                 "output, then cuBLAS). Tried:" + tried;
  }
  return result;
}

}  // namespace

const CublasLtApi* cublas_lt(std::string* why) {
  // Searched once; the library is never unloaded (handles made from it may live until the process ends).
  static const Loaded loaded = load();
  if (loaded.ok) return &loaded.api;
  if (why) *why = loaded.why;
  return nullptr;
}

}  // namespace hal_nvidia
