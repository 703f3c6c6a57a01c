// Batch norm over the adapter's BATCH_NORM kernels: native_batch_norm, _native_batch_norm_legit (with and
// without running statistics), _batch_norm_with_update and their backward ops (native_batch_norm_backward,
// batch_norm_backward), with ATen's CUDA semantics:
//  - the input keeps its memory format (channels-last stays channels-last; anything else is made dense
//    first) and is seen as [N, C, S] with S the product of the spatial sizes;
//  - save_mean and save_invstd are float32 (float64 for float64 input); in evaluation they hold the running
//    mean and 1 / sqrt(running_var + eps), which the backward then uses;
//  - float16/bfloat16 input may have float32 weight, bias and running statistics (mixed batch norm), or all
//    of its own type; running statistics are updated in place, the variance unbiased.
// Anything else (other dtype mixes, missing running statistics in evaluation, empty training batches) takes
// the op's usual path, which raises ATen's own errors.
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/rsqrt.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;
using Tensors4 = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

at::ScalarType acc_type(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

bool is_kernel_type(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

at::Tensor defined_or_empty(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined() ? *t : at::Tensor();
}

// A [C] parameter of an acceptable dtype for `input` (its own, or float32 for float16/bfloat16 input), or
// undefined.
bool is_parameter(const at::Tensor& p, const at::Tensor& input, int64_t C) {
  if (!p.defined()) return true;
  const at::ScalarType in = input.scalar_type(), t = p.scalar_type();
  const bool type_ok = t == in || (t == at::kFloat && (in == at::kHalf || in == at::kBFloat16));
  return type_ok && p.dim() == 1 && p.size(0) == C;
}

// The input as [N, C, S] in a dense layout the kernels take: its suggested memory format, made contiguous
// in it (a copy only when it is not already).
struct Dense {
  at::Tensor x;
  int64_t N = 0, C = 0, S = 1;
  bool channels_last = false;
  int64_t sizes[3] = {};
  int64_t strides[3] = {};
};

Dense dense_of(const at::Tensor& input) {
  Dense d;
  const at::MemoryFormat format = input.suggest_memory_format();
  d.channels_last = format == at::MemoryFormat::ChannelsLast || format == at::MemoryFormat::ChannelsLast3d;
  d.x = input.contiguous(format);
  d.N = input.size(0);
  d.C = input.size(1);
  for (int64_t k = 2; k < input.dim(); ++k) d.S *= input.size(k);
  d.sizes[0] = d.N;
  d.sizes[1] = d.C;
  d.sizes[2] = d.S;
  d.strides[0] = d.C * d.S;
  d.strides[1] = d.channels_last ? 1 : d.S;
  d.strides[2] = d.channels_last ? d.C : 1;
  return d;
}

// The same geometry over another tensor of the input's shape, made dense in the input's layout.
at::Tensor like_dense(const at::Tensor& t, const Dense& d) {
  return t.contiguous(d.channels_last ? (d.x.dim() == 5 ? at::MemoryFormat::ChannelsLast3d : at::MemoryFormat::ChannelsLast)
                                      : at::MemoryFormat::Contiguous);
}

KernelArgs& add_vector(KernelArgs& args, const at::Tensor& v, bool output) {
  if (!v.defined()) return output ? args.absent_output() : args.absent_input();
  const int64_t sizes[] = {v.numel()}, unit[] = {v.stride(0)};
  return output ? args.output_as(v, sizes, unit) : args.input_as(v, sizes, unit);
}

// The forward of every batch norm op: (y, save_mean, save_invstd), or nullopt when the kernels cannot run
// it. `running_*` are undefined when the op has none.
std::optional<Tensors3> forward(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                                const at::Tensor& running_mean, const at::Tensor& running_var, bool training,
                                double momentum, double eps) {
  const at::ScalarType type = input.scalar_type();
  if (!is_kernel_type(type) || input.dim() < 2 || input.dim() > 5) return std::nullopt;
  const int64_t C = input.size(1);
  if (running_mean.defined() != running_var.defined()) return std::nullopt;
  for (const at::Tensor* p : {&weight, &bias, &running_mean, &running_var}) {
    if (!is_parameter(*p, input, C)) return std::nullopt;
  }
  // Mixed or not, all parameters present share one dtype (ATen requires it).
  std::optional<at::ScalarType> param_type;
  for (const at::Tensor* p : {&weight, &bias, &running_mean, &running_var}) {
    if (!p->defined()) continue;
    if (param_type.has_value() && *param_type != p->scalar_type()) return std::nullopt;
    param_type = p->scalar_type();
  }
  if (!training && !running_mean.defined()) return std::nullopt;
  // Running statistics are written in place, so they must be what the kernel writes: dense vectors.
  if (training && running_mean.defined() && (!running_mean.is_contiguous() || !running_var.is_contiguous())) {
    return std::nullopt;
  }
  const Dense d = dense_of(input);
  if (training && d.N * d.S == 0) return std::nullopt;
  at::Tensor y = at::empty_like(d.x);
  at::Tensor save_mean = at::empty({C}, input.options().dtype(acc_type(type)));
  at::Tensor save_invstd = at::empty({C}, save_mean.options());
  if (C == 0) return Tensors3(std::move(y), std::move(save_mean), std::move(save_invstd));
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
  KernelArgs args;
  args.input_as(d.x, d.sizes, d.strides);
  add_vector(args, w, false);
  add_vector(args, b, false);
  add_vector(args, running_mean, false);
  add_vector(args, running_var, false);
  args.output_as(y, d.sizes, d.strides).output(save_mean).output(save_invstd);
  add_vector(args, training ? running_mean : at::Tensor(), true);
  add_vector(args, training ? running_var : at::Tensor(), true);
  args.scalar(training).scalar(momentum).scalar(eps);
  if (!launch(input.device().index(), HAL_OP_BATCH_NORM, args)) return std::nullopt;
  return Tensors3(std::move(y), std::move(save_mean), std::move(save_invstd));
}

// The backward of every batch norm op. In training the saved batch statistics are required; in evaluation
// the saved ones are used when the forward saved them (ours does), else the running ones.
std::optional<Tensors3> backward(const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& weight,
                                 const at::Tensor& running_mean, const at::Tensor& running_var,
                                 const at::Tensor& save_mean, const at::Tensor& save_invstd, bool train, double eps,
                                 std::array<bool, 3> mask) {
  const at::ScalarType type = input.scalar_type();
  if (!is_kernel_type(type) || input.dim() < 2 || input.dim() > 5 || grad_out.scalar_type() != type ||
      grad_out.sizes() != input.sizes()) {
    return std::nullopt;
  }
  const int64_t C = input.size(1);
  if (!is_parameter(weight, input, C)) return std::nullopt;
  const at::ScalarType acc = acc_type(type);
  auto saved = [&](const at::Tensor& t) { return t.defined() && t.dim() == 1 && t.numel() == C; };
  at::Tensor mean, invstd;
  if (saved(save_mean) && saved(save_invstd)) {
    mean = save_mean.to(acc).contiguous();
    invstd = save_invstd.to(acc).contiguous();
  } else if (!train && running_mean.defined() && running_var.defined() && running_mean.numel() == C &&
             running_var.numel() == C) {
    mean = running_mean.to(acc).contiguous();
    invstd = at::rsqrt(running_var.to(acc) + eps).contiguous();
  } else {
    return std::nullopt;
  }
  const Dense d = dense_of(input);
  const at::Tensor dy = like_dense(grad_out, d);
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  at::Tensor dx = mask[0] ? at::empty_like(d.x) : at::Tensor();
  auto param_grad = [&] {
    return w.defined() ? at::empty_like(w) : at::empty({C}, input.options());
  };
  at::Tensor dweight = mask[1] ? param_grad() : at::Tensor();
  at::Tensor dbias = mask[2] ? param_grad() : at::Tensor();
  if (C == 0 || (!dx.defined() && !dweight.defined() && !dbias.defined())) {
    return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
  }
  KernelArgs args;
  args.input_as(dy, d.sizes, d.strides).input_as(d.x, d.sizes, d.strides);
  add_vector(args, w, false);
  add_vector(args, mean, false);
  add_vector(args, invstd, false);
  if (dx.defined()) args.output_as(dx, d.sizes, d.strides);
  else args.absent_output();
  add_vector(args, dweight, true);
  add_vector(args, dbias, true);
  args.scalar(train);
  if (!launch(input.device().index(), HAL_OP_BATCH_NORM_BACKWARD, args)) return std::nullopt;
  return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
}

std::optional<Tensors3> native_batch_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                                          const std::optional<at::Tensor>& bias,
                                          const std::optional<at::Tensor>& running_mean,
                                          const std::optional<at::Tensor>& running_var, bool training,
                                          double momentum, double eps) {
  return forward(input, defined_or_empty(weight), defined_or_empty(bias), defined_or_empty(running_mean),
                 defined_or_empty(running_var), training, momentum, eps);
}

std::optional<Tensors3> batch_norm_legit(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                                         const std::optional<at::Tensor>& bias, at::Tensor& running_mean,
                                         at::Tensor& running_var, bool training, double momentum, double eps) {
  return forward(input, defined_or_empty(weight), defined_or_empty(bias), running_mean, running_var, training,
                 momentum, eps);
}

std::optional<Tensors3> batch_norm_legit_no_stats(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                                                  const std::optional<at::Tensor>& bias, bool training,
                                                  double momentum, double eps) {
  return forward(input, defined_or_empty(weight), defined_or_empty(bias), at::Tensor(), at::Tensor(), training,
                 momentum, eps);
}

std::optional<Tensors4> batch_norm_with_update(const at::Tensor& input, const std::optional<at::Tensor>& weight,
                                               const std::optional<at::Tensor>& bias, at::Tensor& running_mean,
                                               at::Tensor& running_var, double momentum, double eps) {
  auto result = forward(input, defined_or_empty(weight), defined_or_empty(bias), running_mean, running_var,
                        /*training=*/true, momentum, eps);
  if (!result) return std::nullopt;
  auto& [y, mean, invstd] = *result;
  // The reserve tensor is cuDNN's workspace; ATen's native kernels return an empty one.
  at::Tensor reserve = at::empty({0}, input.options().dtype(at::kByte));
  return Tensors4(std::move(y), std::move(mean), std::move(invstd), std::move(reserve));
}

std::optional<Tensors3> native_batch_norm_backward(const at::Tensor& grad_out, const at::Tensor& input,
                                                   const std::optional<at::Tensor>& weight,
                                                   const std::optional<at::Tensor>& running_mean,
                                                   const std::optional<at::Tensor>& running_var,
                                                   const std::optional<at::Tensor>& save_mean,
                                                   const std::optional<at::Tensor>& save_invstd, bool train,
                                                   double eps, std::array<bool, 3> output_mask) {
  return backward(grad_out, input, defined_or_empty(weight), defined_or_empty(running_mean),
                  defined_or_empty(running_var), defined_or_empty(save_mean), defined_or_empty(save_invstd), train,
                  eps, output_mask);
}

std::optional<Tensors3> batch_norm_backward(const at::Tensor& grad_out, const at::Tensor& input,
                                            const at::Tensor& weight, const std::optional<at::Tensor>& running_mean,
                                            const std::optional<at::Tensor>& running_var,
                                            const std::optional<at::Tensor>& save_mean,
                                            const std::optional<at::Tensor>& save_var, bool update, double eps,
                                            std::array<bool, 3> output_mask, const at::Tensor& /*reserve*/) {
  return backward(grad_out, input, weight, defined_or_empty(running_mean), defined_or_empty(running_var),
                  defined_or_empty(save_mean), defined_or_empty(save_var), update, eps, output_mask);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, native_batch_norm, "native_batch_norm", launches(HAL_OP_BATCH_NORM), native_batch_norm);
  HAL_NATIVE(m, native_batch_norm_backward, "native_batch_norm_backward", launches(HAL_OP_BATCH_NORM_BACKWARD), native_batch_norm_backward);
  HAL_NATIVE(m, _native_batch_norm_legit, "_native_batch_norm_legit", launches(HAL_OP_BATCH_NORM), batch_norm_legit);
  HAL_NATIVE(m, _native_batch_norm_legit_no_stats, "_native_batch_norm_legit.no_stats", launches(HAL_OP_BATCH_NORM), batch_norm_legit_no_stats);
  HAL_NATIVE(m, _batch_norm_with_update, "_batch_norm_with_update", launches(HAL_OP_BATCH_NORM), batch_norm_with_update);
  HAL_NATIVE(m, batch_norm_backward, "batch_norm_backward", launches(HAL_OP_BATCH_NORM_BACKWARD), batch_norm_backward);
}

}  // namespace
}  // namespace torch_hal::native
