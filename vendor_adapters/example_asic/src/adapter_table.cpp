// example_asic: a plugin adapter for a simulated ASIC, built outside torch_hal against
// include/torch_hal/adapter.h alone. It is the worked example of vendor_adapters/example_asic/README.md.
//
// The simulated chip has its own memory (a fixed-size arena per device, reported as NOT host-accessible,
// so torch_hal moves data with memcpy_async and runs non-native ops through its CPU fallback), in-order
// streams, events with timing, and native float32 kernels for ADD, MUL, RELU and MATMUL.
//
// Execution model: a command runs to completion when it is submitted, in submission order. That is a
// valid in-order stream (a later command of the stream never starts before an earlier one ends), so
// stream and event queries are always complete, waits are already satisfied, and an event's time is the
// moment everything submitted before it on its stream had finished.
//
// This file is the function table. Each part lives in its own file, named after what adapter.h calls it:
//   adapter_state.{h,cpp}   what the other files share: the chips' state, the handles, fail() and guarded()
//   devices.{h,cpp}         initialize/shutdown (the settings below), device count, properties, memory info
//   memory.{h,cpp}          device and pinned host memory, memset and memcpy
//   streams_events.{h,cpp}  streams, events, device synchronization
//   ops.{h,cpp}             op_supported and launch_op over kernels.{h,cpp}
//   device_arena.{h,cpp}    the chip's memory allocator (your driver's allocator)
//
// Environment:
//   EXAMPLE_ASIC_DEVICES  number of simulated chips (default 1)
//   EXAMPLE_ASIC_MEMORY   memory of each chip: bytes, or with a K/M/G suffix such as 512M (default 512M)
#include "devices.h"
#include "memory.h"
#include "ops.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"

namespace example_asic {
namespace {

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "example_asic";
    a.description = "Example ASIC plugin: a simulated chip with its own memory and native float32 kernels";
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
    a.op_supported = op_supported;
    a.launch_op = launch_op;
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace example_asic

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  // Returned even to a core of another major version: its abi_version lets that core name both
  // versions in its refusal.
  (void)max_abi_version;
  return example_asic::table();
}
