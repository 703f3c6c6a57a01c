// Core-internal: the history of the caching allocator's actions while memory history is recorded
// (torch.hal.memory._record_memory_history), kept per device in a bounded ring, as torch.cuda keeps the
// "device_traces" that PyTorch's memory_viz reads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hal/streams.h"

namespace hal {

enum class TraceAction { Alloc, FreeRequested, FreeCompleted, SegmentAlloc, SegmentFree, Oom };

// torch.cuda's name of the action ("alloc", "free_requested", ...).
const char* trace_action_name(TraceAction action);

struct TraceEntry {
  TraceAction action;
  uint64_t address;
  size_t size;
  StreamId stream;
  int64_t time_us;      // microseconds since the Unix epoch
  std::string context;  // the allocation's context (hal/caching_allocator.h's ContextRecorder)
};

// Entries each device's ring keeps (trace_capacity()); read inline by AllocatorTrace::record.
extern std::atomic<size_t> g_trace_capacity;

// One device's ring. Not thread-safe: the device's allocator calls it with its lock held.
class AllocatorTrace {
 public:
  // Inline: every allocation and free calls it, and tracing is off unless memory history is recorded.
  void record(TraceAction action, uint64_t address, size_t size, StreamId stream, const std::string& context) {
    const size_t capacity = g_trace_capacity.load(std::memory_order_relaxed);
    if (capacity != 0) append(capacity, action, address, size, stream, context);
  }
  // The same without a context, whose empty string is then made only when tracing is on.
  void record(TraceAction action, uint64_t address, size_t size, StreamId stream) {
    const size_t capacity = g_trace_capacity.load(std::memory_order_relaxed);
    if (capacity != 0) append(capacity, action, address, size, stream, std::string());
  }
  std::vector<TraceEntry> entries() const { return {ring_.begin(), ring_.end()}; }
  void clear() { ring_.clear(); }

 private:
  void append(size_t capacity, TraceAction action, uint64_t address, size_t size, StreamId stream,
              const std::string& context);
  std::deque<TraceEntry> ring_;
};

// How many entries each device keeps; 0 turns tracing off (the default). Set by record_memory_history.
void set_trace_capacity(size_t max_entries);
size_t trace_capacity();

}  // namespace hal
