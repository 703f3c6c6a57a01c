// Plans of the convolution module (kernels/convolution.cl): HAL_OP_CONVOLUTION and its two backward ops in
// float32, float16, bfloat16 and float64 (float64.cl's kernels), any strides, 1 to 3 spatial dims, groups, stride,
// padding and dilation; the problem is read by the kernel library's read_convolution(), as the CUDA and HIP launch
// reads it.
#include "kernels/convolution_geometry.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_convolution(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                              int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                              std::vector<Launch>* launches) {
  hal_gpu::ConvLaunch c;
  const char* why = nullptr;
  if (!hal_gpu::read_convolution(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &c, &why)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // By direction (forward, backward input, backward weight) and dtype (float32, float16, bfloat16, float64).
  static constexpr const char* kNames[3][4] = {
      {"convolution_forward_f32", "convolution_forward_f16", "convolution_forward_bf16", "convolution_forward_f64"},
      {"convolution_backward_input_f32", "convolution_backward_input_f16", "convolution_backward_input_bf16",
       "convolution_backward_input_f64"},
      {"convolution_backward_weight_f32", "convolution_backward_weight_f16", "convolution_backward_weight_bf16",
       "convolution_backward_weight_f64"}};
  const hal_gpu::DType d = hal_gpu::dtype_of(c.x->dtype);
  const int type = floating_index(d);
  if (type < 0) return HAL_STATUS_NOT_SUPPORTED;
  if (c.empty) return HAL_STATUS_SUCCESS;
  const int direction = c.direction == hal_gpu::ConvDirection::Forward         ? 0
                        : c.direction == hal_gpu::ConvDirection::BackwardInput ? 1
                                                                               : 2;
  Launch l = launch_of(module_for(d, Module::Convolution), kNames[direction][type]);
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
