#include "hal/event.h"

#include <string>

#include "hal/device_registry.h"
#include "hal/error.h"
#include "hal/fork_guard.h"

namespace hal {

Event::~Event() {
  if (!event_) return;
  // Destructors must not throw; a failing destroy only leaks the adapter's event.
  const Device& d = DeviceRegistry::instance().device(device_);
  d.table().event_destroy(d.local_index, event_);
}

void Event::record(int device, StreamId stream) {
  hal_stream_t s = native_stream(device, stream);  // validates device and stream
  const Device& d = DeviceRegistry::instance().device(device);
  if (event_ && device != device_) {
    throw Error(ErrorCode::InvalidArgument, "event belongs to hal:" + std::to_string(device_) +
                                                " and cannot be recorded on a stream of hal:" + std::to_string(device));
  }
  if (!event_) {
    hal_event_t e = nullptr;
    throw_on_failure(d.table(), d.table().event_create(d.local_index, enable_timing_ ? HAL_EVENT_FLAG_TIMING : 0, &e),
                     "event_create");
    event_ = e;
    device_ = device;
  }
  throw_on_failure(d.table(), d.table().event_record(d.local_index, event_, s), "event_record");
  was_recorded_ = true;
}

void Event::block(int device, StreamId stream) const {
  hal_stream_t s = native_stream(device, stream);
  if (!recorded()) return;
  const Device& waiter = DeviceRegistry::instance().device(device);
  const Device& owner = DeviceRegistry::instance().device(device_);
  if (waiter.adapter != owner.adapter) {
    // One adapter cannot wait on another's event inside a stream: wait on the host instead.
    synchronize();
    return;
  }
  throw_on_failure(waiter.table(), waiter.table().stream_wait_event(waiter.local_index, s, event_),
                   "stream_wait_event");
}

bool Event::query() const {
  throw_if_bad_fork();  // an event the parent recorded completes on a worker the child does not have
  if (!recorded()) return true;
  const Device& d = DeviceRegistry::instance().device(device_);
  hal_status_t st = d.table().event_query(d.local_index, event_);
  if (st == HAL_STATUS_NOT_READY) return false;
  throw_on_failure(d.table(), st, "event_query");
  return true;
}

void Event::synchronize() const {
  throw_if_bad_fork();
  if (!recorded()) return;
  const Device& d = DeviceRegistry::instance().device(device_);
  throw_on_failure(d.table(), d.table().event_synchronize(d.local_index, event_), "event_synchronize");
}

float Event::elapsed_ms(const Event& end) const {
  if (!enable_timing_ || !end.enable_timing_) {
    throw Error(ErrorCode::InvalidArgument, "elapsed_time needs both events created with enable_timing=True");
  }
  if (!recorded() || !end.recorded()) {
    throw Error(ErrorCode::InvalidArgument, "elapsed_time needs both events recorded first");
  }
  if (device_ != end.device_) {
    throw Error(ErrorCode::InvalidArgument, "elapsed_time needs both events on one device, not hal:" +
                                                std::to_string(device_) + " and hal:" + std::to_string(end.device_));
  }
  const Device& d = DeviceRegistry::instance().device(device_);
  float ms = 0.0f;
  throw_on_failure(d.table(), d.table().event_elapsed_ms(d.local_index, event_, end.event_, &ms), "event_elapsed_ms");
  return ms;
}

}  // namespace hal
