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
// This file says what is the Intel adapter's own in the function table, which the SPIR-V shell fills
// (../spirv_shell/adapter_table.cpp, over spirv_traits.h). Each part lives in its own file: adapter_state (what
// they share), devices (discovery; the lifecycle's counting is the shell's), memory, streams_events (over
// command_list and event_pool), ops; handles.h owns Level Zero handles; level_zero_api loads the runtime.
#include "streams_events.h"
#include "torch_hal/adapter.h"
#include "../spirv_shell/adapter_table.h"

void hal_spirv_shell::describe_adapter(hal_adapter_t* table) {
  table->name = "intel";
  table->description = "Intel GPUs through Level Zero (libze_loader.so.1), kernels from SPIR-V";
  // The immediate command list behind a hal stream, for code that records Level Zero commands of its own.
  table->stream_native_handle = hal_level_zero::stream_native_handle;
}
