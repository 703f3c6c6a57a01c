#include "streams_events.h"

#include <chrono>

#include "adapter_state.h"

namespace example_asic {

// ---- streams and events (run at submission, in order; see adapter_table.cpp) ----------------------

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    *stream = new hal_stream_impl{device};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_destroy(int32_t /*device*/, hal_stream_t stream) {
  if (!stream) return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  delete stream;
  return HAL_STATUS_SUCCESS;
}

// Every command finished when it was submitted: nothing is ever pending.
hal_status_t stream_synchronize(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t stream_query(int32_t, hal_stream_t) { return HAL_STATUS_SUCCESS; }
hal_status_t stream_wait_event(int32_t, hal_stream_t, hal_event_t) { return HAL_STATUS_SUCCESS; }
hal_status_t device_synchronize(int32_t) { return HAL_STATUS_SUCCESS; }

hal_status_t event_create(int32_t /*device*/, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    *event = new hal_event_impl{(flags & HAL_EVENT_FLAG_TIMING) != 0};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t /*device*/, hal_event_t event, hal_stream_t /*stream*/) {
  event->recorded = true;
  event->reached = std::chrono::steady_clock::now();
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_query(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }
hal_status_t event_synchronize(int32_t, hal_event_t) { return HAL_STATUS_SUCCESS; }

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (!start->recorded || !end->recorded) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  *ms = std::chrono::duration<float, std::milli>(end->reached - start->reached).count();
  return HAL_STATUS_SUCCESS;
}

}  // namespace example_asic
