// sort (stable, and the unstable overloads that ATen routes to it) and topk, functional and out=: one
// launch of the adapter's SORT/TOPK kernel (the GPU library sorts a line in a block's shared memory, and longer
// lines as runs it then merges; an adapter returns NOT_SUPPORTED for lines it cannot take, which then take the
// usual route).
#include <ATen/native/Resize.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "dispatch/native_first.h"
#include "dispatch/output_overlap.h"

namespace torch_hal::native {
namespace {

void check_out_dtypes(const at::Tensor& self, const at::Tensor& values, const at::Tensor& indices) {
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.scalar_type(),
              ", but got ", values.scalar_type(), " instead");
  TORCH_CHECK(indices.scalar_type() == at::kLong, "Expected out tensor to have dtype Long, but got ",
              indices.scalar_type(), " instead");
}

// values and indices must not overlap self but as the very same tensor (adapter.h), nor each other.
bool launch_sorting(hal_op_t op, const at::Tensor& self, const at::Tensor& values, const at::Tensor& indices,
                    int64_t dim, bool flag) {
  if (!launchable_overlap(values, self) || !launchable_overlap(indices, self)) return false;
  if (output_overlap(values, indices) != at::MemOverlapStatus::No) return false;
  if (values.numel() == 0) return true;
  KernelArgs args;
  args.input(self).output(values).output(indices).scalar(dim).scalar(flag);
  return launch(self.device().index(), op, args);
}

std::optional<std::tuple<at::Tensor, at::Tensor>> sort(const at::Tensor& self, std::optional<bool> /*stable*/,
                                                       int64_t dim, bool descending) {
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  at::Tensor values = at::empty(self.sizes(), self.options());
  at::Tensor indices = at::empty(self.sizes(), self.options().dtype(at::kLong));
  if (!launch_sorting(HAL_OP_SORT, self, values, indices, wrapped, descending)) return std::nullopt;
  return std::make_tuple(std::move(values), std::move(indices));
}
std::optional<std::tuple<at::Tensor&, at::Tensor&>> sort_out(const at::Tensor& self, std::optional<bool> /*stable*/,
                                                             int64_t dim, bool descending, at::Tensor& values,
                                                             at::Tensor& indices) {
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  check_out_dtypes(self, values, indices);
  at::native::resize_output(values, self.sizes());
  at::native::resize_output(indices, self.sizes());
  if (!launch_sorting(HAL_OP_SORT, self, values, indices, wrapped, descending)) return std::nullopt;
  return std::tuple<at::Tensor&, at::Tensor&>(values, indices);
}

// topk's result shape (self's, k along dim), after ATen's check of k.
std::vector<int64_t> topk_sizes(const at::Tensor& self, int64_t k, int64_t dim) {
  TORCH_CHECK(k >= 0 && k <= (self.dim() > 0 ? self.size(dim) : 1), "selected index k out of range");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) sizes[dim] = k;
  return sizes;
}
std::optional<std::tuple<at::Tensor, at::Tensor>> topk(const at::Tensor& self, c10::SymInt k, int64_t dim,
                                                       bool largest, bool /*sorted: always*/) {
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  const auto sizes = topk_sizes(self, k.guard_int(__FILE__, __LINE__), wrapped);
  at::Tensor values = at::empty(sizes, self.options());
  at::Tensor indices = at::empty(sizes, self.options().dtype(at::kLong));
  if (!launch_sorting(HAL_OP_TOPK, self, values, indices, wrapped, largest)) return std::nullopt;
  return std::make_tuple(std::move(values), std::move(indices));
}
std::optional<std::tuple<at::Tensor&, at::Tensor&>> topk_out(const at::Tensor& self, c10::SymInt k, int64_t dim,
                                                             bool largest, bool /*sorted*/, at::Tensor& values,
                                                             at::Tensor& indices) {
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  const auto sizes = topk_sizes(self, k.guard_int(__FILE__, __LINE__), wrapped);
  check_out_dtypes(self, values, indices);
  at::native::resize_output(values, sizes);
  at::native::resize_output(indices, sizes);
  if (!launch_sorting(HAL_OP_TOPK, self, values, indices, wrapped, largest)) return std::nullopt;
  return std::tuple<at::Tensor&, at::Tensor&>(values, indices);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, sort_stable, "sort.stable", launches(HAL_OP_SORT), sort);
  HAL_NATIVE(m, sort_values_stable, "sort.values_stable", launches(HAL_OP_SORT), sort_out);
  HAL_NATIVE(m, topk, "topk", launches(HAL_OP_TOPK), topk);
  HAL_NATIVE(m, topk_values, "topk.values", launches(HAL_OP_TOPK), topk_out);
}

}  // namespace
}  // namespace torch_hal::native
