// nonzero, nonzero_static, count_nonzero.dim_IntList, masked_select and masked_scatter_: ops built on the positions
// of a mask's true elements, composed from native pieces.
//
// The positions: an inclusive cumsum of the flat mask gives each true element its rank among the true ones (the
// last rank is the count, read back with one synchronization, as CUDA's nonzero does); one INDEX_PUT then writes
// each true element's linear position into slot rank - 1 of a [count + 1] buffer, every false element into the
// extra slot `count`, which is dropped. nonzero_static knows its size up front and needs no synchronization.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tensor.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"
#include "ops/indexing_launch.h"

namespace torch_hal::native {
namespace {

at::Tensor as_mask(const at::Tensor& self) { return self.scalar_type() == at::kBool ? self : self.ne(0); }

// The row-major linear positions (int64, ascending) of mask's true elements: [count]; with `static_size`, exactly
// that many, the first ones, padded with -1. nullopt when the adapter has no INDEX_PUT.
std::optional<at::Tensor> true_positions(const at::Tensor& mask, std::optional<int64_t> static_size = std::nullopt) {
  const at::Tensor flat = mask.reshape({-1});
  const int64_t n = flat.numel();
  const auto long_options = mask.options().dtype(at::kLong);
  if (n == 0) return static_size ? at::full({*static_size}, -1, long_options) : at::empty({0}, long_options);
  at::Tensor rank = at::cumsum(flat, 0, at::kLong);
  const int64_t count = static_size ? *static_size : rank.select(0, n - 1).item<int64_t>();
  if (count == 0) return at::empty({0}, long_options);
  if (!static_size && count == n) return at::arange(n, long_options);  // all true
  // Slot rank - 1 for a true element; the dump slot `count` for false ones (and, static, for those past `size`).
  // Selected arithmetically, count + is_true * (rank - 1 - count), from int64 arithmetic only: some adapters (the
  // OpenCL one) have no int64 `where`.
  at::Tensor slot = rank.sub_(count + 1).mul_(flat.to(at::kLong)).add_(count);
  if (static_size) slot.clamp_max_(count);
  at::Tensor positions = static_size ? at::full({count + 1}, -1, long_options) : at::empty({count + 1}, long_options);
  if (!put_rows(positions, slot, at::arange(n, long_options), /*accumulate=*/false)) return std::nullopt;
  return positions.slice(0, 0, count);
}

// Row-major coordinates [count, ndim] of linear positions [count] in a tensor of `sizes` (ndim >= 1).
at::Tensor unravel(const at::Tensor& positions, at::IntArrayRef sizes) {
  if (sizes.size() == 1) return positions.unsqueeze(1);
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * sizes[d + 1];
  const at::Tensor divisors = at::tensor(strides, at::kLong).to(positions.device());
  const at::Tensor extents = at::tensor(sizes.vec(), at::kLong).to(positions.device());
  return positions.unsqueeze(1).div(divisors, "floor").remainder_(extents);
}

std::optional<at::Tensor> nonzero(const at::Tensor& self) {
  if (self.dim() == 0) {  // [count, 0], count 1 where the value is nonzero (read back, as nonzero always synchronizes)
    return at::empty({as_mask(self).item<bool>() ? 1 : 0, 0}, self.options().dtype(at::kLong));
  }
  const std::optional<at::Tensor> positions = true_positions(as_mask(self));
  if (!positions) return std::nullopt;
  return unravel(*positions, self.sizes());
}

std::optional<at::Tensor> nonzero_static(const at::Tensor& self, c10::SymInt size, int64_t fill_value) {
  const int64_t n = size.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(n >= 0, "nonzero_static: 'size' must be an non-negative integer, but got size: ", n);
  if (self.dim() == 0) return at::empty({n, 0}, self.options().dtype(at::kLong));  // no coordinates to write
  const std::optional<at::Tensor> positions = true_positions(as_mask(self), n);
  if (!positions) return std::nullopt;
  if (n == 0) return at::empty({0, self.dim()}, self.options().dtype(at::kLong));
  at::Tensor coords = unravel(positions->clamp_min(0), self.sizes());
  return coords.masked_fill_(positions->lt(0).unsqueeze(1), fill_value);
}

std::optional<at::Tensor> count_nonzero_dims(const at::Tensor& self, at::IntArrayRef dims) {
  return at::sum(as_mask(self), dims, /*keepdim=*/false, at::kLong);
}

std::optional<at::Tensor> masked_select(const at::Tensor& self, const at::Tensor& mask) {
  if (self.is_complex()) return complex_data_movement::masked_select(self, mask);
  // uint8 masks (deprecated) and masks on another device: ATen's path and messages.
  if (mask.scalar_type() != at::kBool || mask.device() != self.device()) return std::nullopt;
  const auto shape = at::infer_size(self.sizes(), mask.sizes());
  const std::optional<at::Tensor> positions = true_positions(mask.expand(shape));
  if (!positions) return std::nullopt;
  at::Tensor out = at::empty({positions->numel()}, self.options());
  if (!select_rows(out, self.expand(shape).reshape({-1}), 0, *positions)) return std::nullopt;
  return out;
}

// put_rows of indexing_launch.h, a complex self through its real view.
bool put_rows_of(const at::Tensor& out, const at::Tensor& index, const at::Tensor& values) {
  if (out.is_complex()) return complex_data_movement::put_rows(out, index, values, /*accumulate=*/false);
  return put_rows(out, index, values, /*accumulate=*/false);
}

// self[mask] = source[:count], in order. A contiguous self is written through its flat view; another layout
// through the element offsets of the positions' coordinates, in an as_strided view of self's storage.
bool masked_scatter_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& source) {
  if (mask.scalar_type() != at::kBool || mask.device() != self.device()) return false;
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter_: expected self and source to have same ",
              "dtypes but got ", self.scalar_type(), " and ", source.scalar_type());
  const std::optional<at::Tensor> positions = true_positions(mask.expand(self.sizes()));
  if (!positions) return false;
  const int64_t count = positions->numel();
  TORCH_CHECK(source.numel() >= count, "masked_scatter: expected source to have at least as many elements as ",
              "ones in mask (", count, "), but got ", source.numel());
  if (count == 0) return true;
  at::Tensor values = source.reshape({-1}).slice(0, 0, count);
  if (values.is_alias_of(self)) values = values.clone();
  if (self.is_contiguous()) return put_rows_of(self.view({-1}), *positions, values);
  int64_t extent = 1;
  for (int64_t d = 0; d < self.dim(); ++d) extent += (self.size(d) - 1) * self.stride(d);
  const at::Tensor strides = at::tensor(self.strides().vec(), at::kLong).to(self.device());
  const at::Tensor offsets = unravel(*positions, self.sizes()).mul_(strides).sum(1);
  return put_rows_of(self.as_strided({extent}, {1}, self.storage_offset()), offsets, values);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, nonzero, "nonzero", launches(HAL_OP_INDEX_PUT), nonzero);
  HAL_NATIVE(m, nonzero_static, "nonzero_static", launches(HAL_OP_INDEX_PUT), nonzero_static);
  HAL_NATIVE(m, count_nonzero_dim_IntList, "count_nonzero.dim_IntList", launches(), count_nonzero_dims);
  HAL_NATIVE(m, masked_select, "masked_select", launches(HAL_OP_INDEX_PUT, HAL_OP_INDEX_SELECT), masked_select);
  HAL_NATIVE(m, masked_scatter_, "masked_scatter_", launches(HAL_OP_INDEX_PUT), masked_scatter_);
}

}  // namespace
}  // namespace torch_hal::native
