// The AMD adapter: hal devices for AMD GPUs over the HIP runtime, loaded with dlopen (hip_api.cpp) so the
// library loads everywhere and says why AMD GPUs are unavailable (no ROCm runtime, no AMD GPU, an
// architecture it holds no code for). Native kernels come from the GPU kernel library, compiled by hipcc
// into code objects for several gfx architectures (code_objects.h); GEMMs go to rocBLAS, also loaded with
// dlopen (gemm.cpp).
//
// This file is the function table; each part lives in its own file: adapter_context (what they share), devices
// (lifecycle, discovery), memory, streams_events, ops (and gemm); ipc and the RCCL collectives are the GPU
// shell's (../gpu_shell, over runtime_traits.h).
#include <string>

#include "abi_boundary.h"
#include "adapter_context.h"
#include "code_objects.h"
#include "devices.h"
#include "memory.h"
#include "ops.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"
#include "../gpu_shell/collectives.h"
#include "../gpu_shell/ipc.h"

namespace hal_amd {
namespace {

// Every table entry runs behind guarded() (adapter_support/abi_boundary.h): no C++ exception may cross the C ABI.
struct Boundary {
  static constexpr const char* kWhat = "AMD adapter";
  static hal_status_t fail(hal_status_t status, const std::string& message) { return hal_amd::fail(status, message); }
};
template <auto Fn>
using Guarded = hal_abi_boundary::Guarded<Boundary, Fn>;

const char* get_last_error_entry() noexcept { return last_error(); }

}  // namespace

// Names the architectures the embedded kernels run on, for `python -m torch_hal info` and the tests.
const char* description() {
  static const std::string text = [] {
    std::string archs;
    for (const std::string& arch : embedded_architectures()) archs += (archs.empty() ? "" : ", ") + arch;
    return "AMD GPUs through the HIP runtime (loaded with dlopen), with the portable kernel library for " +
           (archs.empty() ? std::string("no architecture (built without kernels)") : archs);
  }();
  return text.c_str();
}

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "amd";
    a.description = description();
    a.initialize = Guarded<initialize>::call;
    a.shutdown = shutdown;
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
    a.stream_native_handle = Guarded<stream_native_handle>::call;
    a.event_create = Guarded<event_create>::call;
    a.event_destroy = Guarded<event_destroy>::call;
    a.event_record = Guarded<event_record>::call;
    a.event_query = Guarded<event_query>::call;
    a.event_synchronize = Guarded<event_synchronize>::call;
    a.event_elapsed_ms = Guarded<event_elapsed_ms>::call;
    a.device_synchronize = Guarded<device_synchronize>::call;
    a.op_supported = Guarded<op_supported>::call;
    a.launch_op = Guarded<launch_op>::call;
    a.collectives = hal_gpu_shell::collectives();  // ABI 1.3: RCCL, loaded at first use
    a.ipc_export = Guarded<hal_gpu_shell::ipc_export>::call;
    a.ipc_open = Guarded<hal_gpu_shell::ipc_open>::call;
    a.ipc_close = Guarded<hal_gpu_shell::ipc_close>::call;
    return a;
  }();
  return &t;
}

}  // namespace hal_amd

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t /*max_abi_version*/) {
  return hal_amd::table();
}
