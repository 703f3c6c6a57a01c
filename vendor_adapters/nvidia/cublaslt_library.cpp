#include "cublaslt_library.h"

#include "cuda_library_search.h"

namespace hal_nvidia {

const CublasLtApi* cublas_lt(std::string* why) {
  // Searched once, newest first as for cuBLAS: libcublas.so.N loads libcublasLt.so.N, so by soname this finds
  // that copy. Never unloaded (handles made from it may live until the process ends).
  static const hal_support::LoadedLibrary<CublasLtApi> loaded = load_cuda_library<CublasLtApi>(
      {"libcublasLt.so.13", "libcublasLt.so.12"}, "cuBLASLt",
      "cuBLASLt was not found, so a GEMM with a bias takes two kernels (the bias copied into the output, then "
      "cuBLAS). Tried:");
  return loaded.get(why);
}

}  // namespace hal_nvidia
