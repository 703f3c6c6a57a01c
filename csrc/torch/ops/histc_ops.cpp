// torch.histc on hal: each element's bin from elementwise math, the counts by scatter_add of ones.
//
// Floating inputs follow ATen's CPU kernel: the range is [min, max] (both the data's own when min == max,
// widened by 1 each way when still equal), converted to the input dtype, and an element x in it goes to bin
// trunc((x - min) * bins / (max - min)) computed in the input dtype, x == max to the last bin; elements outside
// and NaNs are not counted. Integer inputs, which the CPU kernel refuses but CUDA's counts (mixtral and
// qwen2_moe call histc on expert indices), follow CUDA: min and max converted to the input's integer type and
// the bin in integer arithmetic. The result has the input's dtype, as on both. Bool and complex inputs keep
// ATen's route (its error).
#include <ATen/Dispatch.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/div.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <cmath>
#include <optional>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// `position` where both tests hold, else `bins` (the extra bin of the elements outside the range): two wheres
// rather than a logical and, which not every adapter runs natively.
at::Tensor uncounted_to_last(const at::Tensor& position, const at::Tensor& above_min, const at::Tensor& below_max,
                             int64_t bins) {
  const at::Tensor outside = at::scalar_tensor(bins, position.options());
  return at::where(below_max, at::where(above_min, position, outside), outside);
}

// The bin of every element of `x` (flattened), `bins` for an element that is not counted.
at::Tensor float_bins(const at::Tensor& x, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  double lo = min.to<double>(), hi = max.to<double>();
  if (lo == hi && x.numel() > 0) {
    auto [mn, mx] = at::aminmax(x);
    lo = mn.item<double>();
    hi = mx.item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCH_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)), "torch.histc: range of [",
              lo, ", ", hi, "] is not finite");
  TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
  // The edges and their difference in the input dtype, as the CPU computes them.
  double lo_t = 0, hi_t = 0, width = 0;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "hal_histc", [&] {
    const auto l = static_cast<scalar_t>(lo), h = static_cast<scalar_t>(hi);
    lo_t = static_cast<double>(l);
    hi_t = static_cast<double>(h);
    width = static_cast<double>(static_cast<scalar_t>(h - l));
  });
  const at::Tensor position = x.sub(lo_t).mul_(bins).div_(width).trunc_().clamp_max_(bins - 1);
  return uncounted_to_last(position, x.ge(lo_t), x.le(hi_t), bins).to(at::kLong);  // a NaN fails both tests
}

at::Tensor integer_bins(const at::Tensor& x, int64_t bins, const at::Scalar& min, const at::Scalar& max) {
  int64_t lo = 0, hi = 0;
  AT_DISPATCH_INTEGRAL_TYPES(x.scalar_type(), "hal_histc", [&] {
    lo = static_cast<int64_t>(min.to<scalar_t>());
    hi = static_cast<int64_t>(max.to<scalar_t>());
  });
  if (lo == hi && x.numel() > 0) {
    auto [mn, mx] = at::aminmax(x);
    lo = mn.item<int64_t>();
    hi = mx.item<int64_t>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
  const at::Tensor wide = x.to(at::kLong);
  // (x - min) bins / (max - min) >= 0 for counted elements, where truncating division is floor division.
  const at::Tensor position = at::div(wide.sub(lo).mul_(bins), hi - lo, "trunc").clamp_max_(bins - 1);
  return uncounted_to_last(position, wide.ge(lo), wide.le(hi), bins);
}

std::optional<at::Tensor> histogram(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                    const at::Scalar& max) {
  const auto type = self.scalar_type();
  if (type == at::kBool || at::isComplexType(type)) return std::nullopt;
  TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  const at::Tensor x = self.reshape({-1});
  const at::Tensor bin = at::isFloatingType(type) ? float_bins(x, bins, min, max) : integer_bins(x, bins, min, max);
  // One more bin collects the elements outside the range, then is dropped.
  at::Tensor counts = at::zeros({bins + 1}, self.options().dtype(at::kLong));
  if (x.numel() > 0) counts.scatter_add_(0, bin, at::ones({x.numel()}, counts.options()));
  return counts.narrow(0, 0, bins).to(type);
}

std::optional<at::Tensor> native_histc(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                       const at::Scalar& max) {
  return histogram(self, bins, min, max);
}
bool native_histc_out(const at::Tensor& self, int64_t bins, const at::Scalar& min, const at::Scalar& max,
                      at::Tensor& out) {
  return write_out(histogram(self, bins, min, max), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, histc, "histc", launches(), native_histc);
  HAL_NATIVE(m, histc_out, "histc.out", launches(), native_histc_out);
}

}  // namespace
}  // namespace torch_hal::native
