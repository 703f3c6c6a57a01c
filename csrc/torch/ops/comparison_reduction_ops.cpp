// equal, nansum and aminmax from the native comparisons and reductions. ATen gives each a CPU kernel of its own
// (aminmax a structured one), so without these they took the CPU fallback.
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amin.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/sum.h>
#include <torch/library.h>

#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// equal: same shape, then every element equal after type promotion (CPU's equal compares 1.0 with 1 as equal;
// a NaN is unequal to everything, itself included).
std::optional<bool> native_equal(const at::Tensor& self, const at::Tensor& other) {
  if (!self.is_same_size(other)) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item<bool>();
}

// nansum: the sum with NaNs replaced by zero (integers and bools have none and are summed as they are, into
// int64 unless `dtype` says otherwise, as sum does).
at::Tensor without_nans(const at::Tensor& self) {
  TORCH_CHECK(!at::isComplexType(self.scalar_type()), "nansum does not support complex inputs");
  return at::isFloatingType(self.scalar_type()) ? self.masked_fill(at::isnan(self), 0) : self;
}
std::optional<at::Tensor> native_nansum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                        std::optional<at::ScalarType> dtype) {
  return at::sum(without_nans(self), dim, keepdim, dtype);
}
bool native_nansum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<at::ScalarType> dtype, at::Tensor& out) {
  at::sum_out(out, without_nans(self), dim, keepdim, dtype);
  return true;
}

// aminmax: amin and amax, with aminmax's own checks (its empty-input errors name aminmax, not amin).
std::tuple<at::Tensor, at::Tensor> min_and_max(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim.has_value()) {
    TORCH_CHECK(self.numel() > 0,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    at::Tensor lo = self.amin(), hi = self.amax();
    if (keepdim) {  // every dim kept, of size 1
      const std::vector<int64_t> ones(self.dim(), 1);
      lo = lo.reshape(ones);
      hi = hi.reshape(ones);
    }
    return {lo, hi};
  }
  const int64_t d = at::maybe_wrap_dim(*dim, self.dim());
  if (self.dim() > 0) {
    TORCH_CHECK_INDEX(self.size(d) != 0, "aminmax: Expected reduction dim ", d, " to have non-zero size.");
  }
  return {at::amin(self, {d}, keepdim), at::amax(self, {d}, keepdim)};
}
bool reducible(const at::Tensor& self) { return !at::isComplexType(self.scalar_type()); }  // CPU: not implemented

std::optional<std::tuple<at::Tensor, at::Tensor>> native_aminmax(const at::Tensor& self, std::optional<int64_t> dim,
                                                                 bool keepdim) {
  if (!reducible(self)) return std::nullopt;
  return min_and_max(self, dim, keepdim);
}
std::optional<std::tuple<at::Tensor&, at::Tensor&>> native_aminmax_out(const at::Tensor& self,
                                                                       std::optional<int64_t> dim, bool keepdim,
                                                                       at::Tensor& min, at::Tensor& max) {
  if (!reducible(self)) return std::nullopt;
  auto [lo, hi] = min_and_max(self, dim, keepdim);
  at::native::resize_output(min, lo.sizes());
  at::native::resize_output(max, hi.sizes());
  min.copy_(lo);
  max.copy_(hi);
  return std::forward_as_tuple(min, max);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, equal, "equal", launches(), native_equal);
  HAL_NATIVE(m, nansum, "nansum", launches(), native_nansum);
  HAL_NATIVE(m, nansum_out, "nansum.out", launches(), native_nansum_out);
  HAL_NATIVE(m, aminmax, "aminmax", launches(), native_aminmax);
  HAL_NATIVE(m, aminmax_out, "aminmax.out", launches(), native_aminmax_out);
}

}  // namespace
}  // namespace torch_hal::native
