// var / std / var_mean / std_mean of complex tensors over the real view (complex_statistics.h).
#include "ops/complex_statistics.h"

#include <ATen/WrapDimUtils.h>
#include <ATen/ops/add.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/var.h>
#include <ATen/ops/var_mean.h>
#include <ATen/ops/view_as_complex.h>
#include <ATen/ops/view_as_real.h>

#include <algorithm>
#include <vector>

namespace torch_hal::native::complex_statistics {
namespace {

// The real view to reduce and the dims to reduce in it: the complex tensor's dims wrapped on its own rank, so that
// the trailing pair dimension is never reduced (all of them when none are given, as ATen reads an empty list). A
// 0-dim tensor is viewed as 1-D of one element first (its view would be [2], whose one dimension is the pair's).
struct PairReduction {
  at::Tensor pairs;
  std::vector<int64_t> dims;
};

std::optional<PairReduction> pair_reduction(const at::Tensor& self, at::OptionalIntArrayRef dim) {
  if (self.scalar_type() != at::kComplexFloat && self.scalar_type() != at::kComplexDouble) return std::nullopt;
  PairReduction r;
  if (!dim.has_value() || dim->empty()) {
    for (int64_t d = 0; d < std::max<int64_t>(self.dim(), 1); ++d) r.dims.push_back(d);
  } else {
    for (const int64_t d : *dim) r.dims.push_back(at::maybe_wrap_dim(d, self.dim()));
  }
  // var(z) is var(conj(z)) and var(-z), but the view needs the values as they are (and var_mean's mean does).
  const at::Tensor values = self.resolve_conj().resolve_neg();
  r.pairs = at::view_as_real(self.dim() == 0 ? values.view({1}) : values);
  return r;
}

// The result of a reduction of the 1-D view of a 0-dim tensor is 0-dim, keepdim or not.
at::Tensor shaped_like_result(const at::Tensor& self, const at::Tensor& t) {
  return self.dim() == 0 ? t.reshape({}) : t;
}

// var(real parts) + var(imaginary parts) from the view's [..., 2] variances, and its square root for std: ATen's
// two roundings in the real dtype.
at::Tensor total_spread(const at::Tensor& part_variances, bool take_sqrt) {
  at::Tensor total = at::add(part_variances.select(-1, 0), part_variances.select(-1, 1));
  if (take_sqrt) total.sqrt_();
  return total;
}

}  // namespace

std::optional<at::Tensor> var(const at::Tensor& self, at::OptionalIntArrayRef dim,
                              const std::optional<c10::Scalar>& correction, bool keepdim, bool take_sqrt) {
  const std::optional<PairReduction> r = pair_reduction(self, dim);
  if (!r.has_value()) return std::nullopt;
  const at::Tensor part_variances = at::var(r->pairs, r->dims, correction, keepdim);
  return shaped_like_result(self, total_spread(part_variances, take_sqrt));
}

bool var_out(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<c10::Scalar>& correction,
             bool keepdim, bool take_sqrt, at::Tensor& out) {
  if (out.scalar_type() != c10::toRealValueType(self.scalar_type())) return false;
  const std::optional<PairReduction> r = pair_reduction(self, dim);
  if (!r.has_value()) return false;
  const at::Tensor part_variances = at::var(r->pairs, r->dims, correction, keepdim);
  const at::Tensor real = shaped_like_result(self, part_variances.select(-1, 0));
  const at::Tensor imag = shaped_like_result(self, part_variances.select(-1, 1));
  at::add_out(out, real, imag);  // resizes out as ATen's kernel does
  if (take_sqrt) at::sqrt_out(out, out);
  return true;
}

std::optional<std::tuple<at::Tensor, at::Tensor>> var_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                          const std::optional<c10::Scalar>& correction, bool keepdim,
                                                          bool take_sqrt) {
  const std::optional<PairReduction> r = pair_reduction(self, dim);
  if (!r.has_value()) return std::nullopt;
  const auto [part_variances, part_means] = at::var_mean(r->pairs, r->dims, correction, keepdim);
  at::Tensor spread = shaped_like_result(self, total_spread(part_variances, take_sqrt));
  // The means of the parts are the parts of the mean: the [..., 2] result viewed as complex.
  at::Tensor mean = shaped_like_result(self, at::view_as_complex(part_means.contiguous()));
  return std::make_tuple(std::move(spread), std::move(mean));
}

}  // namespace torch_hal::native::complex_statistics
