// Plans of the batch norm module (kernels/batch_norm.cl): BATCH_NORM and BATCH_NORM_BACKWARD in float32 (x, its
// parameters and saved statistics), channels-first or channels-last; the problem is read by the kernel library's
// read_batch_norm(), as the CUDA and HIP launch reads it. One launch: a work-group per channel.
#include "kernels/batch_norm_geometry.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(BatchNormShape) == 72, "BatchNormShape must match kernels/kernel_layouts.h as the kernels see it");

constexpr size_t kMaxGroup = 256;

// A present operand of float32, or an absent one.
bool is_float32_or_absent(const hal_tensor_t& t) { return hal_gpu::is_absent(t) || is_float32(t); }

}  // namespace

hal_status_t plan_batch_norm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                             int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                             std::vector<Launch>* launches) {
  hal_gpu::BatchNormProblem p;
  const char* why = nullptr;
  if (!hal_gpu::read_batch_norm(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &p, &why)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (p.C == 0 || (p.backward && !p.want_dx && !p.need_sums)) return HAL_STATUS_SUCCESS;
  if (p.dtype != hal_gpu::DType::F32) return HAL_STATUS_NOT_SUPPORTED;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (!is_float32_or_absent(inputs[i])) return HAL_STATUS_NOT_SUPPORTED;  // mixed precision parameters
  }
  for (int32_t i = 0; i < num_outputs; ++i) {
    if (!is_float32_or_absent(outputs[i])) return HAL_STATUS_NOT_SUPPORTED;
  }
  BatchNormShape s{};
  s.n = p.N;
  s.c = p.C;
  s.s = p.S;
  s.momentum = static_cast<float>(p.momentum);
  s.eps = static_cast<float>(p.eps);
  s.flags = (p.training ? kBatchNormTraining : 0) | (p.channels_last ? kBatchNormChannelsLast : 0) |
            (p.want_dx ? kBatchNormDx : 0);
  // The [C] parameters, in the kernels' order: forward weight, bias and the running statistics (the outputs' in
  // training: the same tensors, updated in place); backward weight, dweight, dbias.
  const hal_tensor_t* params[4] = {&inputs[p.backward ? 2 : 1], nullptr, nullptr, nullptr};
  if (p.backward) {
    params[1] = &outputs[1];
    params[2] = &outputs[2];
  } else {
    params[1] = &inputs[2];
    params[2] = p.training ? &outputs[3] : &inputs[3];
    params[3] = p.training ? &outputs[4] : &inputs[4];
  }
  for (int k = 0; k < 4; ++k) {
    if (params[k] == nullptr || hal_gpu::is_absent(*params[k])) continue;
    s.flags |= kBatchNormParam0 << k;
    s.param_stride[k] = params[k]->strides[0];
  }
  const void* stand_in = hal_gpu::element0(inputs[p.backward ? 1 : 0]);  // x: for absent operands, never read
  Launch l = launch_of(Module::BatchNorm, p.backward ? "batch_norm_backward_f32" : "batch_norm_f32");
  if (p.backward) {
    // (dy, x, weight, mean, invstd, dx, dweight, dbias)
    for (int32_t i = 0; i < 5; ++i) add_pointer(&l, inputs[i], stand_in);
    for (int32_t i = 0; i < 3; ++i) add_pointer(&l, outputs[i], stand_in);
  } else {
    // (x, y, weight, bias, running_mean, running_var, save_mean, save_invstd)
    add_pointer(&l, inputs[0], stand_in);
    add_pointer(&l, outputs[0], stand_in);
    for (int k = 0; k < 4; ++k) add_pointer(&l, *params[k], stand_in);
    add_pointer(&l, outputs[1], stand_in);
    add_pointer(&l, outputs[2], stand_in);
  }
  l.args.push_back(KernelArg::of_value(s));
  const size_t group = pow2_at_least(p.R, kMaxGroup);
  l.global[0] = static_cast<size_t>(p.C) * group;
  l.local[0] = group;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
