#include "adapter_state.h"

namespace hal_opencl {

std::unique_ptr<State> g_state;

hal_status_t fail(hal_status_t status, std::string message) {
  return hal_abi_boundary::record_failure(status, "opencl: " + std::move(message));
}

hal_status_t cl_fail(const char* what, cl_int code) {
  const hal_status_t status = code == CL_OUT_OF_HOST_MEMORY ? HAL_STATUS_OUT_OF_HOST_MEMORY
                              : code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES
                                  ? HAL_STATUS_OUT_OF_DEVICE_MEMORY
                                  : HAL_STATUS_DEVICE_ERROR;
  return fail(status, std::string(what) + " failed: " + cl_error_name(code));
}

hal_status_t submitted(const char* what, cl_int code, cl_command_queue queue) {
  if (code != CL_SUCCESS) return cl_fail(what, code);
  if (cl_int flushed = cl().Flush(queue); flushed != CL_SUCCESS) return cl_fail("clFlush", flushed);
  return HAL_STATUS_SUCCESS;
}

cl_command_queue new_queue(const OpenClApi& api, const Device& d, cl_int* error) {
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  return api.CreateCommandQueueWithProperties(d.context, d.info.id, properties, error);
}

hal_status_t finish_all(Device& d) {
  std::vector<cl_command_queue> queues{d.default_queue};
  for (hal_stream_t s : d.records.streams()) queues.push_back(s->queue);
  for (cl_command_queue q : queues) {
    if (cl_int e = cl().Finish(q); e != CL_SUCCESS) return cl_fail("clFinish", e);
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_opencl
