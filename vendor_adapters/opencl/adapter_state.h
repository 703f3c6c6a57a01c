// What every file of the OpenCL adapter shares: the state between initialize() and shutdown() (each device's
// context, default queue, streams and allocations; the pinned host allocations), the opaque handles of
// adapter.h, failure reporting (fail, cl_fail, guarded: adapter_support/abi_boundary.h) and the queue helpers
// that memory and streams both use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi_boundary.h"
#include "../spirv_shell/device_records.h"
#include "devices.h"
#include "ops.h"
#include "opencl_api.h"
#include "torch_hal/adapter.h"

struct hal_stream_impl {
  int32_t device;
  hal_opencl::cl_command_queue queue;
};
struct hal_event_impl {
  int32_t device;
  bool timing;
  hal_opencl::cl_event marker = nullptr;  // the last record's marker; none before the first record
};

namespace hal_opencl {

// One device: its context, its default queue, the streams made on it, and what is allocated on it.
struct Device {
  DeviceInfo info;
  cl_context context = nullptr;
  cl_command_queue default_queue = nullptr;
  std::unique_ptr<DeviceKernels> kernels;
  hal_spirv_shell::DeviceRecords records;  // the streams made on it, its allocations
};

struct State {
  const OpenClApi* cl = nullptr;
  std::vector<std::unique_ptr<Device>> devices;
  std::mutex pinned_mutex;
  std::unordered_map<void*, uint64_t> pinned;  // malloc_host's allocations and their sizes

  ~State() {
    for (auto& d : devices) {
      for (hal_stream_t s : d->records.take_streams()) {
        cl->ReleaseCommandQueue(s->queue);
        delete s;
      }
      for (auto& [ptr, size] : d->records.take_allocations()) cl->SVMFree(d->context, ptr);
      d->kernels.reset();  // its program and kernels belong to the context
      if (d->default_queue) cl->ReleaseCommandQueue(d->default_queue);
      if (d->context) cl->ReleaseContext(d->context);
    }
    for (auto& [ptr, size] : pinned) std::free(ptr);
  }
};

// Between the first initialize() and the last shutdown() (adapter_state.cpp).
extern std::unique_ptr<State> g_state;
// Made by open_state() (the runtime, the devices chosen, each one's context and default queue), dropped by
// close_state(): the SPIR-V shell's initialize() and shutdown() call them (../spirv_shell/lifecycle.cpp).
hal_status_t open_state();
void close_state();

hal_status_t fail(hal_status_t status, std::string message);
hal_status_t cl_fail(const char* what, cl_int code);

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

inline const OpenClApi& cl() { return *g_state->cl; }
inline Device& dev(int32_t device) { return *g_state->devices[device]; }
// The queue of a hal stream (the device's default queue for NULL): what its commands are queued on.
inline cl_command_queue stream_of(int32_t device, hal_stream_t stream) {
  return stream != nullptr ? stream->queue : dev(device).default_queue;
}

// Commands start once the queue is flushed; without it an OpenCL runtime may hold them until a wait.
hal_status_t submitted(const char* what, cl_int code, cl_command_queue queue);

// An in-order queue with profiling, which event timing reads.
cl_command_queue new_queue(const OpenClApi& api, const Device& d, cl_int* error);

// Waits for every queue of the device: the default one and each stream's.
hal_status_t finish_all(Device& d);

}  // namespace hal_opencl
