// The Intel adapter: Intel GPUs through Level Zero, the runtime loaded with dlopen (level_zero_api.h).
//
// Devices are every Level Zero GPU (devices.h), with one context per driver, so that devices of
// one driver can copy to each other and wait for each other's events. Memory is device memory
// (zeMemAllocDevice); pinned host memory is zeMemAllocHost's. A hal stream is an immediate command list
// (command_list.h); a hal event is a Level Zero event that a barrier, or a global timestamp write for
// timing events, signals (event_pool.h). Copies with pageable host memory block, as CUDA's do, and go
// through a staging buffer of host memory the device can reach; with pinned memory they are asynchronous in
// stream order.
//
// Native kernels are the shared SPIR-V modules and launch plans (ops.h); every other op runs
// through the core's counted CPU fallback.
//
// This file is the function table; each part lives in its own file: adapter_state (what they share), devices
// (discovery, lifecycle), memory, streams_events (over command_list and event_pool), ops; handles.h owns Level
// Zero handles; level_zero_api loads the runtime.
#include "devices.h"
#include "memory.h"
#include "ops.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"

namespace hal_level_zero {
namespace {

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "intel";
    a.description = "Intel GPUs through Level Zero (libze_loader.so.1), kernels from SPIR-V";
    a.initialize = initialize;
    a.shutdown = shutdown;
    a.get_last_error = get_last_error;
    a.device_count = device_count;
    a.get_device_properties = get_device_properties;
    a.get_memory_info = get_memory_info;
    a.malloc_device = malloc_device;
    a.free_device = free_device;
    a.malloc_host = malloc_host;
    a.free_host = free_host;
    a.memset_async = memset_async;
    a.memcpy_async = memcpy_async;
    a.memcpy_peer_async = memcpy_peer_async;
    a.stream_create = stream_create;
    a.stream_destroy = stream_destroy;
    a.stream_synchronize = stream_synchronize;
    a.stream_query = stream_query;
    a.stream_wait_event = stream_wait_event;
    a.event_create = event_create;
    a.event_destroy = event_destroy;
    a.event_record = event_record;
    a.event_query = event_query;
    a.event_synchronize = event_synchronize;
    a.event_elapsed_ms = event_elapsed_ms;
    a.device_synchronize = device_synchronize;
    a.op_supported = hal_spirv::op_supported;
    a.launch_op = launch_op;
    a.stream_native_handle = stream_native_handle;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace hal_level_zero

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  (void)max_abi_version;  // returned to any core: its abi_version lets a core of another major refuse by name
  return hal_level_zero::table();
}
