// The OpenCL adapter: any OpenCL device that takes SPIR-V and has shared virtual memory, as hal devices.
//
// Memory is coarse-grained SVM (clSVMAlloc): pointers the core's caching allocator can split and offset, as
// it does device pointers of CUDA. A hal stream is an in-order command queue with profiling (for event
// timing); an event is a marker command on such a queue. Copies with pageable host memory block, as CUDA's
// do; with pinned memory (malloc_host) they are asynchronous in stream order.
//
// Native kernels come from the kernel library's SPIR-V modules (ops.h): today the elementwise ops
// on contiguous float32 tensors; every other op runs through the core's counted CPU fallback. Device choice:
// devices.h.
//
// This file is the function table; each part lives in its own file: adapter_state (what they share), devices
// (discovery, lifecycle), memory, streams_events, ops; opencl_api loads the runtime.
#include "devices.h"
#include "memory.h"
#include "ops.h"
#include "streams_events.h"
#include "torch_hal/adapter.h"

namespace hal_opencl {
namespace {

const hal_adapter_t* table() {
  static const hal_adapter_t t = [] {
    hal_adapter_t a{};
    a.struct_size = sizeof(hal_adapter_t);
    a.abi_version = HAL_ABI_VERSION;
    a.name = "opencl";
    a.description = "OpenCL devices that take SPIR-V (OpenCL 2.0+ with shared virtual memory)";
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
    return a;
  }();
  return &t;
}

}  // namespace
}  // namespace hal_opencl

extern "C" HAL_ADAPTER_EXPORT const hal_adapter_t* hal_adapter_query(uint32_t max_abi_version) {
  (void)max_abi_version;  // returned to any core: its abi_version lets a core of another major refuse by name
  return hal_opencl::table();
}
