#include "profiler/activity_recorder.h"

#include <c10/core/Allocator.h>

#include "runtime/hal_context.h"

namespace torch_hal::profiler {
namespace {

std::vector<uint64_t>& correlation_stack() {
  thread_local std::vector<uint64_t> stack;
  return stack;
}

}  // namespace

void ActivityRecorder::push_correlation(uint64_t id) { correlation_stack().push_back(id); }

void ActivityRecorder::pop_correlation() {
  auto& stack = correlation_stack();
  if (!stack.empty()) stack.pop_back();
}

uint64_t ActivityRecorder::correlation() {
  const auto& stack = correlation_stack();
  return stack.empty() ? 0 : stack.back();
}

void ActivityRecorder::on_device_activity(hal::DeviceActivity&& activity) {
  std::lock_guard<std::mutex> lock(mutex_);
  activities_.push_back(std::move(activity));
}

void ActivityRecorder::on_memory(const hal::MemoryActivity& event) {
  // PyTorch keeps the memory events in the profiler state of the allocating thread, which this is.
  if (!c10::memoryProfilingEnabled()) return;
  c10::reportMemoryUsageToProfiler(const_cast<void*>(event.ptr), event.bytes,
                                   static_cast<size_t>(event.allocated_bytes),
                                   static_cast<size_t>(event.reserved_bytes),
                                   c10::Device(kHal, static_cast<c10::DeviceIndex>(event.device)));
}

std::vector<hal::DeviceActivity> ActivityRecorder::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<hal::DeviceActivity> out;
  out.swap(activities_);
  return out;
}

}  // namespace torch_hal::profiler
