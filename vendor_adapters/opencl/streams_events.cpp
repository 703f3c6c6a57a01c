#include "streams_events.h"

#include <mutex>
#include <string>

#include "adapter_state.h"

namespace hal_opencl {
namespace {

cl_int execution_status(cl_event e, cl_int* status) {
  return cl().GetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(*status), status, nullptr);
}

hal_status_t status_of(cl_event e, const char* what) {
  cl_int status = CL_COMPLETE;
  if (cl_int error = execution_status(e, &status); error != CL_SUCCESS) return cl_fail(what, error);
  if (status < 0) return cl_fail(what, status);  // a command of the queue failed
  return status == CL_COMPLETE ? HAL_STATUS_SUCCESS : HAL_STATUS_NOT_READY;
}

}  // namespace

hal_status_t stream_create(int32_t device, int32_t /*priority*/, hal_stream_t* stream) {
  return guarded("stream_create", [&]() -> hal_status_t {
    Device& d = dev(device);
    cl_int error = CL_SUCCESS;
    cl_command_queue q = new_queue(cl(), d, &error);
    if (error != CL_SUCCESS) return cl_fail("clCreateCommandQueueWithProperties", error);
    auto* s = new hal_stream_impl{device, q};
    d.records.add_stream(s);  // until stream_destroy (../spirv_shell/streams.cpp) or shutdown
    *stream = s;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t release_stream(hal_stream_t stream) {
  cl().ReleaseCommandQueue(stream->queue);  // its commands still complete (OpenCL keeps the queue until then)
  delete stream;
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_synchronize(int32_t device, hal_stream_t stream) {
  if (cl_int e = cl().Finish(stream_of(device, stream)); e != CL_SUCCESS) return cl_fail("clFinish", e);
  return HAL_STATUS_SUCCESS;
}

hal_status_t stream_query(int32_t device, hal_stream_t stream) {
  cl_command_queue q = stream_of(device, stream);
  cl_event marker = nullptr;
  if (cl_int e = cl().EnqueueMarkerWithWaitList(q, 0, nullptr, &marker); e != CL_SUCCESS) {
    return cl_fail("clEnqueueMarkerWithWaitList", e);
  }
  cl().Flush(q);
  const hal_status_t st = status_of(marker, "stream_query");
  cl().ReleaseEvent(marker);
  return st;
}

hal_status_t stream_wait_event(int32_t device, hal_stream_t stream, hal_event_t event) {
  if (event->marker == nullptr) return HAL_STATUS_SUCCESS;  // never recorded: nothing to wait for
  if (event->device != device) {
    // Another device's context: its events cannot enter this queue's wait list, so the host waits.
    if (cl_int e = cl().WaitForEvents(1, &event->marker); e != CL_SUCCESS) return cl_fail("clWaitForEvents", e);
    return HAL_STATUS_SUCCESS;
  }
  cl_command_queue q = stream_of(device, stream);
  return submitted("clEnqueueBarrierWithWaitList", cl().EnqueueBarrierWithWaitList(q, 1, &event->marker, nullptr), q);
}

hal_status_t event_create(int32_t device, hal_event_flags_t flags, hal_event_t* event) {
  return guarded("event_create", [&]() -> hal_status_t {
    *event = new hal_event_impl{device, (flags & HAL_EVENT_FLAG_TIMING) != 0};
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t event_destroy(int32_t /*device*/, hal_event_t event) {
  if (event->marker != nullptr) cl().ReleaseEvent(event->marker);
  delete event;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  cl_command_queue q = stream_of(device, stream);
  cl_event marker = nullptr;
  const cl_int code = cl().EnqueueMarkerWithWaitList(q, 0, nullptr, &marker);
  if (hal_status_t st = submitted("clEnqueueMarkerWithWaitList", code, q)) {
    return st;
  }
  if (event->marker != nullptr) cl().ReleaseEvent(event->marker);
  event->marker = marker;
  event->device = device;
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_query(int32_t /*device*/, hal_event_t event) {
  return event->marker == nullptr ? HAL_STATUS_SUCCESS : status_of(event->marker, "event_query");
}

hal_status_t event_synchronize(int32_t /*device*/, hal_event_t event) {
  if (event->marker == nullptr) return HAL_STATUS_SUCCESS;
  if (cl_int e = cl().WaitForEvents(1, &event->marker); e != CL_SUCCESS) return cl_fail("clWaitForEvents", e);
  return HAL_STATUS_SUCCESS;
}

hal_status_t event_elapsed_ms(int32_t /*device*/, hal_event_t start, hal_event_t end, float* ms) {
  if (!start->timing || !end->timing) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events need HAL_EVENT_FLAG_TIMING");
  }
  if (start->marker == nullptr || end->marker == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "event_elapsed_ms: both events must be recorded first");
  }
  for (hal_event_t e : {start, end}) {
    if (hal_status_t st = status_of(e->marker, "event_elapsed_ms")) {
      return st == HAL_STATUS_NOT_READY ? fail(st, "event_elapsed_ms: an event has not completed yet") : st;
    }
  }
  cl_ulong t0 = 0, t1 = 0;
  cl_int e0 = cl().GetEventProfilingInfo(start->marker, CL_PROFILING_COMMAND_END, sizeof(t0), &t0, nullptr);
  cl_int e1 = cl().GetEventProfilingInfo(end->marker, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr);
  if (e0 != CL_SUCCESS || e1 != CL_SUCCESS) return cl_fail("clGetEventProfilingInfo", e0 != CL_SUCCESS ? e0 : e1);
  *ms = static_cast<float>((static_cast<double>(t1) - static_cast<double>(t0)) / 1e6);
  return HAL_STATUS_SUCCESS;
}

hal_status_t device_synchronize(int32_t device) { return finish_all(dev(device)); }

}  // namespace hal_opencl
