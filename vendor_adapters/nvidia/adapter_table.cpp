// The NVIDIA adapter: hal devices for NVIDIA GPUs over the CUDA runtime (linked statically, so the library
// loads on machines without a driver and says "unavailable" there), with native kernels (kernels/) and
// GEMMs through cuBLAS (loaded at first use). This file is the function table; each part lives in its own
// file: adapter_state.h (what they share), devices (lifecycle, discovery), memory, streams_events, ops (and
// gemm, convolution); ipc and the NCCL collectives are the GPU shell's (../gpu_shell, over runtime_traits.h).
#include "abi_boundary.h"
#include "cuda_status.h"
#include "devices.h"
#include "memory.h"
#include "ops.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"
#include "../gpu_shell/collectives.h"
#include "../gpu_shell/ipc.h"

namespace hal_nvidia {
namespace {

// Every table entry runs behind guarded() (adapter_support/abi_boundary.h): no C++ exception (std::bad_alloc,
// std::system_error from a mutex) may cross the C ABI.
struct Boundary {
  static constexpr const char* kWhat = "NVIDIA adapter";
  static hal_status_t fail(hal_status_t status, const std::string& message) { return hal_nvidia::fail(status, message); }
};
template <auto Fn>
using Guarded = hal_abi_boundary::Guarded<Boundary, Fn>;

void shutdown_entry() noexcept {
  try {
    shutdown();
  } catch (...) {
    // Nothing to report to: shutdown has no status. What was not released leaks.
  }
}

const char* get_last_error_entry() noexcept { return last_error(); }

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "nvidia";
    a.description = "NVIDIA GPUs through the CUDA runtime, with native kernels and cuBLAS";
    a.initialize = Guarded<initialize>::call;
    a.shutdown = shutdown_entry;
    a.get_last_error = get_last_error_entry;
    a.device_count = Guarded<device_count>::call;
    a.get_device_properties = Guarded<get_device_properties>::call;
    a.get_memory_info = Guarded<get_memory_info>::call;
    a.malloc_device = Guarded<malloc_device>::call;
    a.free_device = Guarded<free_device>::call;
    a.malloc_host = Guarded<malloc_host>::call;
    a.free_host = Guarded<free_host>::call;
    a.memset_async = Guarded<memset_async>::call;
    a.memcpy_async = Guarded<memcpy_async>::call;
    a.memcpy_peer_async = Guarded<memcpy_peer_async>::call;
    a.stream_create = Guarded<stream_create>::call;
    a.stream_destroy = Guarded<stream_destroy>::call;
    a.stream_synchronize = Guarded<stream_synchronize>::call;
    a.stream_query = Guarded<stream_query>::call;
    a.stream_wait_event = Guarded<stream_wait_event>::call;
    a.event_create = Guarded<event_create>::call;
    a.event_destroy = Guarded<event_destroy>::call;
    a.event_record = Guarded<event_record>::call;
    a.event_query = Guarded<event_query>::call;
    a.event_synchronize = Guarded<event_synchronize>::call;
    a.event_elapsed_ms = Guarded<event_elapsed_ms>::call;
    a.device_synchronize = Guarded<device_synchronize>::call;
    a.op_supported = Guarded<op_supported>::call;
    a.launch_op = Guarded<launch_op>::call;
    a.stream_native_handle = Guarded<stream_native_handle>::call;
    a.collectives = hal_gpu_shell::collectives();  // ABI 1.3: NCCL, loaded at first use
    a.ipc_export = Guarded<hal_gpu_shell::ipc_export>::call;
    a.ipc_open = Guarded<hal_gpu_shell::ipc_open>::call;
    a.ipc_close = Guarded<hal_gpu_shell::ipc_close>::call;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace hal_nvidia

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  // As the host adapter: the table goes even to a core of another major version, whose refusal can then
  // name both versions.
  (void)max_abi_version;
  return hal_nvidia::table();
}
