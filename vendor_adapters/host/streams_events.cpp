#include "streams_events.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "adapter_state.h"

namespace host_adapter {

// ---- streams ------------------------------------------------------------------------------------

hal_status_t stream_create(int32_t device, int32_t /*priority: one worker per stream, no priorities*/,
                           hal_stream_t* stream) {
  return guarded("stream_create", [&] {
    auto s = std::make_unique<hal_stream_impl>();
    HostDevice& d = dev(device);
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.insert(s.get());
    *stream = s.release();
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (!stream) return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  HostDevice& d = dev(device);
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    d.streams.erase(stream);
  }
  // Queued work finishes first, as before: device_synchronize() may hold the last reference to the queue
  // (then the worker is joined there), but the work is done when this returns either way.
  stream->queue->synchronize();
  delete stream;
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  queue_of(device, stream).synchronize();
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  return queue_of(device, stream).idle() ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  // Wait for the record made before this call, not for later ones (CUDA semantics).
  const uint64_t generation = event->state->recorded();
  if (generation == 0) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
  std::shared_ptr<EventState> state = event->state;
  return guarded("stream_wait_event", [&] {
    queue_of(device, stream).enqueue([state, generation] { state->wait_for(generation); });
    return HAL_STATUS_SUCCESS;
  });
}

// ---- events -----------------------------------------------------------------------------------

hal_status_t event_create(int32_t /*device*/, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&] {
    *event = new hal_event_impl{std::make_shared<EventState>((flags & HAL_EVENT_FLAG_TIMING) != 0)};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  delete event;  // queued markers keep the state alive
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  std::shared_ptr<EventState> state = event->state;
  const uint64_t generation = state->next_generation();
  const hal_status_t status = guarded("event_record", [&] {
    queue_of(device, stream).enqueue_marker([state, generation] { state->complete(generation); });
    return HAL_STATUS_SUCCESS;
  });
  // A generation that no marker will complete would make every later wait on this event hang: the
  // record failed, so it counts as done (and the caller got the error).
  if (status != HAL_STATUS_SUCCESS) state->complete(generation);
  return status;
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return event->state->is_complete() ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  event->state->wait_for(event->state->recorded());
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->state->timing() || !end->state->timing()) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  std::chrono::steady_clock::time_point t0, t1;
  if (start->state->recorded() == 0 || end->state->recorded() == 0) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  if (!start->state->completion_time(&t0) || !end->state->completion_time(&t1)) {
    return fail(HAL_STATUS_NOT_READY, "event_elapsed_ms: an event has not completed yet");
  }
  *ms = std::chrono::duration<float, std::milli>(t1 - t0).count();
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) {
  return guarded("device_synchronize", [&] {
    HostDevice& d = dev(device);
    // References, not handles: another thread may destroy a stream while this one waits for it.
    std::vector<std::shared_ptr<WorkQueue>> queues;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      queues.reserve(d.streams.size());
      for (hal_stream_impl* s : d.streams) queues.push_back(s->queue);
    }
    d.default_stream.queue->synchronize();
    for (const auto& q : queues) q->synchronize();
    return HAL_STATUS_SUCCESS;
  });
}

}  // namespace host_adapter
