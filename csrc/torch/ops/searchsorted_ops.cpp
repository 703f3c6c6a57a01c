// torch.searchsorted and torch.bucketize: one launch of the adapter's SEARCHSORTED kernel (a binary search per
// value, reading sorted lines, sorter and values in place through their strides). ATen's own checks run first
// (searchsorted_pre_check: the same errors), its dtype promotion of mixed sorted / value dtypes, and its
// shapes: a 1-D sorted sequence serves every row of the values (broadcast with stride 0); a 0-dim value is one
// value. What the kernel does not take (complex values, an adapter without it) takes ATen's path.
#include <ATen/native/BucketizationUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TypeProperties.h>
#include <torch/library.h>

#include <vector>

#include "dispatch/native_first.h"
#include "dispatch/output_overlap.h"

namespace torch_hal::native {
namespace {

// The dtype ATen compares in when sorted and values differ (searchsorted_maybe_trim_input_tensors' rule).
at::ScalarType common_dtype(const at::Tensor& sorted, const at::Tensor& values) {
  if (sorted.scalar_type() == values.scalar_type()) return sorted.scalar_type();
  at::native::ResultTypeState state = {};
  state = at::native::update_result_type_state(sorted, state);
  state = at::native::update_result_type_state(values, state);
  return at::native::result_type(state);
}

bool searchsorted_into(const at::Tensor& sorted, const at::Tensor& self, bool out_int32, bool right,
                       std::optional<c10::string_view> side, const std::optional<at::Tensor>& sorter_opt,
                       at::Tensor& out) {
  const at::Tensor sorter = sorter_opt.value_or(at::Tensor());
  at::native::searchsorted_pre_check(sorted, self, out, out_int32, right, side, sorter);
  const at::ScalarType dtype = common_dtype(sorted, self);
  if (at::isComplexType(dtype) || !launchable_overlap(out, self) || !launchable_overlap(out, sorted)) return false;
  at::native::resize_output(out, self.sizes());
  if (self.numel() == 0) return true;
  const bool upper = side.has_value() ? *side == "right" : right;
  // Values and positions as [..., N]; a 1-D sorted sequence (and its sorter) repeated for every row.
  const at::Tensor values = (self.dim() == 0 ? self.reshape({1}) : self).to(dtype);
  const at::Tensor positions = self.dim() == 0 ? out.view({1}) : out;
  at::Tensor lines = sorted.to(dtype), order = sorter;
  if (lines.dim() == 1 && values.dim() > 1) {
    std::vector<int64_t> sizes(values.sizes().begin(), values.sizes().end());
    sizes.back() = lines.size(0);
    lines = lines.expand(sizes);
    if (order.defined()) order = order.expand(sizes);
  }
  KernelArgs args;
  args.input(lines);
  if (order.defined()) args.input(order);
  else args.absent_input();
  args.input(values).output(positions).scalar(upper);
  return launch(self.device().index(), HAL_OP_SEARCHSORTED, args);
}

at::ScalarType position_dtype(bool out_int32) { return out_int32 ? at::kInt : at::kLong; }

std::optional<at::Tensor> native_searchsorted(const at::Tensor& sorted, const at::Tensor& self, bool out_int32,
                                              bool right, std::optional<c10::string_view> side,
                                              const std::optional<at::Tensor>& sorter) {
  at::Tensor out = at::empty({0}, self.options().dtype(position_dtype(out_int32)));
  if (!searchsorted_into(sorted, self, out_int32, right, side, sorter, out)) return std::nullopt;
  return out;
}
bool native_searchsorted_out(const at::Tensor& sorted, const at::Tensor& self, bool out_int32, bool right,
                             std::optional<c10::string_view> side, const std::optional<at::Tensor>& sorter,
                             at::Tensor& out) {
  return searchsorted_into(sorted, self, out_int32, right, side, sorter, out);
}
std::optional<at::Tensor> native_searchsorted_scalar(const at::Tensor& sorted, const at::Scalar& self, bool out_int32,
                                                     bool right, std::optional<c10::string_view> side,
                                                     const std::optional<at::Tensor>& sorter) {
  return native_searchsorted(sorted, at::native::searchsorted_scalar_tensor(self, sorted.device()), out_int32, right,
                             side, sorter);
}
bool native_searchsorted_scalar_out(const at::Tensor& sorted, const at::Scalar& self, bool out_int32, bool right,
                                    std::optional<c10::string_view> side, const std::optional<at::Tensor>& sorter,
                                    at::Tensor& out) {
  return searchsorted_into(sorted, at::native::searchsorted_scalar_tensor(self, sorted.device()), out_int32, right,
                           side, sorter, out);
}

// bucketize(x, boundaries) is searchsorted(boundaries, x) with 1-D boundaries.
void one_dimensional_boundaries(const at::Tensor& boundaries) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
}
std::optional<at::Tensor> native_bucketize(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32,
                                           bool right) {
  one_dimensional_boundaries(boundaries);
  return native_searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}
bool native_bucketize_out(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32, bool right,
                          at::Tensor& out) {
  one_dimensional_boundaries(boundaries);
  return searchsorted_into(boundaries, self, out_int32, right, std::nullopt, std::nullopt, out);
}
std::optional<at::Tensor> native_bucketize_scalar(const at::Scalar& self, const at::Tensor& boundaries, bool out_int32,
                                                  bool right) {
  one_dimensional_boundaries(boundaries);
  return native_searchsorted_scalar(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, searchsorted_Tensor, "searchsorted.Tensor", launches(HAL_OP_SEARCHSORTED), native_searchsorted);
  HAL_NATIVE(m, searchsorted_Tensor_out, "searchsorted.Tensor_out", launches(HAL_OP_SEARCHSORTED),
             native_searchsorted_out);
  HAL_NATIVE(m, searchsorted_Scalar, "searchsorted.Scalar", launches(HAL_OP_SEARCHSORTED),
             native_searchsorted_scalar);
  HAL_NATIVE(m, searchsorted_Scalar_out, "searchsorted.Scalar_out", launches(HAL_OP_SEARCHSORTED),
             native_searchsorted_scalar_out);
  HAL_NATIVE(m, bucketize_Tensor, "bucketize.Tensor", launches(HAL_OP_SEARCHSORTED), native_bucketize);
  HAL_NATIVE(m, bucketize_Tensor_out, "bucketize.Tensor_out", launches(HAL_OP_SEARCHSORTED), native_bucketize_out);
  HAL_NATIVE(m, bucketize_Scalar, "bucketize.Scalar", launches(HAL_OP_SEARCHSORTED), native_bucketize_scalar);
}

}  // namespace
}  // namespace torch_hal::native
