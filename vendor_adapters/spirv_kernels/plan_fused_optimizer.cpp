// Plans of the fused optimizer module (kernels/fused_optimizer.cl): FUSED_ADAM and FUSED_SGD on float32, one launch
// per parameter (a group of adapter_ops.def's operands), in the group order, on the one in-order queue. Absent
// optional operands (a device learning rate, GradScaler's scale and found_inf, max_exp_avg_sq, the momentum
// buffer) get a stand-in pointer, which the kernel reads but does not use.
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

bool absent(const hal_tensor_t& t) { return hal_gpu::is_absent(t); }

// One float32 element on the device: a step count, a device learning rate, the scale, found_inf.
bool one_float(const hal_tensor_t& t) { return is_float32_tensor(t) && hal_gpu::numel(t) == 1; }

// A tensor of a group: float32, the parameter's shape, contiguous where it has elements.
bool group_tensor(const hal_tensor_t& t, const hal_tensor_t& param) {
  return is_float32(t) && t.ndim >= 0 && same_shape(t, param) &&
         (hal_gpu::numel(t) == 0 || (t.data != nullptr && hal_gpu::is_contiguous(t)));
}

// The shared inputs (lr, grad_scale, found_inf): each absent or one float32 element.
bool shared_inputs(const hal_tensor_t* inputs) {
  for (int k = 0; k < 3; ++k) {
    if (!absent(inputs[k]) && !one_float(inputs[k])) return false;
  }
  return true;
}

void add_shared_pointers(Launch* l, const hal_tensor_t* inputs, const void* stand_in) {
  for (int k = 0; k < 3; ++k) add_pointer(l, inputs[k], stand_in);
}

size_t work_items(int64_t n) { return round_up(static_cast<size_t>(n), 64); }

}  // namespace

hal_status_t plan_fused_optimizer(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                                  const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                                  int32_t num_scalars, std::vector<Launch>* launches) {
  const bool adam = op == HAL_OP_FUSED_ADAM;
  const int per_group = adam ? 5 : 3;
  if (num_outputs % per_group != 0 || num_inputs < 3 || scalars == nullptr || num_scalars < (adam ? 8 : 7)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int groups = num_outputs / per_group;
  if (num_inputs != 3 + (adam ? groups : 0) || !shared_inputs(inputs)) return HAL_STATUS_NOT_SUPPORTED;
  // Every group is checked before anything is planned: a refusal leaves nothing half done.
  for (int g = 0; g < groups; ++g) {
    const hal_tensor_t* t = outputs + g * per_group;
    for (int k = 0; k < per_group; ++k) {
      const bool optional = k == per_group - 1;
      if (!(optional && absent(t[k])) && !group_tensor(t[k], t[0])) return HAL_STATUS_NOT_SUPPORTED;
    }
    if (adam && (!one_float(inputs[3 + g]) || (scalar_as_int(scalars[5]) != 0) == absent(t[4]))) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
  }
  for (int g = 0; g < groups; ++g) {
    const hal_tensor_t* t = outputs + g * per_group;
    const int64_t n = hal_gpu::numel(t[0]);
    if (n == 0) continue;
    const void* stand_in = hal_gpu::element0(t[0]);
    Launch l = launch_of(Module::FusedOptimizer, adam ? "fused_adam_f32" : "fused_sgd_f32");
    for (int k = 0; k < per_group; ++k) add_pointer(&l, t[k], stand_in);
    if (adam) add_pointer(&l, inputs[3 + g], stand_in);
    add_shared_pointers(&l, inputs, stand_in);
    if (adam) {
      FusedAdamArgs a{};
      a.n = n;
      a.lr = static_cast<float>(scalar_as_double(scalars[0]));
      a.beta1 = static_cast<float>(scalar_as_double(scalars[1]));
      a.beta2 = static_cast<float>(scalar_as_double(scalars[2]));
      a.weight_decay = static_cast<float>(scalar_as_double(scalars[3]));
      a.eps = static_cast<float>(scalar_as_double(scalars[4]));
      a.amsgrad = scalar_as_int(scalars[5]) != 0;
      a.maximize = scalar_as_int(scalars[6]) != 0;
      a.decoupled = scalar_as_int(scalars[7]) != 0;
      a.has_device_lr = !absent(inputs[0]);
      a.has_grad_scale = !absent(inputs[1]);
      a.has_found_inf = !absent(inputs[2]);
      l.args.push_back(KernelArg::of_value(a));
    } else {
      FusedSgdArgs a{};
      a.n = n;
      a.lr = static_cast<float>(scalar_as_double(scalars[0]));
      a.weight_decay = static_cast<float>(scalar_as_double(scalars[1]));
      a.momentum = static_cast<float>(scalar_as_double(scalars[2]));
      a.dampening = static_cast<float>(scalar_as_double(scalars[3]));
      a.nesterov = scalar_as_int(scalars[4]) != 0;
      a.maximize = scalar_as_int(scalars[5]) != 0;
      a.is_first_step = scalar_as_int(scalars[6]) != 0;
      a.has_momentum = !absent(t[2]);
      a.has_device_lr = !absent(inputs[0]);
      a.has_grad_scale = !absent(inputs[1]);
      a.has_found_inf = !absent(inputs[2]);
      l.args.push_back(KernelArg::of_value(a));
    }
    l.global[0] = work_items(n);
    launches->push_back(l);
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
