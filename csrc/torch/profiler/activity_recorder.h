// The glue's observer of the core's device activity (hal/device_activity.h) for one profiler session: it
// tags each span with the correlation id of the op that launched it (PyTorch pushes one per op, on the op's
// thread), keeps the completed spans for the session to hand to Kineto, and passes allocations and frees
// to PyTorch's memory profiler (profile_memory=True), as torch.cuda's allocator does.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "hal/device_activity.h"

namespace torch_hal::profiler {

class ActivityRecorder final : public hal::ActivityObserver {
 public:
  // The correlation stack of the calling thread: PyTorch pushes an id as each op begins and pops it as the
  // op ends, so the top is the innermost op running on that thread.
  static void push_correlation(uint64_t id);
  static void pop_correlation();

  uint64_t correlation() override;
  void on_device_activity(hal::DeviceActivity&& activity) override;
  void on_memory(const hal::MemoryActivity& event) override;

  // The spans completed so far, in the order they ended; the recorder keeps none.
  std::vector<hal::DeviceActivity> take();

 private:
  std::mutex mutex_;
  std::vector<hal::DeviceActivity> activities_;
};

}  // namespace torch_hal::profiler
