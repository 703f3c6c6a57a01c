#include "ops/host_integer_sum.h"

#include <ATen/ATen.h>
#include <ATen/WrapDimUtilsMulti.h>

#include <vector>

#include "dispatch/native_launch.h"
#include "dispatch/tensor_bridge.h"

namespace torch_hal::native {
namespace {

// The int64 temporary of one slice stays under this.
constexpr int64_t kSliceBytes = int64_t{16} << 20;

}  // namespace

std::optional<at::Tensor> host_integer_sum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                           std::optional<at::ScalarType> dtype) {
  const c10::DeviceIndex device = self.device().index();
  const at::ScalarType input = self.scalar_type();
  if (!c10::isIntegralType(input, /*includeBool=*/true) || input == at::kLong) return std::nullopt;
  if (dtype.value_or(at::kLong) != at::kLong) return std::nullopt;
  if (self.dim() == 0 || self.numel() * 8 <= kSliceBytes) return std::nullopt;
  if (!is_host_accessible(device) || has_native_kernels(device)) return std::nullopt;

  const int64_t ndim = self.dim();
  const auto reduced = at::dim_list_to_bitset(dim.has_value() && !dim->empty() ? *dim : at::IntArrayRef{}, ndim);
  const bool all_dims = !dim.has_value() || dim->empty();
  std::vector<int64_t> reduced_dims, keep_sizes, out_sizes;
  for (int64_t d = 0; d < ndim; ++d) {
    const bool r = all_dims || reduced.test(d);
    if (r) reduced_dims.push_back(d);
    keep_sizes.push_back(r ? 1 : self.size(d));
    if (!r || keepdim) out_sizes.push_back(r ? 1 : self.size(d));
  }

  // Slices along the longest dimension bound the temporary best.
  int64_t slice_dim = 0;
  for (int64_t d = 1; d < ndim; ++d) {
    if (self.size(d) > self.size(slice_dim)) slice_dim = d;
  }
  const int64_t length = self.size(slice_dim);
  const int64_t per_slice = std::max<int64_t>(1, length * kSliceBytes / (self.numel() * 8));
  const bool slice_dim_reduced = keep_sizes[slice_dim] == 1 && (all_dims || reduced.test(slice_dim));

  at::Tensor out = at::empty(keep_sizes, self.options().dtype(at::kLong));
  wait_for_current_stream(device);
  const at::Tensor host_in = cpu_alias(self);
  at::Tensor host_out = cpu_alias(out);
  if (slice_dim_reduced) host_out.zero_();
  for (int64_t start = 0; start < length; start += per_slice) {
    const int64_t n = std::min(per_slice, length - start);
    const at::Tensor part = at::sum(host_in.narrow(slice_dim, start, n), reduced_dims, /*keepdim=*/true, at::kLong);
    if (slice_dim_reduced) {
      host_out.add_(part);
    } else {
      host_out.narrow(slice_dim, start, n).copy_(part);
    }
  }
  return keepdim ? out : out.view(out_sizes);
}

}  // namespace torch_hal::native
