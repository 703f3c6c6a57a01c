#include "streams_events.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "adapter_state.h"
#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {
namespace {

// SUCCESS, NOT_READY (without touching the thread's error message: not ready is an answer), or an error.
// The runtime may still record cudaErrorNotReady as the thread's last error; it is cleared so that the next
// runtime call does not report it again.
hal_status_t not_ready() {
  (void)cudaGetLastError();
  return HAL_STATUS_NOT_READY;
}

hal_status_t query_result(cudaError_t error, const char* what) {
  if (error == cudaErrorNotReady) return not_ready();
  return check(error, what);
}

}  // namespace

hal_status_t stream_create(int32_t device, int32_t priority, hal_stream_t* stream) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // The ABI follows torch.cuda: 0 is normal, lower numbers run first. CUDA numbers the same way within
  // [greatest, least] (e.g. [-5, 0] on H100), so the request is clamped into the device's range.
  int least = 0, greatest = 0;
  if (hal_status_t s = check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  const int cuda_priority = std::clamp<int>(priority, greatest, least);
  // Non-blocking: no implicit ordering with CUDA's legacy NULL stream (see resolve_stream).
  cudaStream_t s = nullptr;
  if (hal_status_t st = check(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, cuda_priority),
                              "cudaStreamCreateWithPriority");
      st != HAL_STATUS_SUCCESS) {
    return st;
  }
  auto handle = std::make_unique<hal_stream_impl>();  // bad_alloc: the table's guard reports it
  handle->stream.reset(s);
  *stream = handle.release();
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_native_handle(int32_t device, hal_stream_t stream, void** handle) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  *handle = s;
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_destroy(int32_t device, hal_stream_t stream) {
  if (!stream) return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // The stream's scratch and GEMM workspace go first: a stream made later may get the same handle.
  DeviceState& d = device_state(device);
  d.scratch.forget(stream->stream.get());
  d.blas.forget(stream->stream.get());
  // CUDA lets queued work finish after cudaStreamDestroy returns, as the ABI requires.
  const cudaError_t error = cudaStreamDestroy(stream->stream.release());
  delete stream;
  return check(error, "cudaStreamDestroy");
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return query_result(cudaStreamQuery(s), "cudaStreamQuery");
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  // The event may come from another device: CUDA orders across devices. An event never recorded is
  // complete, so waiting for it is a no-op (the ABI's and CUDA's rule alike).
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return check(cudaStreamWaitEvent(s, event->event.get(), 0), "cudaStreamWaitEvent");
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  const bool timing = (flags & HAL_EVENT_FLAG_TIMING) != 0;
  // Timing costs a timestamp write per record and slows cudaStreamWaitEvent; only asked-for events pay it.
  cudaEvent_t e = nullptr;
  if (hal_status_t s = check(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
                             "cudaEventCreateWithFlags");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  auto handle = std::make_unique<hal_event_impl>();
  handle->event.reset(e);
  handle->timing = timing;
  *event = handle.release();
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_destroy(int32_t device, hal_event_t event) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  const cudaError_t error = cudaEventDestroy(event->event.release());
  delete event;
  return check(error, "cudaEventDestroy");
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  cudaStream_t s = nullptr;
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  if (hal_status_t st = resolve_stream(device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
  return check(cudaEventRecord(event->event.get(), s), "cudaEventRecord");
}

hal_status_t event_query(int32_t device, hal_event_t event) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return query_result(cudaEventQuery(event->event.get()), "cudaEventQuery");
}

hal_status_t event_synchronize(int32_t device, hal_event_t event) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  return check(cudaEventSynchronize(event->event.get()), "cudaEventSynchronize");
}

hal_status_t event_elapsed_ms(int32_t device, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  const cudaError_t error = cudaEventElapsedTime(ms, start->event.get(), end->event.get());
  if (error == cudaErrorNotReady) {
    (void)not_ready();
    return fail(HAL_STATUS_NOT_READY, "event_elapsed_ms: an event has not completed yet");
  }
  if (error == cudaErrorInvalidResourceHandle) {
    (void)cudaGetLastError();
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first, on one device");
  }
  return check(error, "cudaEventElapsedTime");
}

hal_status_t device_synchronize(int32_t device) {
  if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
  // Waits for every stream of the device in this process, PyTorch's own CUDA streams included.
  return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

hal_status_t resolve_stream(int32_t device, hal_stream_t stream, cudaStream_t* out) {
  if (stream) {
    *out = stream->stream.get();
    return HAL_STATUS_SUCCESS;
  }
  DeviceState& d = device_state(device);
  if (cudaStream_t s = d.default_stream_handle.load(std::memory_order_acquire)) {
    *out = s;
    return HAL_STATUS_SUCCESS;
  }
  // hal's default stream is a stream of its own, not CUDA's legacy NULL stream: that one waits for, and
  // holds up, every blocking stream of the device in the whole process (PyTorch's included). Non-blocking
  // also keeps it independent of the legacy stream; ordering with other hal streams is the core's job
  // (events), as it is for torch.cuda's streams.
  std::lock_guard<std::mutex> lock(d.default_stream_mutex);
  if (!d.default_stream) {
    if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
    cudaStream_t s = nullptr;
    if (hal_status_t st = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating the default stream");
        st != HAL_STATUS_SUCCESS) {
      return st;
    }
    d.default_stream.reset(s);
    d.default_stream_handle.store(s, std::memory_order_release);
  }
  *out = d.default_stream.get();
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_nvidia
