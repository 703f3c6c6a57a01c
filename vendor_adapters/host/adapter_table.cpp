// The host reference adapter: a simulated accelerator whose "device memory" is 64-byte-aligned heap
// memory with a capacity limit, and whose streams are worker threads. It is what every adapter looks
// like: one exported entry point returning a function table, status codes, a per-thread error message,
// and no dependency beyond include/torch_hal/adapter.h. The core validates arguments before calling
// in, so the functions below only check what the core cannot know (capacity, handle contents).
//
// This file is the function table; each part lives in its own file: adapter_state.h (what they share),
// devices (lifecycle, settings, discovery), memory, streams_events, ipc; work_queue (a stream's worker
// thread) and shared_memory (memory another process can map) are the simulation's own.
#include "devices.h"
#include "ipc.h"
#include "memory.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"

namespace host_adapter {
namespace {

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "host";
    a.description = "Host reference device: CPU memory and worker threads behind the adapter ABI";
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
    a.ipc_export = ipc_export;
    a.ipc_open = ipc_open;
    a.ipc_close = ipc_close;
    // op_supported / launch_op stay NULL: the glue runs ATen's CPU kernels in place on this memory.
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace host_adapter

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  // The table is returned even to a core of another major version: its abi_version lets that core
  // name both versions in its refusal, which says more than a bare NULL.
  (void)max_abi_version;
  return host_adapter::table();
}
