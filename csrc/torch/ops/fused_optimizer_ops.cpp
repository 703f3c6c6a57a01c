// torch._fused_adam_, _fused_adamw_ and _fused_sgd_ (what `torch.optim.Adam/AdamW/SGD(fused=True)` call) as one
// launch of HAL_OP_FUSED_ADAM or HAL_OP_FUSED_SGD over every parameter, with the learning rate (a float or a
// tensor), the step counts, GradScaler's scale and found_inf read on the device, as torch.cuda's fused
// optimizers do. Outside what the kernel takes (tensors of several dtypes, non-dense state, step counts on
// the CPU), the op takes its usual route, which also raises ATen's errors for bad arguments.
#include <torch/library.h>

#include <initializer_list>
#include <optional>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// One element of a floating dtype on `device`: a step count or a device learning rate.
bool one_floating_value(const at::Tensor& t, const at::Device& device) {
  return t.defined() && t.device() == device && t.numel() == 1 && t.layout() == at::kStrided &&
         floating_in_abi(t.scalar_type());
}
// GradScaler's scale and found_inf: absent, or one float32 element on `device`.
bool scaler_operand(const std::optional<at::Tensor>& t, const at::Device& device) {
  return !t.has_value() || !t->defined() ||
         (t->device() == device && t->numel() == 1 && t->scalar_type() == at::kFloat && t->layout() == at::kStrided);
}
void scaler_input(KernelArgs& args, const std::optional<at::Tensor>& t) {
  if (t.has_value() && t->defined()) args.input(*t);
  else args.absent_input();
}

// The learning rate as the kernel reads it: a device tensor, or a number (a CPU tensor's value, or the float
// overload's).
struct LearningRate {
  const at::Tensor* device_tensor = nullptr;
  double value = 0;
};
std::optional<LearningRate> learning_rate(const at::Tensor& lr, const at::Device& device) {
  if (lr.device().is_cpu() && lr.numel() == 1) return LearningRate{nullptr, lr.item<double>()};
  if (one_floating_value(lr, device)) return LearningRate{&lr, 0};
  return std::nullopt;
}

// The lists of one fused step: every tensor dense, on the parameters' device and of their dtype, each group
// of one shape; `optional` lists may be empty. nullopt where the kernel does not take them.
std::optional<at::Device> step_device(std::initializer_list<at::TensorList> lists,
                                      std::initializer_list<at::TensorList> optional) {
  const at::TensorList params = *lists.begin();
  if (params.empty() || !params[0].defined() || !is_hal(params[0])) return std::nullopt;
  const at::Device device = params[0].device();
  const at::ScalarType dtype = params[0].scalar_type();
  if (!floating_in_abi(dtype)) return std::nullopt;
  auto usable = [&](at::TensorList list) {
    for (size_t g = 0; g < list.size(); ++g) {
      const at::Tensor& t = list[g];
      if (!t.defined() || t.device() != device || t.scalar_type() != dtype || t.layout() != at::kStrided ||
          !t.is_contiguous() || t.is_neg() || t.is_conj() || t.sizes() != params[g].sizes()) {
        return false;
      }
    }
    return true;
  };
  for (at::TensorList list : lists) {
    if (list.size() != params.size() || !usable(list)) return std::nullopt;
  }
  for (at::TensorList list : optional) {
    if (!list.empty() && (list.size() != params.size() || !usable(list))) return std::nullopt;
  }
  return device;
}

void bump_versions(std::initializer_list<at::TensorList> lists) {
  for (at::TensorList list : lists) {
    for (const at::Tensor& t : list) t.unsafeGetTensorImpl()->bump_version();
  }
}

bool adam(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
          at::TensorList max_exp_avg_sqs, at::TensorList steps, const at::Tensor* lr_tensor, double lr, double beta1,
          double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
          const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf, bool decoupled) {
  if (params.empty()) return true;
  const auto device = step_device({params, grads, exp_avgs, exp_avg_sqs}, {max_exp_avg_sqs});
  if (!device.has_value() || amsgrad != !max_exp_avg_sqs.empty() || steps.size() != params.size()) return false;
  if (!scaler_operand(grad_scale, *device) || !scaler_operand(found_inf, *device)) return false;
  std::optional<LearningRate> rate = lr_tensor != nullptr ? learning_rate(*lr_tensor, *device) : LearningRate{nullptr, lr};
  if (!rate.has_value()) return false;
  const at::ScalarType step_dtype = steps[0].scalar_type();
  for (const at::Tensor& step : steps) {
    if (!one_floating_value(step, *device) || step.scalar_type() != step_dtype) return false;
  }
  KernelArgs args;
  if (rate->device_tensor != nullptr) args.input(*rate->device_tensor);
  else args.absent_input();
  scaler_input(args, grad_scale);
  scaler_input(args, found_inf);
  for (const at::Tensor& step : steps) args.input(step);
  for (size_t g = 0; g < params.size(); ++g) {
    args.output(params[g]).output(grads[g]).output(exp_avgs[g]).output(exp_avg_sqs[g]);
    if (amsgrad) args.output(max_exp_avg_sqs[g]);
    else args.absent_output();
  }
  args.scalar(rate->value).scalar(beta1).scalar(beta2).scalar(weight_decay).scalar(eps).scalar(amsgrad).scalar(
      maximize).scalar(decoupled);
  if (!launch(device->index(), HAL_OP_FUSED_ADAM, args)) return false;
  bump_versions({params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs});
  if (grad_scale.has_value() && grad_scale->defined()) bump_versions({grads});
  return true;
}

// The four Adam overloads: Adam or AdamW, a float or a tensor learning rate.
template <bool kDecoupled>
bool adam_float_lr(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                   at::TensorList max_exp_avg_sqs, at::TensorList steps, double lr, double beta1, double beta2,
                   double weight_decay, double eps, bool amsgrad, bool maximize,
                   const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  return adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, nullptr, lr, beta1, beta2, weight_decay,
              eps, amsgrad, maximize, grad_scale, found_inf, kDecoupled);
}
template <bool kDecoupled>
bool adam_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs, at::TensorList exp_avg_sqs,
                    at::TensorList max_exp_avg_sqs, at::TensorList steps, const at::Tensor& lr, double beta1,
                    double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                    const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  return adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, &lr, 0, beta1, beta2, weight_decay, eps,
              amsgrad, maximize, grad_scale, found_inf, kDecoupled);
}

bool sgd(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers, double weight_decay,
         double momentum, const at::Tensor* lr_tensor, double lr, double dampening, bool nesterov, bool maximize,
         bool is_first_step, const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  if (params.empty()) return true;
  const auto device = step_device({params, grads}, {momentum_buffers});
  if (!device.has_value()) return false;
  if (!scaler_operand(grad_scale, *device) || !scaler_operand(found_inf, *device)) return false;
  std::optional<LearningRate> rate = lr_tensor != nullptr ? learning_rate(*lr_tensor, *device) : LearningRate{nullptr, lr};
  if (!rate.has_value()) return false;
  KernelArgs args;
  if (rate->device_tensor != nullptr) args.input(*rate->device_tensor);
  else args.absent_input();
  scaler_input(args, grad_scale);
  scaler_input(args, found_inf);
  for (size_t g = 0; g < params.size(); ++g) {
    args.output(params[g]).output(grads[g]);
    if (momentum_buffers.empty()) args.absent_output();
    else args.output(momentum_buffers[g]);
  }
  args.scalar(rate->value).scalar(weight_decay).scalar(momentum).scalar(dampening).scalar(nesterov).scalar(
      maximize).scalar(is_first_step);
  if (!launch(device->index(), HAL_OP_FUSED_SGD, args)) return false;
  bump_versions({params, momentum_buffers});
  if (grad_scale.has_value() && grad_scale->defined()) bump_versions({grads});
  return true;
}

bool sgd_float_lr(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers, double weight_decay,
                  double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
                  const std::optional<at::Tensor>& grad_scale, const std::optional<at::Tensor>& found_inf) {
  return sgd(params, grads, momentum_buffers, weight_decay, momentum, nullptr, lr, dampening, nesterov, maximize,
             is_first_step, grad_scale, found_inf);
}
bool sgd_tensor_lr(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers, double weight_decay,
                   double momentum, const at::Tensor& lr, double dampening, bool nesterov, bool maximize,
                   bool is_first_step, const std::optional<at::Tensor>& grad_scale,
                   const std::optional<at::Tensor>& found_inf) {
  return sgd(params, grads, momentum_buffers, weight_decay, momentum, &lr, 0, dampening, nesterov, maximize,
             is_first_step, grad_scale, found_inf);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _fused_adam_, "_fused_adam_", launches(HAL_OP_FUSED_ADAM), adam_float_lr<false>);
  HAL_NATIVE(m, _fused_adam__tensor_lr, "_fused_adam_.tensor_lr", launches(HAL_OP_FUSED_ADAM), adam_tensor_lr<false>);
  HAL_NATIVE(m, _fused_adamw_, "_fused_adamw_", launches(HAL_OP_FUSED_ADAM), adam_float_lr<true>);
  HAL_NATIVE(m, _fused_adamw__tensor_lr, "_fused_adamw_.tensor_lr", launches(HAL_OP_FUSED_ADAM),
             adam_tensor_lr<true>);
  HAL_NATIVE(m, _fused_sgd_, "_fused_sgd_", launches(HAL_OP_FUSED_SGD), sgd_float_lr);
  HAL_NATIVE(m, _fused_sgd__tensor_lr, "_fused_sgd_.tensor_lr", launches(HAL_OP_FUSED_SGD), sgd_tensor_lr);
}

}  // namespace
}  // namespace torch_hal::native
