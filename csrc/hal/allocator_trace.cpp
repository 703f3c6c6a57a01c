#include "allocator_trace.h"

#include <atomic>
#include <chrono>
#include <utility>

namespace hal {
namespace {

int64_t now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

const char* trace_action_name(TraceAction action) {
  switch (action) {
    case TraceAction::Alloc: return "alloc";
    case TraceAction::FreeRequested: return "free_requested";
    case TraceAction::FreeCompleted: return "free_completed";
    case TraceAction::SegmentAlloc: return "segment_alloc";
    case TraceAction::SegmentFree: return "segment_free";
    case TraceAction::Oom: return "oom";
  }
  return "unknown";
}

std::atomic<size_t> g_trace_capacity{0};

void AllocatorTrace::append(size_t capacity, TraceAction action, uint64_t address, size_t size, StreamId stream,
                            const std::string& context) {
  while (ring_.size() >= capacity) ring_.pop_front();
  ring_.push_back(TraceEntry{action, address, size, stream, now_us(), context});
}

void set_trace_capacity(size_t max_entries) { g_trace_capacity.store(max_entries); }
size_t trace_capacity() { return g_trace_capacity.load(); }

}  // namespace hal
