// Plans of the convolution module (kernels/convolution.cl): HAL_OP_CONVOLUTION and its two backward ops in
// float32, any strides, 1 to 3 spatial dims, groups, stride, padding and dilation; the problem is read by the
// kernel library's read_convolution(), as the CUDA and HIP launch reads it.
#include "kernels/convolution_geometry.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_convolution(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                              int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                              std::vector<Launch>* launches) {
  hal_gpu::ConvLaunch c;
  const char* why = nullptr;
  if (!hal_gpu::read_convolution(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &c, &why) ||
      !is_float32(*c.x)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (c.empty) return HAL_STATUS_SUCCESS;
  const char* kernel = c.direction == hal_gpu::ConvDirection::Forward         ? "convolution_forward_f32"
                       : c.direction == hal_gpu::ConvDirection::BackwardInput ? "convolution_backward_input_f32"
                                                                              : "convolution_backward_weight_f32";
  Launch l = launch_of(Module::Convolution, kernel);
  add_pointer(&l, inputs[0], nullptr);
  add_pointer(&l, inputs[1], nullptr);
  add_pointer(&l, outputs[0], nullptr);
  l.args.push_back(KernelArg::of_value(c.geometry));
  uint32_t blocks[3];
  hal_gpu::convolution_grid(c.geometry, blocks);
  l.dims = 3;
  l.global[0] = static_cast<size_t>(blocks[0]) * hal_gpu::kConvThreads;
  l.global[1] = blocks[1];
  l.global[2] = blocks[2];
  l.local[0] = hal_gpu::kConvThreads;
  l.local[1] = 1;
  l.local[2] = 1;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
