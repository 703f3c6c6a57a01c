// The AMD adapter's collectives: RCCL (librccl.so.1, NCCL's API over HIP streams) through the implementation
// shared with the NVIDIA adapter's NCCL (nccl_family.h); this file says how RCCL is found and how HIP streams
// and devices are named.
#include "rccl_collectives.h"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "../nccl_family/nccl_family.h"
#include "adapter_context.h"
#include "hip_api.h"

namespace hal_amd {
namespace {

struct RcclPlatform {
  using Stream = hipStream_t;
  static constexpr const char* kName = "RCCL";

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
  static hal_status_t use_device(int32_t device) { return hal_amd::use_device(device); }
  static hal_status_t stream_of(int32_t, hal_stream_t stream, Stream* out) {
    *out = reinterpret_cast<hipStream_t>(stream);  // NULL: the device's default stream, as HIP's own
    return HAL_STATUS_SUCCESS;
  }
  static hal_status_t fail(hal_status_t status, const std::string& message) { return hal_amd::fail(status, message); }
  template <class F>
  static hal_status_t guarded(F&& body) noexcept {
    try {
      return body();
    } catch (const std::exception& e) {
      return hal_amd::fail(HAL_STATUS_INTERNAL_ERROR, std::string("AMD adapter (RCCL): ") + e.what());
    } catch (...) {
      return hal_amd::fail(HAL_STATUS_INTERNAL_ERROR, "AMD adapter (RCCL): unknown exception");
    }
  }
};

}  // namespace

const hal_collectives_t* rccl_collectives() { return hal_nccl_family::Collectives<RcclPlatform>::table(); }

}  // namespace hal_amd
