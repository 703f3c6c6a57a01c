// _unique2, _unique, unique_dim, unique_consecutive and unique_dim_consecutive from a stable sort (for unique_dim one
// per column, last to first: a lexicographic order of the rows), comparisons of neighbours, cumsum, nonzero and
// index_select. ATen gives them CPU kernels of their own, so without these they took the CPU fallback.
//
// What the CPU kernels return, found by experiment against them: unique and unique_dim sort (the sorted flag is
// ignored: they always do) and keep the first element or row of each run of equal ones; NaNs are never equal (each
// is a value of its own, after the numbers), nor are rows with a NaN. Their sort is std::sort, not stable for more
// than 16 elements, which shows where equal elements differ: which of -0.0 and 0.0 is kept, and the order of the
// NaNs (their inverse indices). There the CPU's order comes from a replay of its std::sort (std_sort_replay.cpp),
// only then, as it takes a host read per round. unique_dim's row comparator is no order where a row has a NaN, so
// such inputs keep ATen's route. The consecutive forms do not sort.
//
// Host reads: the number of runs, in nonzero (the outputs' size); for floating inputs of more than 16 elements
// (rows for unique_dim), whether they hold a -0.0 or a NaN; for unique_dim of floats, whether they hold a NaN.
#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/signbit.h>
#include <ATen/ops/sort.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/sortable_dtypes.h"
#include "ops/std_sort_replay.h"

namespace torch_hal::native {
namespace {

using Unique = std::tuple<at::Tensor, at::Tensor, at::Tensor>;  // values, inverse indices, counts

constexpr int64_t kStableUpTo = 16;  // std::sort is an insertion sort up to this many elements: stable

at::TensorOptions long_options(const at::Tensor& t) { return t.options().dtype(at::kLong); }
at::Tensor no_indices(const at::Tensor& t) { return at::empty({0}, long_options(t)); }

bool has_nan(const at::Tensor& t) { return at::isFloatingType(t.scalar_type()) && at::isnan(t).any().item<bool>(); }

// Whether std::sort's order among equal elements shows in the result: more than 16 of them, floats, and some that
// compare equal but differ (-0.0 and 0.0, or NaNs, which unique's comparator puts together at the end).
bool order_among_equals_shows(const at::Tensor& t, int64_t n, bool nans_too) {
  if (n <= kStableUpTo || !at::isFloatingType(t.scalar_type())) return false;
  at::Tensor differ = t.eq(0).logical_and_(at::signbit(t));
  if (nans_too) differ.logical_or_(at::isnan(t));
  return differ.any().item<bool>();
}

// `is_start` [n] (true where a run begins, at 0 among them) made into the results: the run starts (the one host
// read of their number, in nonzero), each position's run, and each run's length.
struct Runs {
  at::Tensor starts, run_of_position, counts;
};
Runs runs_of(const at::Tensor& is_start) {
  const int64_t n = is_start.size(0);
  Runs runs;
  runs.starts = at::nonzero(is_start).squeeze(1);
  runs.run_of_position = is_start.to(at::kLong).cumsum(0).sub_(1);
  const at::Tensor ends = at::cat({runs.starts.narrow(0, 1, runs.starts.size(0) - 1),
                                   at::full({1}, n, long_options(is_start))});
  runs.counts = ends - runs.starts;
  return runs;
}

// true at 0 and where `differs_from_previous` [n - 1] is.
at::Tensor run_starts(const at::Tensor& differs_from_previous) {
  return at::cat({at::ones({1}, differs_from_previous.options()), differs_from_previous});
}

// Results from runs over `order` (the original positions in sorted order); `values_at` gives the values (elements or
// slices) at original positions.
Unique results(const Runs& runs, const at::Tensor& order, bool return_inverse, bool return_counts,
               const std::function<at::Tensor(const at::Tensor&)>& values_at) {
  at::Tensor inverse;
  if (return_inverse) inverse = at::empty_like(runs.run_of_position).scatter_(0, order, runs.run_of_position);
  return {values_at(order.index_select(0, runs.starts)), return_inverse ? inverse : no_indices(order),
          return_counts ? runs.counts : no_indices(order)};
}

// ---- unique of all elements ----

// The CPU's order of `flat`: its std::sort with NaNs after the numbers and equal to each other.
std::optional<at::Tensor> unique_sort_order(const at::Tensor& flat) {
  const int64_t n = flat.size(0);
  const auto [sorted, order] = at::sort(flat, /*stable=*/true, 0, /*descending=*/false);
  if (!order_among_equals_shows(flat, n, /*nans_too=*/true)) return order;
  const at::Tensor next = sorted.narrow(0, 1, n - 1), prev = sorted.narrow(0, 0, n - 1);
  const at::Tensor same = next.eq(prev).logical_or_(at::isnan(next).logical_and_(at::isnan(prev)));
  const at::Tensor rank_in_order = run_starts(same.logical_not()).to(at::kLong).cumsum(0).sub_(1);
  const at::Tensor ranks = at::empty_like(rank_in_order).scatter_(0, order, rank_in_order);
  auto cpu_order = std_sort_order(ranks.unsqueeze(0));
  if (!cpu_order.has_value()) return std::nullopt;
  return cpu_order->squeeze(0);
}

std::optional<Unique> unique_all(const at::Tensor& self, bool return_inverse, bool return_counts) {
  if (!sortable_on_device(self.scalar_type())) return std::nullopt;
  const at::Tensor flat = self.reshape({-1});
  const int64_t n = flat.size(0);
  if (n == 0) {
    return Unique(at::empty({0}, self.options()),
                  return_inverse ? at::empty(self.sizes(), long_options(self)) : no_indices(self),
                  no_indices(self));
  }
  const auto order = unique_sort_order(flat);
  if (!order.has_value()) return std::nullopt;
  const at::Tensor sorted = flat.index_select(0, *order);
  const Runs runs = runs_of(run_starts(sorted.narrow(0, 1, n - 1).ne(sorted.narrow(0, 0, n - 1))));
  auto [values, inverse, counts] =
      results(runs, *order, return_inverse, return_counts, [&](const at::Tensor& p) { return flat.index_select(0, p); });
  if (return_inverse) inverse = inverse.reshape(self.sizes());
  return Unique(values, inverse, counts);
}

std::optional<Unique> native_unique2(const at::Tensor& self, bool /*sorted: the CPU sorts either way*/,
                                     bool return_inverse, bool return_counts) {
  return unique_all(self, return_inverse, return_counts);
}

std::optional<std::tuple<at::Tensor, at::Tensor>> native_unique(const at::Tensor& self, bool /*sorted*/,
                                                                bool return_inverse) {
  auto unique = unique_all(self, return_inverse, /*return_counts=*/false);
  if (!unique.has_value()) return std::nullopt;
  return std::make_tuple(std::get<0>(*unique), std::get<1>(*unique));
}

// ---- unique along a dim: of the slices (rows) along it ----

// `self` as rows [size(dim), rest], the slices along `dim` flattened as the CPU kernel flattens them.
at::Tensor as_rows(const at::Tensor& self, int64_t dim) {
  return self.movedim(dim, 0).reshape({self.size(dim), -1});
}

// Rows [k, rest] back into slices along `dim` of `self`'s shape.
at::Tensor from_rows(const at::Tensor& rows, const at::Tensor& self, int64_t dim) {
  std::vector<int64_t> sizes = self.movedim(dim, 0).sizes().vec();
  sizes[0] = rows.size(0);
  return rows.reshape(sizes).movedim(0, dim);
}

// The CPU kernels' checks of empty inputs; true where the result is empty (the selected dim has size 0).
bool empty_along(const at::Tensor& self, int64_t dim) {
  if (self.numel() != 0) return false;
  int64_t zero_dims = 0;
  for (int64_t size : self.sizes()) zero_dims += size == 0;
  TORCH_CHECK(zero_dims == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
  TORCH_CHECK(self.size(dim) == 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  return true;
}
Unique empty_unique_dim(const at::Tensor& self) {
  return Unique(at::empty(self.sizes(), self.options()), no_indices(self), no_indices(self));
}

// True where row p differs from row p - 1 in some column (NaNs differ), [n - 1].
at::Tensor rows_differ(const at::Tensor& rows) {
  const int64_t n = rows.size(0);
  return rows.narrow(0, 1, n - 1).ne(rows.narrow(0, 0, n - 1)).any(1);
}

// A stable lexicographic order of the rows: stable sorts by each column, last to first.
at::Tensor lexicographic_order(const at::Tensor& rows) {
  at::Tensor order = at::arange(rows.size(0), long_options(rows));
  for (int64_t column = rows.size(1) - 1; column >= 0; --column) {
    const at::Tensor key = rows.select(1, column).index_select(0, order);
    order = order.index_select(0, std::get<1>(at::sort(key, /*stable=*/true, 0, /*descending=*/false)));
  }
  return order;
}

// (The CPU kernels along a dim return the inverse indices and counts whatever the flags say, so do these.)
std::optional<Unique> native_unique_dim(const at::Tensor& self, int64_t dim, bool /*sorted: the CPU always sorts*/,
                                        bool /*return_inverse*/, bool /*return_counts*/) {
  if (!sortable_on_device(self.scalar_type())) return std::nullopt;
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  if (empty_along(self, wrapped)) return empty_unique_dim(self);
  if (has_nan(self)) return std::nullopt;
  const at::Tensor rows = as_rows(self, wrapped);
  const int64_t n = rows.size(0);
  at::Tensor order = lexicographic_order(rows);
  const at::Tensor is_start = run_starts(rows_differ(rows.index_select(0, order)));
  const Runs runs = runs_of(is_start);
  if (order_among_equals_shows(self, n, /*nans_too=*/false)) {  // which of rows with -0.0 and 0.0 is kept
    const at::Tensor ranks = at::empty_like(runs.run_of_position).scatter_(0, order, runs.run_of_position);
    auto cpu_order = std_sort_order(ranks.unsqueeze(0));
    if (!cpu_order.has_value()) return std::nullopt;
    order = cpu_order->squeeze(0);
  }
  return results(runs, order, /*return_inverse=*/true, /*return_counts=*/true,  // the CPU's do either way
                 [&](const at::Tensor& p) { return from_rows(rows.index_select(0, p), self, wrapped); });
}

// ---- consecutive forms: runs in the order given ----

std::optional<Unique> native_unique_dim_consecutive(const at::Tensor& self, int64_t dim, bool /*return_inverse*/,
                                                    bool /*return_counts*/) {
  if (!sortable_on_device(self.scalar_type())) return std::nullopt;
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  if (empty_along(self, wrapped)) return empty_unique_dim(self);
  const at::Tensor rows = as_rows(self, wrapped);
  const at::Tensor order = at::arange(rows.size(0), long_options(rows));
  return results(runs_of(run_starts(rows_differ(rows))), order, /*return_inverse=*/true, /*return_counts=*/true,
                 [&](const at::Tensor& p) { return from_rows(rows.index_select(0, p), self, wrapped); });
}

std::optional<Unique> native_unique_consecutive(const at::Tensor& self, bool return_inverse, bool return_counts,
                                                std::optional<int64_t> dim) {
  if (!sortable_on_device(self.scalar_type())) return std::nullopt;
  if (dim.has_value() && !(*dim == 0 && self.dim() == 1)) {
    return native_unique_dim_consecutive(self, *dim, /*return_inverse=*/true, /*return_counts=*/true);
  }
  const at::Tensor flat = self.reshape({-1});
  const int64_t n = flat.size(0);
  if (n == 0) {
    return Unique(at::empty({0}, self.options()),
                  return_inverse ? at::empty(self.sizes(), long_options(self)) : no_indices(self),
                  no_indices(self));
  }
  const at::Tensor order = at::arange(n, long_options(flat));
  auto [values, inverse, counts] =
      results(runs_of(run_starts(flat.narrow(0, 1, n - 1).ne(flat.narrow(0, 0, n - 1)))), order, return_inverse,
              return_counts, [&](const at::Tensor& p) { return flat.index_select(0, p); });
  if (return_inverse) inverse = inverse.reshape(self.sizes());
  return Unique(values, inverse, counts);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _unique2, "_unique2", launches(), native_unique2);
  HAL_NATIVE(m, _unique, "_unique", launches(), native_unique);
  HAL_NATIVE(m, unique_dim, "unique_dim", launches(), native_unique_dim);
  HAL_NATIVE(m, unique_consecutive, "unique_consecutive", launches(), native_unique_consecutive);
  HAL_NATIVE(m, unique_dim_consecutive, "unique_dim_consecutive", launches(), native_unique_dim_consecutive);
}

}  // namespace
}  // namespace torch_hal::native
