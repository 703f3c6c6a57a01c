// Plans of the random module (kernels/random.cl): UNIFORM and NORMAL into float32 tensors of any strides, with the
// scalars adapter.h gives them: (from, to) or (mean, std), then the generator's seed and offset.
#include <cmath>

#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_random(hal_op_t op, const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                         int32_t num_scalars, int32_t num_inputs, std::vector<Launch>* launches) {
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
