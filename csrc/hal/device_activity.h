// Device activity for profilers. While an observer is installed (a profiler session), the core times the
// kernels and copies it is told about with a pair of adapter events around the work on its stream, and
// reports each span with its device start and end once its events have completed; the caching
// allocator's allocations and frees are reported as they happen. The core knows no profiler: the PyTorch
// glue installs an observer that turns these records into Kineto activities (csrc/torch/profiler).
//
// Device time becomes host time through one anchor per device and session: an event recorded on an idle
// stream of the device, bracketed by two host clock readings. A span's start is the anchor's host time
// plus the device's elapsed time from the anchor to the span's start event; its duration is the elapsed
// time between its two events. Both are the adapter's own event timings (cudaEventElapsedTime on NVIDIA):
// measurements, never estimates from the host side.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hal/streams.h"
#include "torch_hal/adapter.h"

namespace hal {

class Event;

enum class ActivityKind { Kernel, Memcpy };

struct DeviceActivity {
  ActivityKind kind = ActivityKind::Kernel;
  std::string name;
  int device = -1;
  StreamId stream = kDefaultStreamId;
  hal_copy_kind_t copy_kind = -1;  // Memcpy only
  uint64_t bytes = 0;              // Memcpy only
  int64_t start_ns = 0;            // nanoseconds since the Unix epoch (system clock)
  int64_t end_ns = 0;
  uint64_t correlation = 0;        // the observer's correlation() when the span began
};

struct MemoryActivity {
  int device;
  const void* ptr;
  int64_t bytes;            // the block's size: positive for an allocation, negative for a free
  int64_t allocated_bytes;  // the device's totals after this event
  int64_t reserved_bytes;
  StreamId stream;
};

class ActivityObserver {
 public:
  virtual ~ActivityObserver() = default;
  // Called on the launching thread when a span begins; the value travels with the span. (The glue returns
  // the profiler's current correlation id, which only that thread knows, and only at that moment.)
  virtual uint64_t correlation() = 0;
  // A completed span, delivered by flush_device_activities() on the thread that calls it.
  virtual void on_device_activity(DeviceActivity&& activity) = 0;
  // An allocation or free, on the thread that made it, once the allocator has released its lock.
  virtual void on_memory(const MemoryActivity& event) = 0;
};

// Installs `observer` (nullptr: none), and forgets the previous session's anchors so that the next span on
// each device takes a fresh one. Spans still pending stay with the observer that saw them begin.
void set_activity_observer(std::shared_ptr<ActivityObserver> observer);

// True while an observer is installed: one atomic load, the test on every launch and allocation path.
bool activity_observed();

// Waits for every span begun so far, hands each to the observer that saw it begin, and returns a message
// for each span that could not be timed (a device error): a profiler reports them rather than failing.
std::vector<std::string> flush_device_activities();

// Called by the caching allocator after an allocation or free, when activity_observed().
void report_memory_activity(const MemoryActivity& event);

// One span of device work (RAII). It begins by recording an event on `stream` before the work is issued,
// when an observer is installed (otherwise it does nothing at all, and builds no name); end() records the
// second event after the work is issued and queues the span for flush_device_activities(). A span never
// ended (the work threw, or the caller took another path) is dropped.
class DeviceSpan {
 public:
  DeviceSpan() = default;
  // `name` is called only when the span is active: a callable returning std::string.
  template <typename NameFn>
  DeviceSpan(ActivityKind kind, int device, StreamId stream, NameFn&& name, uint64_t bytes = 0,
             hal_copy_kind_t copy_kind = -1) {
    if (activity_observed()) begin(kind, device, stream, std::string(name()), bytes, copy_kind);
  }
  ~DeviceSpan();
  DeviceSpan(DeviceSpan&& other) noexcept;
  DeviceSpan& operator=(DeviceSpan&& other) noexcept;
  DeviceSpan(const DeviceSpan&) = delete;
  DeviceSpan& operator=(const DeviceSpan&) = delete;

  void end();

  struct Pending;  // defined by the core

 private:
  // Out of line, so that code inlining a span never needs Pending's definition (the core's).
  struct PendingDeleter {
    void operator()(Pending* p) const;
  };
  void begin(ActivityKind kind, int device, StreamId stream, std::string name, uint64_t bytes,
             hal_copy_kind_t copy_kind);
  std::unique_ptr<Pending, PendingDeleter> pending_;
};

// A span over one copy issued on `stream` of hal:`device`, named as CUPTI names copies ("Memcpy HtoD
// (Pageable -> Device)"), so that traces of hal and cuda read alike. `host_pinned` is whether the host side
// of a HtoD or DtoH copy is pinned memory; `peer` marks a DtoD copy between two devices.
DeviceSpan copy_span(int device, StreamId stream, hal_copy_kind_t kind, uint64_t bytes, bool host_pinned,
                     bool peer = false);

}  // namespace hal
