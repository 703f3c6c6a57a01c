// median, nanmedian and kthvalue from a stable sort along the dim and a gather of one position per line. ATen gives
// them CPU kernels of their own (nth_element / quickselect), so without these they took the CPU fallback.
//
// Which element is picked among equal ones is what the CPU kernels return, found by experiment against them:
//   - median: with a NaN in the line, its first NaN; else position (n - 1) / 2 of the stable sort (the CPU's
//     selection breaks ties by index, which a stable sort reproduces).
//   - nanmedian: position (c - 1) / 2 of the stable sort of the c non-NaN elements (NaNs sort last); a line of NaNs
//     only gets the index that std::nth_element leaves at the front of n elements that all compare equal, which
//     depends on n alone, so it is computed here with the same std::nth_element.
//   - kthvalue: position k - 1 (NaN sorts last, as the CPU's order has it). The CPU's quickselect leaves ties in an
//     order of its own, which no sort reproduces: where some line's k-th value occurs more than once, the indices
//     come from a replay of that quickselect (quickselect_replay.cpp), slower, so only then.
// Dtypes the CPU kernels do not take (bool, complex, ...) keep ATen's route and its errors.
#include <ATen/ops/full.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/where.h>
#include <ATen/native/Resize.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/quickselect_replay.h"
#include "ops/sortable_dtypes.h"

namespace torch_hal::native {
namespace {

using Picked = std::tuple<at::Tensor, at::Tensor>;
using PickedOut = std::tuple<at::Tensor&, at::Tensor&>;

// The dtypes of the CPU kernels: the sortable ones but bool.
bool orderable(at::ScalarType t) { return t != at::kBool && sortable_on_device(t); }

// One line per position of the other dims: a 0-dim tensor is a line of one.
struct Lines {
  at::Tensor self;  // at least 1-d
  int64_t dim;      // wrapped
  bool scalar;      // the input was 0-dim: so are the results
};
Lines lines_of(const at::Tensor& self, int64_t dim, const char* op) {
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  Lines lines{self.dim() == 0 ? self.reshape({1}) : self, self.dim() == 0 ? 0 : wrapped, self.dim() == 0};
  TORCH_CHECK_INDEX(lines.self.size(lines.dim) != 0, op, "(): Expected reduction dim ", wrapped,
                    " to have non-zero size.");
  return lines;
}

std::vector<int64_t> kept_sizes(const Lines& lines) {
  std::vector<int64_t> sizes = lines.self.sizes().vec();
  sizes[lines.dim] = 1;
  return sizes;
}

// Results of kept_sizes in the shape the op returns.
Picked shaped(const Lines& lines, at::Tensor values, at::Tensor indices, bool keepdim) {
  if (lines.scalar) return {values.reshape({}), indices.reshape({})};
  if (!keepdim) return {values.squeeze(lines.dim), indices.squeeze(lines.dim)};
  return {std::move(values), std::move(indices)};
}

// The sorted line's element at `position` (a long tensor of kept_sizes), and its index in the line.
Picked pick(const Lines& lines, const at::Tensor& sorted, const at::Tensor& order, const at::Tensor& position,
            bool keepdim) {
  return shaped(lines, sorted.gather(lines.dim, position), order.gather(lines.dim, position), keepdim);
}

at::Tensor constant_position(const Lines& lines, int64_t position) {
  return at::full(kept_sizes(lines), position, lines.self.options().dtype(at::kLong));
}

// The NaNs of each line (none for integers), kept_sizes.
std::optional<at::Tensor> nan_counts(const Lines& lines) {
  if (!at::isFloatingType(lines.self.scalar_type())) return std::nullopt;
  return at::isnan(lines.self).sum(lines.dim, /*keepdim=*/true);
}

// The index std::nth_element leaves at the front of n elements that all compare equal (a line of NaNs).
int64_t front_of_equal_elements(int64_t n) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::nth_element(order.begin(), order.begin(), order.end(), [](int64_t, int64_t) { return false; });
  return order.front();
}

Picked median_of_lines(const Lines& lines, bool ignore_nan, bool keepdim) {
  const int64_t n = lines.self.size(lines.dim);
  const auto [sorted, order] = at::sort(lines.self, /*stable=*/true, lines.dim, /*descending=*/false);
  const auto nans = nan_counts(lines);
  if (!nans.has_value()) return pick(lines, sorted, order, constant_position(lines, (n - 1) / 2), keepdim);
  if (!ignore_nan) {  // the first NaN, where there is one: n - nans in the sorted line
    at::Tensor first_nan = nans->neg().add_(n);
    return pick(lines, sorted, order, at::where(nans->gt(0), first_nan, (n - 1) / 2), keepdim);
  }
  at::Tensor numbers = nans->neg().add_(n);
  at::Tensor middle = numbers.sub(1).clamp_min_(0).div_(2, "floor");
  at::Tensor position = at::where(numbers.gt(0), middle, front_of_equal_elements(n));
  return pick(lines, sorted, order, position, keepdim);
}

std::optional<PickedOut> write_picked(Picked picked, at::Tensor& values, at::Tensor& indices) {
  at::native::resize_output(values, std::get<0>(picked).sizes());
  at::native::resize_output(indices, std::get<1>(picked).sizes());
  values.copy_(std::get<0>(picked));
  indices.copy_(std::get<1>(picked));
  return PickedOut(values, indices);
}

bool out_dtypes_match(const at::Tensor& self, const at::Tensor& values, const at::Tensor& indices) {
  return values.scalar_type() == self.scalar_type() && indices.scalar_type() == at::kLong;
}

std::optional<PickedOut> median_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, bool ignore_nan,
                                        at::Tensor& values, at::Tensor& indices) {
  if (!orderable(self.scalar_type()) || !out_dtypes_match(self, values, indices)) return std::nullopt;
  const Lines lines = lines_of(self, dim, ignore_nan ? "nanmedian" : "median");
  return write_picked(median_of_lines(lines, ignore_nan, keepdim), values, indices);
}
std::optional<PickedOut> native_median_dim_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                  at::Tensor& values, at::Tensor& indices) {
  return median_dim_out(self, dim, keepdim, /*ignore_nan=*/false, values, indices);
}
std::optional<PickedOut> native_nanmedian_dim_values(const at::Tensor& self, int64_t dim, bool keepdim,
                                                     at::Tensor& values, at::Tensor& indices) {
  return median_dim_out(self, dim, keepdim, /*ignore_nan=*/true, values, indices);
}

// The median of all elements (values only). An empty input gives NaN; for integers that NaN's conversion is
// the CPU's business, so they keep ATen's route.
std::optional<at::Tensor> median_of_all(const at::Tensor& self, bool ignore_nan) {
  if (!orderable(self.scalar_type())) return std::nullopt;
  if (self.numel() == 0) {
    if (!at::isFloatingType(self.scalar_type())) return std::nullopt;
    return at::full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  }
  const Lines lines{self.reshape({-1}), 0, false};
  return std::get<0>(median_of_lines(lines, ignore_nan, /*keepdim=*/false));
}
std::optional<at::Tensor> native_median(const at::Tensor& self) { return median_of_all(self, false); }
std::optional<at::Tensor> native_nanmedian(const at::Tensor& self) { return median_of_all(self, true); }

// True when a line's k-th value (position k - 1 of `sorted`) equals a neighbour: a tie whose index only the CPU's
// quickselect knows. NaNs count as equal, as they do in the CPU's order.
bool kth_is_tied(const Lines& lines, const at::Tensor& sorted, int64_t k) {
  const int64_t n = sorted.size(lines.dim);
  const at::Tensor kth = sorted.narrow(lines.dim, k - 1, 1);
  auto same = [&](const at::Tensor& other) {
    at::Tensor eq = other.eq(kth);
    if (at::isFloatingType(sorted.scalar_type())) eq.logical_or_(at::isnan(other).logical_and_(at::isnan(kth)));
    return eq.any().item<bool>();
  };
  return (k > 1 && same(sorted.narrow(lines.dim, k - 2, 1))) || (k < n && same(sorted.narrow(lines.dim, k, 1)));
}

std::optional<PickedOut> native_kthvalue_values(const at::Tensor& self, c10::SymInt k_sym, int64_t dim,
                                                bool keepdim, at::Tensor& values, at::Tensor& indices) {
  if (!orderable(self.scalar_type()) || !out_dtypes_match(self, values, indices)) return std::nullopt;
  const int64_t k = k_sym.guard_int(__FILE__, __LINE__);
  const Lines lines = lines_of(self, dim, "kthvalue");
  const int64_t n = lines.self.size(lines.dim);
  TORCH_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", lines.dim);
  const auto [sorted, order] = at::sort(lines.self, /*stable=*/true, lines.dim, /*descending=*/false);
  const at::Tensor position = constant_position(lines, k - 1);
  if (lines.self.numel() == 0 || !kth_is_tied(lines, sorted, k)) {
    return write_picked(pick(lines, sorted, order, position, keepdim), values, indices);
  }
  // The CPU's index among ties: its quickselect replayed on the lines as rows.
  auto as_rows = [&](const at::Tensor& t) { return t.movedim(lines.dim, -1).reshape({-1, n}); };
  at::Tensor kth_indices = quickselect_indices(as_rows(sorted), as_rows(order), k);
  std::vector<int64_t> others = lines.self.movedim(lines.dim, -1).sizes().vec();
  others.back() = 1;
  kth_indices = kth_indices.reshape(others).movedim(-1, lines.dim);
  return write_picked(shaped(lines, sorted.gather(lines.dim, position), kth_indices, keepdim), values, indices);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, median, "median", launches(), native_median);
  HAL_NATIVE(m, median_dim_values, "median.dim_values", launches(), native_median_dim_values);
  HAL_NATIVE(m, nanmedian, "nanmedian", launches(), native_nanmedian);
  HAL_NATIVE(m, nanmedian_dim_values, "nanmedian.dim_values", launches(), native_nanmedian_dim_values);
  HAL_NATIVE(m, kthvalue_values, "kthvalue.values", launches(), native_kthvalue_values);
}

}  // namespace
}  // namespace torch_hal::native
