// threshold and hardtanh from native comparisons, masked_fill and clamp (hardtanh's backward is a kernel of
// the library: elementwise_activation_ops.cpp). ATen gives them CPU kernels of their own, so without these they
// took the CPU fallback (nn.Threshold, nn.Hardtanh, nn.ReLU6). The scalars are converted to the tensor's dtype
// first, as the CPU kernels convert them (threshold -0.5 on an integer tensor compares with 0), and unsupported
// dtypes keep ATen's route (its errors).
#include <ATen/Dispatch.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/clamp.h>
#include <torch/library.h>

#include <optional>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// `s` converted to `type` (c10::Scalar holds it exactly), with ATen's overflow error for integer types.
at::Scalar in_dtype(const at::Scalar& s, at::ScalarType type) {
  at::Scalar converted;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, type, "hal_scalar_in_dtype",
                             [&] { converted = at::Scalar(s.to<scalar_t>()); });
  return converted;
}

// The CPU's threshold kernel covers the real types but bool.
bool thresholdable(at::ScalarType t) { return t != at::kBool && !at::isComplexType(t); }

// threshold: x <= threshold ? value : x (a NaN stays).
at::Tensor threshold_mask(const at::Tensor& self, const at::Scalar& threshold) {
  return self.le(in_dtype(threshold, self.scalar_type()));
}
std::optional<at::Tensor> native_threshold(const at::Tensor& self, const at::Scalar& threshold,
                                           const at::Scalar& value) {
  if (!thresholdable(self.scalar_type())) return std::nullopt;
  return self.masked_fill(threshold_mask(self, threshold), in_dtype(value, self.scalar_type()));
}
bool native_threshold_(at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value) {
  if (!thresholdable(self.scalar_type())) return false;
  self.masked_fill_(threshold_mask(self, threshold), in_dtype(value, self.scalar_type()));
  return true;
}
bool native_threshold_out(const at::Tensor& self, const at::Scalar& threshold, const at::Scalar& value,
                          at::Tensor& out) {
  if (!thresholdable(self.scalar_type())) return false;
  return write_out(native_threshold(self, threshold, value), out);
}

// hardtanh: clamp, as ATen's hardtanh_out is, with its checks and its integer limits (truncated, no promotion).
std::pair<at::Scalar, at::Scalar> hardtanh_limits(const at::Tensor& self, const at::Scalar& min,
                                                  const at::Scalar& max) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Bool inputs not supported for hardtanh");
  if (!at::isIntegralType(self.scalar_type(), /*includeBool=*/false)) return {min, max};
  const int64_t lo = min.toLong(), hi = max.toLong();
  TORCH_CHECK(self.scalar_type() != at::kByte || (lo >= 0 && hi >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return {lo, hi};
}
std::optional<at::Tensor> native_hardtanh(const at::Tensor& self, const at::Scalar& min, const at::Scalar& max) {
  if (at::isComplexType(self.scalar_type())) return std::nullopt;
  const auto [lo, hi] = hardtanh_limits(self, min, max);
  return at::clamp(self, lo, hi);
}
bool native_hardtanh_(at::Tensor& self, const at::Scalar& min, const at::Scalar& max) {
  if (at::isComplexType(self.scalar_type())) return false;
  const auto [lo, hi] = hardtanh_limits(self, min, max);
  at::clamp_(self, lo, hi);
  return true;
}
bool native_hardtanh_out(const at::Tensor& self, const at::Scalar& min, const at::Scalar& max, at::Tensor& out) {
  if (at::isComplexType(self.scalar_type())) return false;
  const auto [lo, hi] = hardtanh_limits(self, min, max);
  at::clamp_out(out, self, lo, hi);
  return true;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, threshold, "threshold", launches(), native_threshold);
  HAL_NATIVE(m, threshold_, "threshold_", launches(), native_threshold_);
  HAL_NATIVE(m, threshold_out, "threshold.out", launches(), native_threshold_out);
  HAL_NATIVE(m, hardtanh, "hardtanh", launches(), native_hardtanh);
  HAL_NATIVE(m, hardtanh_, "hardtanh_", launches(), native_hardtanh_);
  HAL_NATIVE(m, hardtanh_out, "hardtanh.out", launches(), native_hardtanh_out);
}

}  // namespace
}  // namespace torch_hal::native
