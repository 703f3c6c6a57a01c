// Plans of the random module (kernels/random.cl): UNIFORM and NORMAL into float32 tensors of any strides, with the
// scalars adapter.h gives them: (from, to) or (mean, std), then the generator's seed and offset; DROPOUT and its
// backward on flat dense float32 operands (adapter_ops.def), a work-item per four elements or per element.
#include <cmath>

#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {

namespace {

// One flat dense operand of n elements, of dtype `dtype`.
bool flat(const hal_tensor_t& t, int64_t n, hal_gpu::DType dtype) {
  return hal_gpu::dtype_of(t.dtype) == dtype && t.ndim == 1 && t.shape[0] == n && (n <= 1 || t.strides[0] == 1) &&
         t.data != nullptr;
}

hal_status_t plan_dropout(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                          int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                          std::vector<Launch>* launches) {
  const bool forward = op == HAL_OP_DROPOUT;
  if (num_inputs != (forward ? 1 : 2) || num_outputs != (forward ? 2 : 1) || scalars == nullptr ||
      num_scalars < (forward ? 3 : 1) || inputs[0].ndim != 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = inputs[0].shape[0];
  const hal_tensor_t& out = outputs[0];
  const hal_tensor_t& mask = forward ? outputs[1] : inputs[1];
  using hal_gpu::DType;
  if (n == 0) return HAL_STATUS_SUCCESS;
  if (!flat(inputs[0], n, DType::F32) || !flat(out, n, DType::F32) || !flat(mask, n, DType::Bool)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  Launch l = launch_of(Module::Random, forward ? "dropout_f32" : "dropout_backward_f32");
  add_pointer(&l, inputs[0], nullptr);
  add_pointer(&l, forward ? out : mask, nullptr);
  add_pointer(&l, forward ? mask : out, nullptr);
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  if (forward) {
    const double p_keep = scalar_as_double(scalars[0]);
    l.args.push_back(KernelArg::of_value(static_cast<float>(p_keep)));
    l.args.push_back(KernelArg::of_value(static_cast<float>(1.0 / p_keep)));
    l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(scalar_as_int(scalars[1]))));  // seed
    l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(scalar_as_int(scalars[2]))));  // offset
    l.global[0] = round_up(static_cast<size_t>((n + 3) / 4), 64);
  } else {
    l.args.push_back(KernelArg::of_value(static_cast<float>(scalar_as_double(scalars[0]))));
    l.global[0] = round_up(static_cast<size_t>(n), 64);
  }
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

hal_status_t plan_random(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                         int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                         std::vector<Launch>* launches) {
  if (op == HAL_OP_DROPOUT || op == HAL_OP_DROPOUT_BACKWARD) {
    return plan_dropout(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, launches);
  }
  if (op != HAL_OP_UNIFORM && op != HAL_OP_NORMAL) return HAL_STATUS_NOT_SUPPORTED;
  if (num_inputs != 0 || num_outputs != 1 || scalars == nullptr || num_scalars < 4) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (!is_float32_tensor(out)) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  Launch l;
  if (!output_walk(Module::Random, "random_f32", out, n, &l)) return HAL_STATUS_NOT_SUPPORTED;
  const double a = scalar_as_double(scalars[0]), b = scalar_as_double(scalars[1]);
  // The uniform kernel compares in float: with the smallest float >= b it rejects exactly the draws that reach b
  // in double, as the CUDA and HIP kernels test them.
  float b_ceiling = static_cast<float>(b);
  if (static_cast<double>(b_ceiling) < b) b_ceiling = std::nextafter(b_ceiling, INFINITY);
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(scalar_as_int(scalars[2]))));  // seed
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(scalar_as_int(scalars[3]))));  // offset
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op == HAL_OP_UNIFORM ? 0 : 1)));
  l.args.push_back(KernelArg::of_value(static_cast<float>(a)));
  l.args.push_back(KernelArg::of_value(static_cast<float>(b)));
  l.args.push_back(KernelArg::of_value(b_ceiling));
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
