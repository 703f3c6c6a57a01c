#include "streams_events.h"

#include "adapter_context.h"

namespace hal_amd {

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  hipStream_t created = nullptr;
  hal_status_t s = check(hip().StreamCreateWithFlags(&created, kStreamNonBlocking), "hipStreamCreateWithFlags");
  *stream = reinterpret_cast<hal_stream_t>(created);
  return s;
}
hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  // The stream's scratch goes first: a stream made later may get the same handle.
  device_state(device).scratch.forget(reinterpret_cast<cudaStream_t>(stream));
  return check(hip().StreamDestroy(stream_of(stream)), "hipStreamDestroy");
}
hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamSynchronize(stream_of(stream)), "hipStreamSynchronize");
}
hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamQuery(stream_of(stream)), "hipStreamQuery");
}
// A hal stream is the hipStream_t itself (NULL: HIP's null stream, the device's default).
hal_status_t stream_native_handle(int32_t /*device*/, hal_stream_t stream, void** handle) {
  *handle = stream_of(stream);
  return HAL_STATUS_SUCCESS;
}
hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().StreamWaitEvent(stream_of(stream), event_of(event), 0), "hipStreamWaitEvent");
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  hipEvent_t created = nullptr;
  const unsigned hip_flags = (flags & HAL_EVENT_FLAG_TIMING) ? 0u : kEventDisableTiming;
  hal_status_t s = check(hip().EventCreateWithFlags(&created, hip_flags), "hipEventCreateWithFlags");
  *event = reinterpret_cast<hal_event_t>(created);
  return s;
}
hal_status_t event_destroy(int32_t device, hal_event_t event) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().EventDestroy(event_of(event)), "hipEventDestroy");
}
hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().EventRecord(event_of(event), stream_of(stream)), "hipEventRecord");
}
hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return check(hip().EventQuery(event_of(event)), "hipEventQuery");
}
hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  return check(hip().EventSynchronize(event_of(event)), "hipEventSynchronize");
}
hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  return check(hip().EventElapsedTime(ms, event_of(start), event_of(end)), "hipEventElapsedTime");
}
hal_status_t device_synchronize(int32_t device) {
  if (hal_status_t s = use(device); s != HAL_STATUS_SUCCESS) return s;
  return check(hip().DeviceSynchronize(), "hipDeviceSynchronize");
}

}  // namespace hal_amd
