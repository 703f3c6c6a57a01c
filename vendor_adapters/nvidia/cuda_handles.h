// Owning wrappers for the CUDA runtime handles the adapter creates. Destruction ignores errors: it runs on
// cleanup paths where there is no caller left to tell (and a failed destroy only leaks).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>

namespace hal_nvidia {

struct StreamDeleter {
  void operator()(CUstream_st* s) const noexcept { (void)cudaStreamDestroy(s); }
};
struct EventDeleter {
  void operator()(CUevent_st* e) const noexcept { (void)cudaEventDestroy(e); }
};
struct DeviceMemoryDeleter {
  void operator()(void* p) const noexcept { (void)cudaFree(p); }
};

using CudaStream = std::unique_ptr<CUstream_st, StreamDeleter>;
using CudaEvent = std::unique_ptr<CUevent_st, EventDeleter>;
using DeviceBuffer = std::unique_ptr<void, DeviceMemoryDeleter>;

static_assert(std::is_same_v<CUstream_st*, cudaStream_t> && std::is_same_v<CUevent_st*, cudaEvent_t>);

}  // namespace hal_nvidia
