// The NVIDIA adapter as the GPU shell (../gpu_shell: ipc, collectives) sees it: CUDA's names, called directly (the
// runtime is linked statically), for what the shared code asks of "the runtime", and NCCL as the library of the
// collectives. The AMD adapter's runtime_traits.h says the same of HIP (loaded with dlopen) and RCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "adapter_state.h"
#include "cuda_library_search.h"
#include "cuda_status.h"
#include "current_device.h"
#include "torch_hal/adapter.h"

namespace hal_gpu_shell {

struct Runtime {
  static constexpr const char* kName = "CUDA";  // in messages
  using Stream = cudaStream_t;

  static hal_status_t use_device(int32_t device) { return hal_nvidia::use_device(device); }
  static hal_status_t fail(hal_status_t status, const std::string& message) {
    return hal_nvidia::fail(status, message);
  }
  // The CUDA stream of a hal stream; NULL is hal's default stream of `device` (a stream of its own).
  static hal_status_t stream_of(int32_t device, hal_stream_t stream, Stream* out) {
    return hal_nvidia::resolve_stream(device, stream, out);
  }

  // Inter-process memory (ipc.cpp); each call's failure is recorded with the call's name.
  using IpcMemHandle = cudaIpcMemHandle_t;
  static hal_status_t ipc_get_mem_handle(IpcMemHandle* handle, void* base) {
    return hal_nvidia::check(cudaIpcGetMemHandle(handle, base), "cudaIpcGetMemHandle");
  }
  // Lazy peer access: the exporting GPU may be another one than the current device, reached over NVLink or PCIe.
  static hal_status_t ipc_open_mem_handle(void** base, const IpcMemHandle& handle) {
    return hal_nvidia::check(cudaIpcOpenMemHandle(base, handle, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
  }
  static hal_status_t ipc_close_mem_handle(void* base) {
    return hal_nvidia::check(cudaIpcCloseMemHandle(base), "cudaIpcCloseMemHandle");
  }
};

// The collectives' library (collectives.cpp): NCCL, libnccl.so.2.
struct CollectiveLibrary {
  static constexpr const char* kName = "NCCL";
  static constexpr const char* kBoundary = "NVIDIA adapter (NCCL)";  // guarded()'s prefix of exception messages

  // The libnccl.so.2 already in the process (PyTorch's, from the nvidia-nccl wheel) is found by its name,
  // as is the system's; then the CUDA toolkit's folders.
  static void* open_library(std::string* why) {
    std::string tried;
    void* library = hal_nvidia::open_cuda_library(
        {"libnccl.so.2"}, "NCCL", [](void* l) { return dlsym(l, "ncclGetVersion") != nullptr; },
        &tried);
    if (!library) {
      *why = "NCCL (libnccl.so.2) was not found: install it (pip install nvidia-nccl-cu12 or -cu13, or the "
             "libnccl2 package) and put its folder in LD_LIBRARY_PATH. Tried: " + tried;
    }
    return library;
  }
};

}  // namespace hal_gpu_shell
