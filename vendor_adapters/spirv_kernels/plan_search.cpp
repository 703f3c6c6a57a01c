// Plans of the search module (kernels/search.cl): SEARCHSORTED of float32 or int64 sorted lines and values (with
// or without a sorter) into int64 or int32 positions, any strides; other dtypes are NOT_SUPPORTED.
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_search(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                         int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                         std::vector<Launch>* launches) {
  if (op != HAL_OP_SEARCHSORTED || num_inputs != 3 || num_outputs != 1 || scalars == nullptr || num_scalars < 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t &sorted = inputs[0], &sorter = inputs[1], &values = inputs[2], &out = outputs[0];
  const bool has_sorter = !hal_gpu::is_absent(sorter);
  if (sorted.data == nullptr || values.data == nullptr || out.data == nullptr || sorted.ndim < 1 ||
      values.ndim != sorted.ndim || !same_shape(values, out) || (has_sorter && !same_shape(sorter, sorted))) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_gpu::DType dtype = hal_gpu::dtype_of(sorted.dtype), out_dtype = hal_gpu::dtype_of(out.dtype);
  if ((dtype != hal_gpu::DType::F32 && dtype != hal_gpu::DType::I64) || hal_gpu::dtype_of(values.dtype) != dtype ||
      (out_dtype != hal_gpu::DType::I64 && out_dtype != hal_gpu::DType::I32) ||
      (has_sorter && hal_gpu::dtype_of(sorter.dtype) != hal_gpu::DType::I64)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_tensor_t& order = has_sorter ? sorter : sorted;
  // The lines: every dim but the last, with each operand's strides there (sorted and values agree on them).
  const int32_t last = sorted.ndim - 1;
  int64_t line_shape[HAL_MAX_DIMS], strides[4][HAL_MAX_DIMS];
  int32_t line_ndim = 0;
  for (int32_t d = 0; d < last; ++d) {
    if (values.shape[d] != sorted.shape[d]) return HAL_STATUS_NOT_SUPPORTED;
    line_shape[line_ndim] = sorted.shape[d];
    strides[0][line_ndim] = sorted.strides[d];
    strides[1][line_ndim] = order.strides[d];
    strides[2][line_ndim] = values.strides[d];
    strides[3][line_ndim] = out.strides[d];
    ++line_ndim;
  }
  const int64_t length = sorted.shape[last], count = values.shape[last];
  int64_t lines = 1;
  for (int32_t d = 0; d < line_ndim; ++d) lines *= line_shape[d];
  if (lines == 0 || count == 0) return HAL_STATUS_SUCCESS;
  StridedLayout layout{};
  const int64_t* operand_strides[4] = {strides[0], strides[1], strides[2], strides[3]};
  if (line_ndim == 0) {  // one line: a single merged dim of size 1
    layout.ndim = 1;
    layout.size[0] = 1;
  } else if (!merge_dims(line_shape, line_ndim, operand_strides, 4, layout.size, layout.stride, &layout.ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // Arguments: (sorted, sorter, values, out, layout, lines, length, count, sorted_step, sorter_step, value_step,
  // out_step, right, has_sorter, out_int32); without a sorter, sorted's pointer stands in for it (never read).
  Launch l = launch_of(Module::Search, dtype == hal_gpu::DType::F32 ? "search_f32" : "search_i64");
  add_pointer(&l, sorted, nullptr);
  add_pointer(&l, order, nullptr);
  add_pointer(&l, values, nullptr);
  add_pointer(&l, out, nullptr);
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(lines)));
  l.args.push_back(KernelArg::of_value(length));
  l.args.push_back(KernelArg::of_value(count));
  l.args.push_back(KernelArg::of_value(sorted.strides[last]));
  l.args.push_back(KernelArg::of_value(order.strides[last]));
  l.args.push_back(KernelArg::of_value(values.strides[last]));
  l.args.push_back(KernelArg::of_value(out.strides[last]));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(hal_gpu::scalar_true(scalars[0]))));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(has_sorter)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(out_dtype == hal_gpu::DType::I32)));
  l.global[0] = static_cast<size_t>(lines * count);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
