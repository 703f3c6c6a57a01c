#include "cublas_library.h"

#include "cuda_library_search.h"

namespace hal_nvidia {

const CublasApi* cublas(std::string* why) {
  // Searched once, newest first: the 13 matches this adapter's CUDA 13 runtime; 12 is API-compatible for these
  // calls. Never unloaded (handles made from it may live until the process ends).
  static const hal_support::LoadedLibrary<CublasApi> loaded = load_cuda_library<CublasApi>(
      {"libcublas.so.13", "libcublas.so.12"}, "cuBLAS",
      "cuBLAS was not found, so matrix multiplication on NVIDIA devices takes the slow fallback path. Install it "
      "(pip install nvidia-cublas, or the CUDA toolkit) or set CUDA_HOME. Tried:");
  return loaded.get(why);
}

}  // namespace hal_nvidia
