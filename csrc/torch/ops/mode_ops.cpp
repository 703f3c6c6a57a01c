// mode (the most frequent value along a dim, and an index of it) from a stable sort, run lengths by cumulative
// maxima, and a replay of the CPU's std::sort (std_sort_replay.cpp). ATen gives mode a CPU kernel of its own, so
// without this it took the CPU fallback.
//
// What the CPU kernel returns, found by experiment against it: it std::sorts (value, index) pairs of a line by value
// and walks the runs of equal values, keeping the first run longer than all before it. So the value is the smallest
// of the most frequent ones, and the index is that of the element std::sort leaves last in its run. std::sort is not
// stable for lines longer than 16, hence the replay; for shorter ones it is an insertion sort, and the replay
// reduces to a stable sort: the last index of the value.
// Its comparator (<) is no order where NaNs are: a line with a NaN comes out in an order no sort by keys gives, so
// floating inputs with a NaN keep ATen's route (one host read of that flag). So do dtypes the CPU kernel refuses.
#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/sortable_dtypes.h"
#include "ops/std_sort_replay.h"

namespace torch_hal::native {
namespace {

using Mode = std::tuple<at::Tensor, at::Tensor>;
using ModeOut = std::tuple<at::Tensor&, at::Tensor&>;

bool has_nan(const at::Tensor& self) {
  return at::isFloatingType(self.scalar_type()) && at::isnan(self).any().item<bool>();
}

// Each element's rank among the distinct values of its row, and the row's values sorted stably.
std::pair<at::Tensor, at::Tensor> dense_ranks(const at::Tensor& rows) {
  const auto [sorted, order] = at::sort(rows, /*stable=*/true, 1, /*descending=*/false);
  const int64_t n = rows.size(1);
  at::Tensor starts = at::ones_like(sorted, sorted.options().dtype(at::kBool));
  starts.narrow(1, 1, n - 1).copy_(sorted.narrow(1, 1, n - 1).ne(sorted.narrow(1, 0, n - 1)));
  const at::Tensor rank_in_order = starts.to(at::kLong).cumsum(1).sub_(1);
  return {at::empty_like(rank_in_order).scatter_(1, order, rank_in_order), sorted};
}

// Per row, the position (in sorted order) of the last element of the first longest run of equal values.
at::Tensor end_of_first_longest_run(const at::Tensor& sorted) {
  const int64_t n = sorted.size(1);
  const at::Tensor position = at::arange(n, sorted.options().dtype(at::kLong)).expand(sorted.sizes());
  at::Tensor differs = sorted.narrow(1, 1, n - 1).ne(sorted.narrow(1, 0, n - 1));
  at::Tensor starts = at::ones_like(sorted, sorted.options().dtype(at::kBool));
  at::Tensor ends = at::ones_like(starts);
  starts.narrow(1, 1, n - 1).copy_(differs);
  ends.narrow(1, 0, n - 1).copy_(differs);
  const at::Tensor run_start = std::get<0>(at::where(starts, position, 0).cummax(1));
  const at::Tensor length = at::where(ends, position - run_start + 1, 0);
  const at::Tensor longest = std::get<0>(length.max(1, /*keepdim=*/true));
  return std::get<0>(at::where(length.eq(longest), position, n).min(1, /*keepdim=*/true));
}

// mode of each row of `rows` [lines, n], n > 0, no NaNs: values and indices [lines, 1]; nullopt where the replay
// of std::sort would reach its heapsort.
std::optional<Mode> mode_of_rows(const at::Tensor& rows) {
  const auto [ranks, sorted] = dense_ranks(rows);
  const auto cpu_order = std_sort_order(ranks);
  if (!cpu_order.has_value()) return std::nullopt;
  const at::Tensor index = cpu_order->gather(1, end_of_first_longest_run(sorted));
  return Mode(rows.gather(1, index), index);  // (the element itself: which of -0.0 and 0.0 it is)
}

std::optional<Mode> native_mode(const at::Tensor& self, int64_t dim, bool keepdim) {
  if (!sortable_on_device(self.scalar_type())) return std::nullopt;
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  // A 0-dim input is a line of one (the CPU kernel returns uninitialized memory for its value there).
  if (self.dim() == 0) return Mode(self.clone(), at::zeros({}, self.options().dtype(at::kLong)));
  const int64_t n = self.size(wrapped);
  TORCH_CHECK_INDEX(n != 0, "mode(): Expected reduction dim ", wrapped, " to have non-zero size.");
  std::vector<int64_t> kept = self.sizes().vec();
  kept[wrapped] = 1;
  if (self.numel() == 0) {
    at::Tensor values = at::empty(kept, self.options()), indices = at::empty(kept, self.options().dtype(at::kLong));
    return keepdim ? Mode(values, indices) : Mode(values.squeeze(wrapped), indices.squeeze(wrapped));
  }
  if (has_nan(self)) return std::nullopt;
  const at::Tensor moved = self.movedim(wrapped, -1);
  const auto mode = mode_of_rows(moved.reshape({-1, n}));
  if (!mode.has_value()) return std::nullopt;
  std::vector<int64_t> line_sizes = moved.sizes().vec();
  line_sizes.back() = 1;
  auto shaped = [&](const at::Tensor& t) {
    at::Tensor r = t.reshape(line_sizes).movedim(-1, wrapped);
    return keepdim ? r : r.squeeze(wrapped);
  };
  return Mode(shaped(std::get<0>(*mode)), shaped(std::get<1>(*mode)));
}

std::optional<ModeOut> native_mode_values(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values,
                                          at::Tensor& indices) {
  if (values.scalar_type() != self.scalar_type() || indices.scalar_type() != at::kLong) return std::nullopt;
  auto mode = native_mode(self, dim, keepdim);
  if (!mode.has_value()) return std::nullopt;
  at::native::resize_output(values, std::get<0>(*mode).sizes());
  at::native::resize_output(indices, std::get<1>(*mode).sizes());
  values.copy_(std::get<0>(*mode));
  indices.copy_(std::get<1>(*mode));
  return ModeOut(values, indices);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, mode, "mode", launches(), native_mode);
  HAL_NATIVE(m, mode_values, "mode.values", launches(), native_mode_values);
}

}  // namespace
}  // namespace torch_hal::native
