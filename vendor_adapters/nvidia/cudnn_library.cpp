#include "cudnn_library.h"

#include <cstdlib>

#include "cuda_library_search.h"

namespace hal_nvidia {

const CudnnApi* cudnn(std::string* why) {
  // By soname first: a CUDA build of PyTorch has already loaded the nvidia-cudnn wheel's copy
  // (site-packages/nvidia/cudnn/lib), which this then shares. TORCH_HAL_CUDNN_LIBRARY names a file. Searched
  // once; never unloaded (handles made from it may live until the process ends).
  static const hal_support::LoadedLibrary<CudnnApi> loaded = [] {
    std::vector<const char*> names;
    const char* chosen = std::getenv("TORCH_HAL_CUDNN_LIBRARY");
    if (chosen && *chosen) names.push_back(chosen);
    names.push_back("libcudnn.so.9");
    return load_cuda_library<CudnnApi>(
        names, "cuDNN",
        "cuDNN 9 was not found, so convolutions on NVIDIA devices take the slow fallback path. Install it (pip "
        "install nvidia-cudnn-cu12 or -cu13; a CUDA build of PyTorch brings it) or set TORCH_HAL_CUDNN_LIBRARY to "
        "the path of libcudnn.so.9. Tried:",
        // The 9.x legacy API declared in cudnn_library.h.
        [](const CudnnApi& api) { return api.get_version() >= 90000; });
  }();
  return loaded.get(why);
}

}  // namespace hal_nvidia
