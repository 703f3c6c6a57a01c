// AMP_UPDATE_SCALE: GradScaler's update of its loss scale after a step, on the device (one thread), so the
// step never waits for found_inf on the host. The rule is CUDA's _amp_update_scale_ (adapter.h).

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"
#include "kernels/op_call.h"

namespace hal_gpu {
namespace {

__global__ void update_scale_kernel(float* scale, int32_t* growth_tracker, const float* found_inf, double growth,
                                    double backoff, int64_t growth_interval) {
  if (*found_inf != 0.f) {
    *scale = static_cast<float>(*scale * backoff);
    *growth_tracker = 0;
    return;
  }
  const int32_t successful = *growth_tracker + 1;
  if (successful == growth_interval) {
    const float grown = static_cast<float>(*scale * growth);
    if (isfinite(grown)) *scale = grown;
    *growth_tracker = 0;
  } else {
    *growth_tracker = successful;
  }
}

double as_double(const hal_scalar_t& s) {
  return s.kind == 0 ? s.value.f : s.kind == 1 ? static_cast<double>(s.value.i) : (s.value.b ? 1.0 : 0.0);
}

}  // namespace

hal_status_t launch_amp_scale(const OpCall& call) {
  if (call.op != HAL_OP_AMP_UPDATE_SCALE || call.num_inputs != 1 || call.num_outputs != 2 || call.scalars == nullptr ||
      call.num_scalars < 3) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& found_inf = call.inputs[0];
  const hal_tensor_t& scale = call.outputs[0];
  const hal_tensor_t& tracker = call.outputs[1];
  if (is_scalar_operand(found_inf) || is_absent(found_inf) || is_absent(scale) || is_absent(tracker) ||
      dtype_of(found_inf.dtype) != DType::F32 || dtype_of(scale.dtype) != DType::F32 ||
      dtype_of(tracker.dtype) != DType::I32 || numel(found_inf) != 1 || numel(scale) != 1 || numel(tracker) != 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t interval = call.scalars[2].kind == 1 ? call.scalars[2].value.i
                                                     : static_cast<int64_t>(as_double(call.scalars[2]));
  return launch_kernel<update_scale_kernel>("AMP scale update", call.device, 1, 1, 0, call.stream,
                                            reinterpret_cast<float*>(element0(scale)),
                                            reinterpret_cast<int32_t*>(element0(tracker)),
                                            reinterpret_cast<const float*>(element0(found_inf)),
                                            as_double(call.scalars[0]), as_double(call.scalars[1]), interval);
}

}  // namespace hal_gpu
