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
// This file says what is the OpenCL adapter's own in the function table, which the SPIR-V shell fills
// (../spirv_shell/adapter_table.cpp, over spirv_traits.h). Each part lives in its own file: adapter_state (what
// they share), devices (discovery; the lifecycle's counting is the shell's), memory, streams_events, ops;
// opencl_api loads the runtime.
#include "torch_hal/adapter.h"
#include "../spirv_shell/adapter_table.h"

void hal_spirv_shell::describe_adapter(hal_adapter_t* table) {
  table->name = "opencl";
  table->description = "OpenCL devices that take SPIR-V (OpenCL 2.0+ with shared virtual memory)";
  // No entry beyond the shared ones: a queue is not a stream other code could record into (no native handle).
}
