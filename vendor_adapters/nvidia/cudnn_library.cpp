#include "cudnn_library.h"

#include <cstdlib>

#include "cuda_library_search.h"

namespace hal_nvidia {
namespace {

struct Loaded {
  CudnnApi api{};
  bool ok = false;
  std::string why;
};

bool resolve_all(void* library, CudnnApi& a) {
  return resolve_symbol(library, "cudnnGetVersion", nullptr, &a.get_version) &&
         resolve_symbol(library, "cudnnGetErrorString", nullptr, &a.error_string) &&
         resolve_symbol(library, "cudnnCreate", nullptr, &a.create) &&
         resolve_symbol(library, "cudnnDestroy", nullptr, &a.destroy) &&
         resolve_symbol(library, "cudnnSetStream", nullptr, &a.set_stream) &&
         resolve_symbol(library, "cudnnCreateTensorDescriptor", nullptr, &a.create_tensor) &&
         resolve_symbol(library, "cudnnDestroyTensorDescriptor", nullptr, &a.destroy_tensor) &&
         resolve_symbol(library, "cudnnSetTensorNdDescriptor", nullptr, &a.set_tensor_nd) &&
         resolve_symbol(library, "cudnnCreateFilterDescriptor", nullptr, &a.create_filter) &&
         resolve_symbol(library, "cudnnDestroyFilterDescriptor", nullptr, &a.destroy_filter) &&
         resolve_symbol(library, "cudnnSetFilterNdDescriptor", nullptr, &a.set_filter_nd) &&
         resolve_symbol(library, "cudnnCreateConvolutionDescriptor", nullptr, &a.create_conv) &&
         resolve_symbol(library, "cudnnDestroyConvolutionDescriptor", nullptr, &a.destroy_conv) &&
         resolve_symbol(library, "cudnnSetConvolutionNdDescriptor", nullptr, &a.set_conv_nd) &&
         resolve_symbol(library, "cudnnSetConvolutionGroupCount", nullptr, &a.set_conv_groups) &&
         resolve_symbol(library, "cudnnSetConvolutionMathType", nullptr, &a.set_conv_math) &&
         resolve_symbol(library, "cudnnGetConvolutionForwardAlgorithm_v7", nullptr, &a.forward_algorithms) &&
         resolve_symbol(library, "cudnnGetConvolutionBackwardDataAlgorithm_v7", nullptr,
                        &a.backward_data_algorithms) &&
         resolve_symbol(library, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", nullptr,
                        &a.backward_filter_algorithms) &&
         resolve_symbol(library, "cudnnGetConvolutionForwardWorkspaceSize", nullptr, &a.forward_workspace) &&
         resolve_symbol(library, "cudnnGetConvolutionBackwardDataWorkspaceSize", nullptr,
                        &a.backward_data_workspace) &&
         resolve_symbol(library, "cudnnGetConvolutionBackwardFilterWorkspaceSize", nullptr,
                        &a.backward_filter_workspace) &&
         resolve_symbol(library, "cudnnConvolutionForward", nullptr, &a.forward) &&
         resolve_symbol(library, "cudnnConvolutionBackwardData", nullptr, &a.backward_data) &&
         resolve_symbol(library, "cudnnConvolutionBackwardFilter", nullptr, &a.backward_filter) &&
         resolve_symbol(library, "cudnnBackendCreateDescriptor", nullptr, &a.backend_create) &&
         resolve_symbol(library, "cudnnBackendDestroyDescriptor", nullptr, &a.backend_destroy) &&
         resolve_symbol(library, "cudnnBackendFinalize", nullptr, &a.backend_finalize) &&
         resolve_symbol(library, "cudnnBackendSetAttribute", nullptr, &a.backend_set) &&
         resolve_symbol(library, "cudnnBackendGetAttribute", nullptr, &a.backend_get) &&
         resolve_symbol(library, "cudnnBackendExecute", nullptr, &a.backend_execute);
}

Loaded load() {
  Loaded result;
  CudnnApi& a = result.api;
  std::string tried;
  // By soname first: a CUDA build of PyTorch has already loaded the nvidia-cudnn wheel's copy
  // (site-packages/nvidia/cudnn/lib), which this then shares. TORCH_HAL_CUDNN_LIBRARY names a file.
  std::vector<const char*> names;
  const char* chosen = std::getenv("TORCH_HAL_CUDNN_LIBRARY");
  if (chosen && *chosen) names.push_back(chosen);
  names.push_back("libcudnn.so.9");
  result.ok = open_cuda_library(names, "cuDNN", [&a](void* library) {
    if (!resolve_all(library, a)) return false;
    return a.get_version() >= 90000;  // the 9.x legacy API declared in cudnn_library.h
  }, &tried) != nullptr;
  if (!result.ok) {
    result.why = "cuDNN 9 was not found, so convolutions on NVIDIA devices take the slow fallback path. Install "
                 "it (pip install nvidia-cudnn-cu12 or -cu13; a CUDA build of PyTorch brings it) or set "
                 "TORCH_HAL_CUDNN_LIBRARY to the path of libcudnn.so.9. Tried:" + tried;
  }
  return result;
}

}  // namespace

const CudnnApi* cudnn(std::string* why) {
  // Searched once; never unloaded (handles made from it may live until the process ends).
  static const Loaded loaded = load();
  if (loaded.ok) return &loaded.api;
  if (why) *why = loaded.why;
  return nullptr;
}

}  // namespace hal_nvidia
