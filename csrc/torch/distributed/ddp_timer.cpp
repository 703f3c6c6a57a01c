// DDP's per-device timer (forward, backward compute and communication times in DDP's logging data), as
// torch.cuda's CudaTimer: hal events with timing, recorded on the device's current stream. Without it DDP
// warns that it collects time stats for CPU and CUDA devices only.
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/csrc/distributed/c10d/reducer_timer.hpp>

#include "runtime/hal_context.h"

namespace torch_hal::distributed {
namespace {

class HalTimer : public c10d::Timer {
 public:
  explicit HalTimer(c10::Device device) : device_(device) {}

  void record(Event event) override {
    // The host time too, as CudaTimer: DDP reads both.
    c10d::Timer::record(event);
    c10::impl::VirtualGuardImpl guard(kHal);
    event_of(event).record(guard.getStream(device_));
  }

  std::optional<int64_t> measureDifference(Event start, Event end) override {
    c10::Event& s = event_of(start);
    c10::Event& e = event_of(end);
    if (!s.was_marked_for_recording() || !e.was_marked_for_recording()) return std::nullopt;
    s.synchronize();
    e.synchronize();
    const double ms = s.elapsedTime(e);
    if (ms < 0) return std::nullopt;  // the events of an iteration that did not happen (no backward)
    return static_cast<int64_t>(ms * 1e6);
  }

 private:
  c10::Event& event_of(Event event) {
    switch (event) {
      case Event::kForwardStart: return forward_start_;
      case Event::kBackwardComputeStart: return backward_compute_start_;
      case Event::kBackwardComputeEnd: return backward_compute_end_;
      case Event::kBackwardCommStart: return backward_comm_start_;
      case Event::kBackwardCommEnd: return backward_comm_end_;
    }
    TORCH_INTERNAL_ASSERT(false, "unknown DDP timer event");
  }

  c10::Device device_;
  c10::Event forward_start_{kHal, c10::EventFlag::BACKEND_DEFAULT};
  c10::Event backward_compute_start_{kHal, c10::EventFlag::BACKEND_DEFAULT};
  c10::Event backward_compute_end_{kHal, c10::EventFlag::BACKEND_DEFAULT};
  c10::Event backward_comm_start_{kHal, c10::EventFlag::BACKEND_DEFAULT};
  c10::Event backward_comm_end_{kHal, c10::EventFlag::BACKEND_DEFAULT};
};

}  // namespace
}  // namespace torch_hal::distributed

namespace c10d {
C10_REGISTER_TYPED_CLASS(TimerRegistry, c10::kPrivateUse1, torch_hal::distributed::HalTimer)
}  // namespace c10d
