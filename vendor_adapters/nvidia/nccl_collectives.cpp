// The NVIDIA adapter's collectives: NCCL (libnccl.so.2) through the implementation shared with the AMD
// adapter's RCCL (nccl_family.h); this file says how NCCL is found and how CUDA streams and devices are named.
#include "nccl_collectives.h"

#include <string>

#include "../nccl_family/nccl_family.h"
#include "adapter_state.h"
#include "cuda_library_search.h"
#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {
namespace {

struct NcclPlatform {
  using Stream = cudaStream_t;
  static constexpr const char* kName = "NCCL";

  // The libnccl.so.2 already in the process (PyTorch's, from the nvidia-nccl wheel) is found by its name,
  // as is the system's; then the CUDA toolkit's folders.
  static void* open_library(std::string* why) {
    std::string tried;
    void* library = open_cuda_library(
        {"libnccl.so.2"}, "NCCL", [](void* l) { return dlsym(l, "ncclGetVersion") != nullptr; },
        &tried);
    if (!library) {
      *why = "NCCL (libnccl.so.2) was not found: install it (pip install nvidia-nccl-cu12 or -cu13, or the "
             "libnccl2 package) and put its folder in LD_LIBRARY_PATH. Tried: " + tried;
    }
    return library;
  }
  static hal_status_t use_device(int32_t device) { return hal_nvidia::use_device(device); }
  static hal_status_t stream_of(int32_t device, hal_stream_t stream, Stream* out) {
    return resolve_stream(device, stream, out);
  }
  static hal_status_t fail(hal_status_t status, const std::string& message) {
    return hal_nvidia::fail(status, message);
  }
  template <class F>
  static hal_status_t guarded(F&& body) noexcept {
    return hal_nvidia::guarded("NVIDIA adapter (NCCL)", std::forward<F>(body));
  }
};

}  // namespace

const hal_collectives_t* nccl_collectives() { return hal_nccl_family::Collectives<NcclPlatform>::table(); }

}  // namespace hal_nvidia
