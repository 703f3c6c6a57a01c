// Plans of the loss module (kernels/loss.cl): NLL_LOSS and NLL_LOSS_BACKWARD for floating logp [N, C] or [C] (any
// strides; float64's kernels are float64.cl's), int64 targets, optional class weights, loss, total weight and
// gradients of logp's dtype.
#include "kernels/nll_rules.cuh"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(NllShape) == 96, "NllShape must match kernels/kernel_layouts.h as the kernels see it");

constexpr size_t kReduceGroup = 256;

using hal_gpu::DType;

// A tensor in memory of dtype d.
bool is_tensor_of(const hal_tensor_t& t, DType d) {
  return t.data != nullptr && t.ndim >= 0 && hal_gpu::dtype_of(t.dtype) == d;
}

// The kernels of logp's dtype (loss_kernels.h's suffixes): none, reduce, backward; false for other dtypes.
bool kernels_of(DType d, const char* const** names) {
  static constexpr const char* kNames[4][3] = {
      {"nll_loss_none_f32", "nll_loss_reduce_f32", "nll_loss_backward_f32"},
      {"nll_loss_none_f16", "nll_loss_reduce_f16", "nll_loss_backward_f16"},
      {"nll_loss_none_bf16", "nll_loss_reduce_bf16", "nll_loss_backward_bf16"},
      {"nll_loss_none_f64", "nll_loss_reduce_f64", "nll_loss_backward_f64"}};
  const int type = floating_index(d);
  if (type < 0) return false;
  *names = kNames[type];
  return true;
}

// The shape of logp (inputs[at]), target and weight, as loss.cu reads them; false for what the kernels do not take.
bool describe(const hal_tensor_t* inputs, int at, DType d, NllShape* s) {
  const hal_tensor_t& logp = inputs[at];
  const hal_tensor_t& target = inputs[at + 1];
  const hal_tensor_t& weight = inputs[at + 2];
  if (!is_tensor_of(logp, d) || (logp.ndim != 1 && logp.ndim != 2)) return false;
  if (target.data == nullptr || hal_gpu::dtype_of(target.dtype) != hal_gpu::DType::I64) return false;
  s->n = logp.ndim == 2 ? logp.shape[0] : 1;
  s->c = logp.shape[logp.ndim - 1];
  if (target.ndim != logp.ndim - 1 || (logp.ndim == 2 && target.shape[0] != s->n)) return false;
  s->logp_row = logp.ndim == 2 ? logp.strides[0] : 0;
  s->logp_class = logp.strides[logp.ndim - 1];
  s->target = target.ndim == 1 ? target.strides[0] : 0;
  if (!hal_gpu::is_absent(weight)) {
    if (!is_tensor_of(weight, d) || weight.ndim != 1 || weight.shape[0] != s->c) return false;
    s->has_weight = 1;
    s->weight = weight.strides[0];
  }
  return true;
}

hal_status_t forward(DType d, const char* const* kernels, const hal_tensor_t* inputs, const hal_tensor_t* outputs,
                     int32_t num_outputs, NllShape s, std::vector<Launch>* launches) {
  const hal_tensor_t& loss = outputs[0];
  const bool none = s.reduction == hal_gpu::nll::kNone;
  const int64_t expected = none ? s.n : 1;
  if (!is_tensor_of(loss, d) || loss.ndim > 1 || hal_gpu::numel(loss) != expected) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t* total = num_outputs > 1 && !hal_gpu::is_absent(outputs[1]) ? &outputs[1] : nullptr;
  if (total != nullptr && (!is_tensor_of(*total, d) || hal_gpu::numel(*total) != 1)) return HAL_STATUS_NOT_SUPPORTED;
  s.has_total_weight = total != nullptr;
  s.out = none && loss.ndim == 1 ? loss.strides[0] : 0;
  if (none && s.n == 0 && total == nullptr) return HAL_STATUS_SUCCESS;
  const void* loss0 = hal_gpu::element0(loss);
  Launch l = launch_of(module_for(d, Module::Loss), none ? kernels[0] : kernels[1]);
  add_pointer(&l, inputs[0], loss0);
  add_pointer(&l, inputs[1], loss0);
  add_pointer(&l, inputs[2], loss0);  // weight, or a stand-in when absent (has_weight == 0)
  add_pointer(&l, loss, nullptr);
  l.args.push_back(KernelArg::of_pointer(total != nullptr ? hal_gpu::element0(*total) : loss0));
  l.args.push_back(KernelArg::of_value(s));
  if (none) {
    l.global[0] = static_cast<size_t>(s.n > 0 ? s.n : 1);  // work-item 0 writes total_weight
  } else {
    l.global[0] = kReduceGroup;  // one work-group sums every sample in a fixed order
    l.local[0] = kReduceGroup;
  }
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

hal_status_t backward(DType d, const char* const* kernels, const hal_tensor_t* inputs, const hal_tensor_t* outputs,
                      NllShape s, std::vector<Launch>* launches) {
  const hal_tensor_t& grad_loss = inputs[0];
  const hal_tensor_t& total = inputs[4];
  const hal_tensor_t& grad = outputs[0];
  const bool none = s.reduction == hal_gpu::nll::kNone;
  if (!is_tensor_of(grad, d) || !same_shape(grad, inputs[1])) return HAL_STATUS_NOT_SUPPORTED;
  if (!is_tensor_of(grad_loss, d) || hal_gpu::numel(grad_loss) != (none ? s.n : 1)) return HAL_STATUS_NOT_SUPPORTED;
  if (s.reduction == hal_gpu::nll::kMean && (!is_tensor_of(total, d) || hal_gpu::numel(total) != 1)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (s.n * s.c == 0) return HAL_STATUS_SUCCESS;
  s.out = none && grad_loss.ndim == 1 ? grad_loss.strides[0] : 0;
  s.grad_row = grad.ndim == 2 ? grad.strides[0] : 0;
  s.grad_class = grad.strides[grad.ndim - 1];
  const void* grad0 = hal_gpu::element0(grad);
  Launch l = launch_of(module_for(d, Module::Loss), kernels[2]);
  add_pointer(&l, grad_loss, grad0);
  add_pointer(&l, inputs[2], grad0);
  add_pointer(&l, inputs[3], grad0);  // weight, or a stand-in when absent
  add_pointer(&l, total, grad0);      // read for reduction mean only
  add_pointer(&l, grad, nullptr);
  l.args.push_back(KernelArg::of_value(s));
  l.dims = 2;
  l.global[0] = static_cast<size_t>(s.c);  // a work-item per element of grad_logp, written in full
  l.global[1] = static_cast<size_t>(s.n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

hal_status_t plan_nll_loss(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                           int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                           std::vector<Launch>* launches) {
  const bool is_backward = op == HAL_OP_NLL_LOSS_BACKWARD;
  if ((is_backward ? (num_inputs != 5 || num_outputs != 1) : (num_inputs != 3 || num_outputs < 1)) ||
      scalars == nullptr || num_scalars < 2) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  NllShape s{};
  s.reduction = scalar_as_int(scalars[0]);
  s.ignore_index = scalar_as_int(scalars[1]);
  if (s.reduction < hal_gpu::nll::kNone || s.reduction > hal_gpu::nll::kSum) return HAL_STATUS_NOT_SUPPORTED;
  const DType d = hal_gpu::dtype_of(inputs[is_backward ? 1 : 0].dtype);
  const char* const* kernels = nullptr;
  if (!kernels_of(d, &kernels) || !describe(inputs, is_backward ? 1 : 0, d, &s)) return HAL_STATUS_NOT_SUPPORTED;
  return is_backward ? backward(d, kernels, inputs, outputs, s, launches)
                     : forward(d, kernels, inputs, outputs, num_outputs, s, launches);
}

}  // namespace hal_spirv::detail
