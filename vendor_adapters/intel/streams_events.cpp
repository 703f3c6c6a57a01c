#include "streams_events.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapter_state.h"

namespace hal_level_zero {
namespace {

// The event's last record and the device it was recorded on, read together.
std::shared_ptr<Signal> recorded_of(hal_event_t event, int32_t* device = nullptr) {
  std::lock_guard<std::mutex> lock(event->mutex);
  if (device != nullptr) *device = event->device;
  return event->recorded;
}

}  // namespace

hal_status_t stream_create(int32_t device, int32_t priority, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    Device& d = dev(device);
    auto s = std::make_unique<hal_stream_impl>(device, ze(), d.driver->events);
    std::string error;
    if (hal_status_t st = s->stream.open(d.context(), d.info.device, d.info.compute_ordinal, priority, &error)) {
      return fail(st, error);
    }
    d.records.add_stream(s.get());  // until stream_destroy (../spirv_shell/streams.cpp) or shutdown
    *stream = s.release();
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t release_stream(hal_stream_t stream) {
  // A command list must not be destroyed while the device still runs its commands.
  std::string error;
  const hal_status_t st = stream->stream.synchronize(&error);
  delete stream;
  return reported(st, error);
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  std::string error;
  return reported(stream_of(device, stream).synchronize(&error), error);
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  std::string error;
  return reported(stream_of(device, stream).query(&error), error);
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  return guarded("stream_wait_event", [&]() -> hal_status_t {
    int32_t recorded_on = device;
    std::shared_ptr<Signal> signal = recorded_of(event, &recorded_on);
    if (signal == nullptr) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
    std::string error;
    if (dev(recorded_on).context() != dev(device).context()) {
      // Another driver's event cannot be waited for on this device: the host waits.
      if (ze_result_t r = ze().zeEventHostSynchronize(signal->event, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
        return fail(failed("zeEventHostSynchronize", r, &error), error);
      }
      return HAL_STATUS_SUCCESS;
    }
    return reported(stream_of(device, stream).wait(std::move(signal), &error), error);
  });
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    auto* e = new hal_event_impl;
    e->device = device;
    e->timing = (flags & HAL_EVENT_FLAG_TIMING) != 0;
    *event = e;
    return HAL_STATUS_SUCCESS;
  });
}

// Its Level Zero event goes back to the cache once its command signaled it, and once no stream's queued wait
// names it.
hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  return guarded("event_record", [&]() -> hal_status_t {
    std::string error;
    std::shared_ptr<Signal> signal = dev(device).driver->events->acquire(&error);
    if (signal == nullptr) return fail(HAL_STATUS_DEVICE_ERROR, error);
    if (hal_status_t st = stream_of(device, stream).record(signal, event->timing, &error)) return fail(st, error);
    std::lock_guard<std::mutex> lock(event->mutex);
    event->recorded = std::move(signal);
    event->device = device;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  std::shared_ptr<Signal> signal = recorded_of(event);
  if (signal == nullptr) return HAL_STATUS_SUCCESS;
  const ze_result_t r = ze().zeEventQueryStatus(signal->event);
  if (r == ZE_RESULT_NOT_READY) return HAL_STATUS_NOT_READY;
  std::string error;
  return r == ZE_RESULT_SUCCESS ? HAL_STATUS_SUCCESS : fail(failed("zeEventQueryStatus", r, &error), error);
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  std::shared_ptr<Signal> signal = recorded_of(event);
  if (signal == nullptr) return HAL_STATUS_SUCCESS;
  std::string error;
  if (ze_result_t r = ze().zeEventHostSynchronize(signal->event, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeEventHostSynchronize", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  int32_t first_device = -1, last_device = -1;
  std::shared_ptr<Signal> first = recorded_of(start, &first_device), last = recorded_of(end, &last_device);
  if (first == nullptr || last == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  if (first_device != last_device) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: the events were recorded on different devices, "
                                             "whose clocks are not comparable");
  }
  for (const auto& s : {first, last}) {
    const ze_result_t r = ze().zeEventQueryStatus(s->event);
    if (r == ZE_RESULT_NOT_READY) return fail(HAL_STATUS_NOT_READY, "event_elapsed_ms: an event has not completed yet");
    std::string error;
    if (r != ZE_RESULT_SUCCESS) return fail(failed("zeEventQueryStatus", r, &error), error);
  }
  const DeviceInfo& info = dev(first_device).info;
  if (info.timer_resolution_ns == 0) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "event_elapsed_ms: " + info.name + " reports no timer resolution");
  }
  // The counter wraps at timestampValidBits: the difference is taken modulo that.
  const uint64_t mask = info.timestamp_valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << info.timestamp_valid_bits) - 1;
  const uint64_t ticks = (*last->timestamp - *first->timestamp) & mask;
  *ms = static_cast<float>(static_cast<double>(ticks) * static_cast<double>(info.timer_resolution_ns) / 1e6);
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) { return synchronize_all(dev(device)); }

hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle) {
  *handle = stream_of(device, stream).list();  // a ze_command_list_handle_t (immediate)
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_level_zero
