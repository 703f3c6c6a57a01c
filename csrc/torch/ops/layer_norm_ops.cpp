// native_layer_norm and native_layer_norm_backward over the adapter's LAYER_NORM kernels. As ATen's CUDA
// kernels do, the input is viewed as [M, N] rows (N = prod(normalized_shape)) after .contiguous(); mean
// and rstd are float32 (float64 for float64 input) shaped [*batch, 1, ...].
#include <ATen/native/layer_norm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

at::ScalarType stats_type(at::ScalarType input) { return input == at::kDouble ? at::kDouble : at::kFloat; }

// [*batch, 1, ...]: input's sizes with the normalized dimensions set to 1.
c10::SmallVector<int64_t, 6> stats_shape(const at::Tensor& input, size_t normalized_ndim) {
  c10::SmallVector<int64_t, 6> shape(input.sizes().begin(), input.sizes().end());
  for (size_t d = shape.size() - normalized_ndim; d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

at::Tensor defined_or_empty(const std::optional<at::Tensor>& t) { return t.has_value() ? *t : at::Tensor(); }

// A [N] vector argument: contiguous, or absent.
KernelArgs& add_vector(KernelArgs& args, const at::Tensor& contiguous_vector, int64_t N) {
  if (!contiguous_vector.defined()) return args.absent_input();
  const int64_t sizes[] = {N}, strides[] = {1};
  return args.input_as(contiguous_vector, sizes, strides);
}

std::optional<Tensors3> layer_norm(const at::Tensor& input, c10::SymIntArrayRef normalized_shape,
                                   const std::optional<at::Tensor>& weight_opt,
                                   const std::optional<at::Tensor>& bias_opt, double eps) {
  const at::IntArrayRef shape = C10_AS_INTARRAYREF_SLOW(normalized_shape);
  const at::Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, shape, weight, bias);
  if (!at::isFloatingType(input.scalar_type())) return std::nullopt;
  if (N == 0 && M > 0) return std::nullopt;  // empty rows: ATen's own edge semantics
  const at::Tensor x = input.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options());
  const auto stats = stats_shape(input, shape.size());
  at::Tensor mean = at::empty({M}, x.options().dtype(stats_type(x.scalar_type())));
  at::Tensor rstd = at::empty({M}, mean.options());
  if (M > 0) {
    const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
    const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
    const int64_t rows[] = {M, N}, row_strides[] = {N, 1};
    KernelArgs args;
    args.input_as(x, rows, row_strides);
    add_vector(args, w, N);
    add_vector(args, b, N);
    args.output_as(y, rows, row_strides).output(mean).output(rstd).scalar(eps);
    if (!launch(x.device().index(), HAL_OP_LAYER_NORM, args)) return std::nullopt;
  }
  return Tensors3(std::move(y), mean.view(stats), rstd.view(stats));
}

std::optional<Tensors3> layer_norm_backward(const at::Tensor& grad_out, const at::Tensor& input,
                                            c10::SymIntArrayRef normalized_shape, const at::Tensor& mean,
                                            const at::Tensor& rstd, const std::optional<at::Tensor>& weight_opt,
                                            const std::optional<at::Tensor>& bias_opt, std::array<bool, 3> output_mask) {
  const at::IntArrayRef shape = C10_AS_INTARRAYREF_SLOW(normalized_shape);
  const at::Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const auto [M, N] = at::native::_check_layer_norm_inputs(input, shape, weight, bias);
  const at::ScalarType type = input.scalar_type();
  if (!at::isFloatingType(type) || grad_out.scalar_type() != type || mean.scalar_type() != stats_type(type) ||
      rstd.scalar_type() != stats_type(type) || grad_out.sizes() != input.sizes() || mean.numel() != M ||
      rstd.numel() != M) {
    return std::nullopt;
  }
  if (N == 0 && M > 0) return std::nullopt;
  const at::Tensor x = input.contiguous();
  at::Tensor dx = output_mask[0] ? at::empty(x.sizes(), x.options()) : at::Tensor();
  at::Tensor dweight = output_mask[1] && weight.defined() ? at::empty(weight.sizes(), weight.options()) : at::Tensor();
  at::Tensor dbias = output_mask[2] && bias.defined() ? at::empty(bias.sizes(), bias.options()) : at::Tensor();
  if (M == 0) {
    // No rows: the parameter gradients are sums over nothing.
    if (dweight.defined()) dweight.zero_();
    if (dbias.defined()) dbias.zero_();
    return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
  }
  if (!dx.defined() && !dweight.defined() && !dbias.defined()) return Tensors3();
  const at::Tensor dy = grad_out.contiguous();
  const at::Tensor mean_rows = mean.contiguous(), rstd_rows = rstd.contiguous();
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  const int64_t rows[] = {M, N}, row_strides[] = {N, 1}, stat_sizes[] = {M}, unit[] = {1};
  KernelArgs args;
  args.input_as(dy, rows, row_strides).input_as(x, rows, row_strides);
  args.input_as(mean_rows, stat_sizes, unit).input_as(rstd_rows, stat_sizes, unit);
  add_vector(args, w, N);
  if (dx.defined()) args.output_as(dx, rows, row_strides);
  else args.absent_output();
  for (const at::Tensor* t : {&dweight, &dbias}) {
    if (!t->defined()) {
      args.absent_output();
      continue;
    }
    const int64_t sizes[] = {N};
    args.output_as(*t, sizes, unit);  // freshly allocated like weight/bias: contiguous
  }
  if (!launch(x.device().index(), HAL_OP_LAYER_NORM_BACKWARD, args)) return std::nullopt;
  return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, native_layer_norm, "native_layer_norm", launches(HAL_OP_LAYER_NORM), layer_norm);
  HAL_NATIVE(m, native_layer_norm_backward, "native_layer_norm_backward", launches(HAL_OP_LAYER_NORM_BACKWARD),
             layer_norm_backward);
}

}  // namespace
}  // namespace torch_hal::native
