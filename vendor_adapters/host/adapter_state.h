// What every file of the host adapter shares: the state between initialize() and shutdown() (the simulated
// devices, their allocations and streams), the opaque handles of adapter.h, and failure reporting (fail,
// guarded: adapter_support/abi_boundary.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "abi_boundary.h"
#include "shared_memory.h"
#include "torch_hal/adapter.h"
#include "work_queue.h"

// The opaque handles of adapter.h, defined here. A NULL stream is the device's default stream.
// The queue is shared: device_synchronize() holds a reference while it waits, so that a stream destroyed
// meanwhile on another thread is not freed under it.
struct hal_stream_impl {
  std::shared_ptr<host_adapter::WorkQueue> queue = std::make_shared<host_adapter::WorkQueue>();
};
struct hal_event_impl {
  std::shared_ptr<host_adapter::EventState> state;
};

namespace host_adapter {

constexpr size_t kAlignment = 64;

struct HostDevice {
  uint64_t capacity = 0;
  std::mutex mutex;                                    // guards used, allocations, imported, streams
  uint64_t used = 0;
  struct Allocation {
    uint64_t charged;                // against the capacity
    std::unique_ptr<Region> region;
  };
  std::unordered_map<void*, Allocation> allocations;
  std::map<void*, std::unique_ptr<Region>> imported;   // other processes' memory (ipc_open): not charged
  std::set<hal_stream_impl*> streams;                  // created streams, for device_synchronize
  hal_stream_impl default_stream;
};

struct AdapterState {
  bool host_accessible = true;
  std::string cpu_model;
  std::string arch;
  // Streams and their worker threads go first at shutdown (they may still touch device memory).
  std::vector<std::unique_ptr<HostDevice>> devices;

  ~AdapterState() {
    for (auto& d : devices) {
      for (hal_stream_impl* s : d->streams) delete s;  // joins its worker
      d->streams.clear();
    }
    for (auto& d : devices) {
      d->default_stream.queue->synchronize();
      d->allocations.clear();
      d->imported.clear();
    }
  }
};

// Between the first initialize() and the last shutdown() (devices.cpp).
extern AdapterState* g_state;

inline hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, std::move(message));
}

inline HostDevice& dev(int32_t device) { return *g_state->devices[device]; }

inline WorkQueue& queue_of(int32_t device, hal_stream_t stream) {
  return stream ? *stream->queue : *dev(device).default_stream.queue;
}

// No C++ exception may cross the C ABI (abi_boundary.h).
template <typename F>
hal_status_t guarded(const char* what, F&& body) noexcept {
  return hal_abi_boundary::guarded(fail, what, std::forward<F>(body));
}

}  // namespace host_adapter
