// Plans of the triangular module (kernels/triangular.cl): TRIL and TRIU of any dtype over any strides, in place or
// not, as triangular.cu takes them.
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_triangular(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                             int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                             std::vector<Launch>* launches) {
  if (num_inputs != 1 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &in = inputs[0], &out = outputs[0];
  if (in.data == nullptr || out.data == nullptr || in.ndim < 2 || !same_shape(in, out)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_gpu::DType dtype = hal_gpu::dtype_of(out.dtype);
  if (dtype == hal_gpu::DType::Unsupported || hal_gpu::dtype_of(in.dtype) != dtype) return HAL_STATUS_NOT_SUPPORTED;
  const char* kernel = nullptr;
  switch (hal_gpu::dtype_size(dtype)) {
    case 1: kernel = "triangle_b1"; break;
    case 2: kernel = "triangle_b2"; break;
    case 4: kernel = "triangle_b4"; break;
    case 8: kernel = "triangle_b8"; break;
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  StridedLayout layout{};
  const int64_t* strides[2] = {out.strides, in.strides};
  if (!merge_dims(out.shape, out.ndim, strides, 2, layout.size, layout.stride, &layout.ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // The very same tensor (adapter.h: outputs overlap inputs only that way).
  bool in_place = hal_gpu::element0(in) == hal_gpu::element0(out);
  for (int32_t d = 0; in_place && d < in.ndim; ++d) in_place = in.strides[d] == out.strides[d];
  // Arguments: (out, in, layout, n, rows, cols, diagonal, upper, in_place).
  Launch l = launch_of(Module::Triangular, kernel);
  add_pointer(&l, out, nullptr);
  add_pointer(&l, in, nullptr);
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(out.shape[out.ndim - 2]));
  l.args.push_back(KernelArg::of_value(out.shape[out.ndim - 1]));
  l.args.push_back(KernelArg::of_value(scalar_as_int(scalars[0])));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op == HAL_OP_TRIU)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(in_place)));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
