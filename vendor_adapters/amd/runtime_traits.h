// The AMD adapter as the GPU shell (../gpu_shell: ipc, collectives) sees it: HIP's entry points, loaded with dlopen
// (hip()), for what the shared code asks of "the runtime", and RCCL as the library of the collectives. The NVIDIA
// adapter's runtime_traits.h says the same of CUDA (linked statically) and NCCL.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "adapter_context.h"
#include "hip_api.h"
#include "torch_hal/adapter.h"

namespace hal_gpu_shell {

struct Runtime {
  static constexpr const char* kName = "HIP";  // in messages
  using Stream = hal_amd::hipStream_t;

  static hal_status_t use_device(int32_t device) { return hal_amd::use_device(device); }
  static hal_status_t fail(hal_status_t status, const std::string& message) { return hal_amd::fail(status, message); }
  // A hal stream is the hipStream_t itself (NULL: the device's default stream, as HIP's own).
  static hal_status_t stream_of(int32_t, hal_stream_t stream, Stream* out) {
    *out = reinterpret_cast<hal_amd::hipStream_t>(stream);
    return HAL_STATUS_SUCCESS;
  }

  // Inter-process memory (ipc.cpp); each call's failure is recorded with the call's name.
  using IpcMemHandle = hal_amd::HipIpcMemHandle;
  static hal_status_t ipc_get_mem_handle(IpcMemHandle* handle, void* base) {
    return hal_amd::check(hal_amd::hip().IpcGetMemHandle(handle, base), "hipIpcGetMemHandle");
  }
  static hal_status_t ipc_open_mem_handle(void** base, const IpcMemHandle& handle) {
    return hal_amd::check(hal_amd::hip().IpcOpenMemHandle(base, handle, hal_amd::kIpcMemLazyEnablePeerAccess),
                          "hipIpcOpenMemHandle");
  }
  static hal_status_t ipc_close_mem_handle(void* base) {
    return hal_amd::check(hal_amd::hip().IpcCloseMemHandle(base), "hipIpcCloseMemHandle");
  }
};

// The collectives' library (collectives.cpp): RCCL, librccl.so.1 (NCCL's API over HIP streams).
struct CollectiveLibrary {
  static constexpr const char* kName = "RCCL";
  static constexpr const char* kBoundary = "AMD adapter (RCCL)";  // guarded()'s prefix of exception messages

  // By name first (the one already in the process, e.g. PyTorch's ROCm build's, or on the loader's path),
  // then ROCm's own folder.
  static void* open_library(std::string* why) {
    for (const char* name : {"librccl.so.1", "/opt/rocm/lib/librccl.so.1"}) {
      if (void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return library;
    }
    const char* error = dlerror();
    *why = std::string("RCCL (librccl.so.1) was not found: install ROCm's rccl package, or put its folder in "
                       "LD_LIBRARY_PATH (") + (error ? error : "") + ")";
    return nullptr;
  }
};

}  // namespace hal_gpu_shell
