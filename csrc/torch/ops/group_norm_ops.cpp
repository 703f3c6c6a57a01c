// Group norm and RMS norm over the adapter's GROUP_NORM and RMS_NORM kernels.
//
// native_group_norm / native_group_norm_backward: ATen's CUDA semantics. The input is made contiguous and
// seen as [N, C, HxW]; mean and rstd are [N, group], of the input's dtype, or float32 when float16/bfloat16
// input has float32 weight and bias (mixed), as ATen's param_scalar_type says.
//
// _fused_rms_norm / _fused_rms_norm_backward: what nn.RMSNorm and F.rms_norm reach (aten::rms_norm calls
// _fused_rms_norm on every device; once a backend implements it, autograd differentiates it with
// _fused_rms_norm_backward). The input is seen as [M, N] rows, N the product of normalized_shape; rstd is
// float32 (float64 for float64 input), shaped [*batch, 1, ...]; eps defaults to the epsilon of that type.
// These two ops have no CPU kernel (on CPU they are a composite of elementwise ops), so they are registered
// here for every hal device: the native kernel where the adapter has one, else the same composite, written
// with ATen ops, whose pieces then take their own paths (native, host kernels, or the CPU fallback).
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <c10/core/SymInt.h>
#include <torch/library.h>

#include <limits>
#include <type_traits>

#include "dispatch/native_first.h"

#if __has_include(<ATen/ops/_fused_rms_norm_backward.h>)
#include <ATen/ops/_fused_rms_norm.h>
#include <ATen/ops/_fused_rms_norm_backward.h>
#define TORCH_HAL_HAS_FUSED_RMS_NORM 1
#endif

namespace torch_hal::native {
namespace {

using Tensors2 = std::tuple<at::Tensor, at::Tensor>;
using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

at::ScalarType acc_type(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

bool is_kernel_type(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

at::Tensor defined_or_empty(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined() ? *t : at::Tensor();
}

// A parameter of `n` elements whose dtype the kernels take for `input`: its own, or float32 for
// float16/bfloat16 input (mixed).
bool is_parameter(const at::Tensor& p, const at::Tensor& input, int64_t n) {
  if (!p.defined()) return true;
  const at::ScalarType in = input.scalar_type(), t = p.scalar_type();
  const bool type_ok = t == in || (t == at::kFloat && (in == at::kHalf || in == at::kBFloat16));
  return type_ok && p.numel() == n;
}

KernelArgs& add_vector(KernelArgs& args, const at::Tensor& contiguous_vector, bool output) {
  if (!contiguous_vector.defined()) return output ? args.absent_output() : args.absent_input();
  const int64_t sizes[] = {contiguous_vector.numel()}, unit[] = {1};
  return output ? args.output_as(contiguous_vector, sizes, unit) : args.input_as(contiguous_vector, sizes, unit);
}

// ---- Group norm --------------------------------------------------------------------------------------------
std::optional<Tensors3> group_norm(const at::Tensor& input, const std::optional<at::Tensor>& weight_opt,
                                   const std::optional<at::Tensor>& bias_opt, c10::SymInt N_sym, c10::SymInt C_sym,
                                   c10::SymInt HxW_sym, int64_t group, double eps) {
  const int64_t N = N_sym.guard_int(__FILE__, __LINE__), C = C_sym.guard_int(__FILE__, __LINE__);
  const int64_t HxW = HxW_sym.guard_int(__FILE__, __LINE__);
  const at::Tensor weight = defined_or_empty(weight_opt), bias = defined_or_empty(bias_opt);
  const at::ScalarType type = input.scalar_type();
  if (!is_kernel_type(type) || group <= 0 || C % group != 0 || input.numel() != N * C * HxW ||
      (input.dim() >= 2 && input.size(1) != C) || !is_parameter(weight, input, C) || !is_parameter(bias, input, C) ||
      (weight.defined() && bias.defined() && weight.scalar_type() != bias.scalar_type())) {
    return std::nullopt;  // ATen's kernel raises its own errors
  }
  if (N * C > 0 && HxW == 0) return std::nullopt;
  const bool mixed = (weight.defined() && weight.scalar_type() != type) || (bias.defined() && bias.scalar_type() != type);
  const at::Tensor x = input.contiguous();
  at::Tensor y = at::empty_like(x);
  at::Tensor mean = at::empty({N, group}, x.options().dtype(mixed ? at::kFloat : type));
  at::Tensor rstd = at::empty({N, group}, mean.options());
  if (N * C == 0) return Tensors3(std::move(y), std::move(mean), std::move(rstd));
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  const at::Tensor b = bias.defined() ? bias.contiguous() : bias;
  const int64_t sizes[] = {N, C, HxW}, strides[] = {C * HxW, HxW, 1};
  KernelArgs args;
  args.input_as(x, sizes, strides);
  add_vector(args, w, false);
  add_vector(args, b, false);
  args.output_as(y, sizes, strides);
  add_vector(args, mean, true);
  add_vector(args, rstd, true);
  args.scalar(group).scalar(eps);
  if (!launch(input.device().index(), HAL_OP_GROUP_NORM, args)) return std::nullopt;
  return Tensors3(std::move(y), std::move(mean), std::move(rstd));
}

std::optional<Tensors3> group_norm_backward(const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean,
                                            const at::Tensor& rstd, const std::optional<at::Tensor>& weight_opt,
                                            c10::SymInt N_sym, c10::SymInt C_sym, c10::SymInt HxW_sym, int64_t group,
                                            std::array<bool, 3> mask) {
  const int64_t N = N_sym.guard_int(__FILE__, __LINE__), C = C_sym.guard_int(__FILE__, __LINE__);
  const int64_t HxW = HxW_sym.guard_int(__FILE__, __LINE__);
  const at::Tensor weight = defined_or_empty(weight_opt);
  const at::ScalarType type = input.scalar_type();
  if (!is_kernel_type(type) || group <= 0 || C % group != 0 || input.numel() != N * C * HxW ||
      grad_out.scalar_type() != type || grad_out.sizes() != input.sizes() || mean.numel() != N * group ||
      rstd.numel() != N * group || !at::isFloatingType(mean.scalar_type()) ||
      !at::isFloatingType(rstd.scalar_type()) || !is_parameter(weight, input, C)) {
    return std::nullopt;
  }
  const at::Tensor x = input.contiguous();
  at::Tensor dx = mask[0] ? at::empty_like(x) : at::Tensor();
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  auto param_grad = [&] { return w.defined() ? at::empty_like(w) : at::empty({C}, x.options()); };
  at::Tensor dweight = mask[1] ? param_grad() : at::Tensor();
  at::Tensor dbias = mask[2] ? param_grad() : at::Tensor();
  if (N == 0 || C == 0 || HxW == 0) {
    // No elements: the gradients are sums over nothing.
    if (dweight.defined()) dweight.zero_();
    if (dbias.defined()) dbias.zero_();
    return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
  }
  if (!dx.defined() && !dweight.defined() && !dbias.defined()) return Tensors3();
  const at::Tensor dy = grad_out.contiguous();
  const at::Tensor mean_c = mean.contiguous(), rstd_c = rstd.contiguous();
  const int64_t sizes[] = {N, C, HxW}, strides[] = {C * HxW, HxW, 1};
  KernelArgs args;
  args.input_as(dy, sizes, strides).input_as(x, sizes, strides);
  add_vector(args, mean_c, false);
  add_vector(args, rstd_c, false);
  add_vector(args, w, false);
  if (dx.defined()) args.output_as(dx, sizes, strides);
  else args.absent_output();
  add_vector(args, dweight, true);
  add_vector(args, dbias, true);
  args.scalar(group);
  if (!launch(input.device().index(), HAL_OP_GROUP_NORM_BACKWARD, args)) return std::nullopt;
  return Tensors3(std::move(dx), std::move(dweight), std::move(dbias));
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, native_group_norm, "native_group_norm", launches(HAL_OP_GROUP_NORM), group_norm);
  HAL_NATIVE(m, native_group_norm_backward, "native_group_norm_backward", launches(HAL_OP_GROUP_NORM_BACKWARD), group_norm_backward);
}

// ---- RMS norm ------------------------------------------------------------------------------------------------
#ifdef TORCH_HAL_HAS_FUSED_RMS_NORM

// input [*batch, *normalized_shape] -> (M, N), with ATen's shape checks.
std::pair<int64_t, int64_t> rms_rows(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                     const at::Tensor& weight) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(k >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ", normalized_shape);
  TORCH_CHECK(!weight.defined() || weight.sizes().equals(normalized_shape),
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ", weight.sizes(),
              " and normalized_shape = ", normalized_shape);
  const int64_t axis = input.dim() - k;
  TORCH_CHECK(axis >= 0 && input.sizes().slice(axis).equals(normalized_shape), "Given normalized_shape=",
              normalized_shape, ", expected input with shape [*", normalized_shape, "], but got input of size ",
              input.sizes());
  int64_t M = 1, N = 1;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? M : N) *= input.size(d);
  return {M, N};
}

double rms_eps(std::optional<double> eps, at::ScalarType type) {
  if (eps.has_value()) return *eps;
  return acc_type(type) == at::kDouble ? std::numeric_limits<double>::epsilon()
                                       : static_cast<double>(std::numeric_limits<float>::epsilon());
}

// [*batch, 1, ...]: rstd's shape.
c10::SmallVector<int64_t, 6> stats_shape(const at::Tensor& input, size_t normalized_ndim) {
  c10::SmallVector<int64_t, 6> shape(input.sizes().begin(), input.sizes().end());
  for (size_t d = shape.size() - normalized_ndim; d < shape.size(); ++d) shape[d] = 1;
  return shape;
}

c10::SmallVector<int64_t, 6> inner_dims(const at::Tensor& input, size_t normalized_ndim, bool outer) {
  c10::SmallVector<int64_t, 6> dims;
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_ndim);
  for (int64_t d = 0; d < input.dim(); ++d) {
    if ((d < axis) == outer) dims.push_back(d);
  }
  return dims;
}

std::optional<Tensors2> rms_norm_native(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                        const at::Tensor& weight, double eps, int64_t M, int64_t N) {
  const at::ScalarType type = input.scalar_type();
  if (!has_native_kernels(input.device().index()) || !is_kernel_type(type) || !is_parameter(weight, input, N) ||
      N == 0) {
    return std::nullopt;
  }
  const at::Tensor x = input.contiguous();
  at::Tensor y = at::empty_like(x);
  at::Tensor rstd = at::empty({M}, x.options().dtype(acc_type(type)));
  if (M > 0) {
    const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
    const int64_t rows[] = {M, N}, row_strides[] = {N, 1};
    KernelArgs args;
    args.input_as(x, rows, row_strides);
    add_vector(args, w, false);
    args.output_as(y, rows, row_strides).output(rstd).scalar(eps);
    if (!launch(x.device().index(), HAL_OP_RMS_NORM, args)) return std::nullopt;
  }
  return Tensors2(std::move(y), rstd.view(stats_shape(input, normalized_shape.size())));
}

Tensors2 fused_rms_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                        const std::optional<at::Tensor>& weight_opt, std::optional<double> eps_opt) {
  const at::Tensor weight = defined_or_empty(weight_opt);
  DeviceScan scan;
  scan.visit_tensor(input, "aten::_fused_rms_norm", false);
  scan.visit_tensor(weight, "aten::_fused_rms_norm", false);
  scan.finish("aten::_fused_rms_norm");
  const auto [M, N] = rms_rows(input, normalized_shape, weight);
  const double eps = rms_eps(eps_opt, input.scalar_type());
  if (auto native = rms_norm_native(input, normalized_shape, weight, eps, M, N)) return std::move(*native);
  // The composite (torch/_decomp's _fused_rms_norm): computed in float32 (float64 for float64 input).
  const at::ScalarType compute = acc_type(input.scalar_type());
  const at::Tensor x = input.to(compute);
  const auto dims = inner_dims(input, normalized_shape.size(), /*outer=*/false);
  at::Tensor rstd = at::rsqrt(x.pow(2).mean(dims, /*keepdim=*/true) + eps);
  at::Tensor y = x * rstd;
  if (weight.defined()) y = y * weight;
  return Tensors2(y.contiguous().to(input.scalar_type()), rstd.contiguous());
}

std::optional<Tensors2> rms_norm_backward_native(const at::Tensor& grad_out, const at::Tensor& input,
                                                 const at::Tensor& rstd, const at::Tensor& weight,
                                                 std::array<bool, 2> mask, int64_t M, int64_t N) {
  const at::ScalarType type = input.scalar_type();
  if (!has_native_kernels(input.device().index()) || !is_kernel_type(type) || !is_parameter(weight, input, N) ||
      grad_out.scalar_type() != type || grad_out.sizes() != input.sizes() || rstd.numel() != M || M == 0 || N == 0) {
    return std::nullopt;
  }
  const at::Tensor x = input.contiguous();
  const at::Tensor w = weight.defined() ? weight.contiguous() : weight;
  at::Tensor dx = mask[0] ? at::empty_like(x) : at::Tensor();
  at::Tensor dweight = mask[1] && w.defined() ? at::empty_like(w) : at::Tensor();
  if (!dx.defined() && !dweight.defined()) return Tensors2();
  const at::Tensor dy = grad_out.contiguous();
  const at::Tensor r = rstd.to(acc_type(type)).contiguous();
  const int64_t rows[] = {M, N}, row_strides[] = {N, 1}, stat_sizes[] = {M}, unit[] = {1};
  KernelArgs args;
  args.input_as(dy, rows, row_strides).input_as(x, rows, row_strides).input_as(r, stat_sizes, unit);
  add_vector(args, w, false);
  if (dx.defined()) args.output_as(dx, rows, row_strides);
  else args.absent_output();
  add_vector(args, dweight, true);
  if (!launch(x.device().index(), HAL_OP_RMS_NORM_BACKWARD, args)) return std::nullopt;
  return Tensors2(std::move(dx), std::move(dweight));
}

Tensors2 fused_rms_norm_backward(const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape,
                                 const at::Tensor& rstd, const std::optional<at::Tensor>& weight_opt,
                                 std::array<bool, 2> mask) {
  const at::Tensor weight = defined_or_empty(weight_opt);
  DeviceScan scan;
  for (const at::Tensor* t : {&grad_out, &input, &rstd, &weight}) {
    scan.visit_tensor(*t, "aten::_fused_rms_norm_backward", false);
  }
  scan.finish("aten::_fused_rms_norm_backward");
  const auto [M, N] = rms_rows(input, normalized_shape, weight);
  if (auto native = rms_norm_backward_native(grad_out, input, rstd, weight, mask, M, N)) return std::move(*native);
  // The composite (torch/_decomp's _fused_rms_norm_backward).
  const at::ScalarType type = input.scalar_type();
  if (M == 0 || N == 0) {
    return Tensors2(mask[0] ? at::zeros(input.sizes(), input.options()) : at::Tensor(),
                    mask[1] && weight.defined() ? at::zeros(weight.sizes(), weight.options()) : at::Tensor());
  }
  const at::ScalarType compute = acc_type(type);
  const at::Tensor x = input.to(compute), g = grad_out.to(compute);
  const at::Tensor r = rstd.to(compute).view(stats_shape(input, normalized_shape.size()));
  const at::Tensor g_hat = weight.defined() ? g * weight.to(compute) : g;
  const at::Tensor x_hat = x * r;
  at::Tensor dx, dweight;
  if (mask[0]) {
    const auto inner = inner_dims(input, normalized_shape.size(), /*outer=*/false);
    const at::Tensor s = at::sum(x_hat * g_hat, inner, /*keepdim=*/true);
    dx = ((g_hat - x_hat / static_cast<double>(N) * s) * r).to(type);
  }
  if (mask[1] && weight.defined()) {
    const auto outer = inner_dims(input, normalized_shape.size(), /*outer=*/true);
    const at::Tensor full = g * x_hat;
    dweight = (outer.empty() ? full : at::sum(full, outer, /*keepdim=*/false)).to(weight.scalar_type());
  }
  return Tensors2(std::move(dx), std::move(dweight));
}

// The schemas these functions implement (PyTorch 2.9 on); a PyTorch with other ones keeps its composite.
constexpr bool kFusedRmsNormSchemas =
    std::is_same_v<at::_ops::_fused_rms_norm::schema, decltype(fused_rms_norm)> &&
    std::is_same_v<at::_ops::_fused_rms_norm_backward::schema, decltype(fused_rms_norm_backward)>;

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  if constexpr (kFusedRmsNormSchemas) {
    // The adapter's kernel where it has one, ATen's composite otherwise (inside the functions).
    impl_recorded(m, Route::AdapterFirst, "_fused_rms_norm", TORCH_FN(fused_rms_norm), launches(HAL_OP_RMS_NORM));
    impl_recorded(m, Route::AdapterFirst, "_fused_rms_norm_backward", TORCH_FN(fused_rms_norm_backward),
                  launches(HAL_OP_RMS_NORM_BACKWARD));
  }
}

#endif  // TORCH_HAL_HAS_FUSED_RMS_NORM

}  // namespace
}  // namespace torch_hal::native
