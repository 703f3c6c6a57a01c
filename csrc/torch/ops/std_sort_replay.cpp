// Several CPU kernels (mode, unique, unique_dim) sort with std::sort, which is not stable: where equal elements
// are told apart by the result (mode's index, unique's inverse among NaNs, which of -0.0 and 0.0 unique keeps),
// only the same sequence of swaps gives the CPU's answer. This replays libstdc++'s introsort on all rows at once
// with whole-row tensor ops (gather, scatter, cumsum, where). Checked against the CPU kernels by experiment.
//
// One round partitions every part longer than 16 of every row, as the recursion would, all parts at once (they are
// disjoint, so the order in which std::sort visits them does not matter):
//   - the median of the elements at first + 1, the middle and last - 1 is swapped to `first`: the pivot;
//   - the unguarded partition of [first + 1, last): i runs up over elements below the pivot and j down over elements
//     above it, and the elements at i and j swap until the two cross. Before the crossing those stops are the m-th
//     element >= pivot from the left (a_m) and the m-th element <= pivot from the right (b_m), so the swaps are the
//     pairs (a_m, b_m) with a_m < b_m, made at once; the cut (where i stops) is min(a_{k+1}, b_k) after k swaps;
//   - the parts [first, cut) and [cut, last) go on with one less depth.
// The final insertion sort then is stable on the keys (they are a strict weak order), so it is a stable sort.
#include "ops/std_sort_replay.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/full.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>

namespace torch_hal::native {
namespace {

constexpr int64_t kInsertionSortThreshold = 16;  // libstdc++'s _S_threshold

// 2 * floor(log2(n)), libstdc++'s depth limit.
int64_t depth_limit(int64_t n) {
  int64_t lg = 0;
  while ((int64_t{1} << (lg + 1)) <= n) ++lg;
  return 2 * lg;
}

// The state of the replay: per row and position, the key and original position of the element there, and the
// bounds [start, end) and remaining depth of the part it lies in.
struct Parts {
  at::Tensor keys, original, start, end, depth, position;
  int64_t n;

  at::Tensor key_at(const at::Tensor& p) const { return keys.gather(1, p); }
  // Moves the element at src[p] to p, for every p.
  void permute(const at::Tensor& src) {
    keys = keys.gather(1, src);
    original = original.gather(1, src);
  }
};

// Swaps the median of three to the front of every active part (libstdc++'s __move_median_to_first).
void move_median_to_first(Parts& s, const at::Tensor& active) {
  const at::Tensor& f = s.start;
  const at::Tensor a = f + 1, b = f + (s.end - f).div(2, "floor"), c = s.end - 1;
  const at::Tensor ka = s.key_at(a.clamp_max(s.n - 1)), kb = s.key_at(b.clamp_max(s.n - 1)),
                   kc = s.key_at(c.clamp_min(0));
  const at::Tensor median = at::where(ka.lt(kb), at::where(kb.lt(kc), b, at::where(ka.lt(kc), c, a)),
                                      at::where(ka.lt(kc), a, at::where(kb.lt(kc), c, b)));
  const at::Tensor& p = s.position;
  s.permute(at::where(active.logical_and(p.eq(f)), median, at::where(active.logical_and(p.eq(median)), f, p)));
}

// Table with, at first + m - 1 of each part, the position of the part's m-th stop (counted by `rank`), else `none`.
at::Tensor stops_table(const Parts& s, const at::Tensor& is_stop, const at::Tensor& rank, int64_t none) {
  at::Tensor table = at::full({s.keys.size(0), s.n + 1}, none, s.keys.options());
  const at::Tensor spare = at::full_like(s.position, s.n);  // non-stops write to the spare column
  table.scatter_(1, at::where(is_stop, s.start + rank - 1, spare), s.position);
  return table.narrow(1, 0, s.n);
}

// Partitions every active part around the pivot at its front and splits it at the cut.
void partition(Parts& s, const at::Tensor& active) {
  const at::Tensor& p = s.position;
  const at::Tensor& f = s.start;
  const at::Tensor pivot = s.key_at(f);
  const at::Tensor inner = active.logical_and(p.gt(f));
  const at::Tensor left = inner.logical_and(s.keys.ge(pivot)), right = inner.logical_and(s.keys.le(pivot));
  const at::Tensor left_seen = left.to(at::kLong).cumsum(1), right_seen = right.to(at::kLong).cumsum(1);
  const at::Tensor left_rank = left_seen - left_seen.gather(1, f);
  const at::Tensor right_rank = right_seen.gather(1, s.end - 1) - right_seen + right.to(at::kLong);
  const at::Tensor a = stops_table(s, left, left_rank, 2 * s.n), b = stops_table(s, right, right_rank, -1);
  // Position first + m - 1 stands for pair m; the pairs that swap are a prefix.
  const at::Tensor swaps = active.logical_and(a.lt(b));
  const at::Tensor swaps_seen = swaps.to(at::kLong).cumsum(1);
  const at::Tensor before = at::where(f.gt(0), swaps_seen.gather(1, (f - 1).clamp_min(0)), at::zeros_like(f));
  const at::Tensor k = swaps_seen.gather(1, s.end - 1) - before;
  const at::Tensor next_left = a.gather(1, (f + k).clamp_max(s.n - 1));
  const at::Tensor last_right = at::where(k.gt(0), b.gather(1, (f + k - 1).clamp_min(0)), at::full_like(f, 2 * s.n));
  const at::Tensor cut = at::minimum(next_left, last_right);

  const at::Tensor spare = at::full_like(p, s.n);
  at::Tensor src = at::cat({p, spare.narrow(1, 0, 1)}, 1);
  src.scatter_(1, at::where(swaps, a, spare), at::where(swaps, b, spare));
  src.scatter_(1, at::where(swaps, b, spare), at::where(swaps, a, spare));
  s.permute(src.narrow(1, 0, s.n));

  s.end = at::where(active.logical_and(p.lt(cut)), cut, s.end);
  s.start = at::where(active.logical_and(p.ge(cut)), cut, s.start);
  s.depth = at::where(active, s.depth - 1, s.depth);
}

}  // namespace

std::optional<at::Tensor> std_sort_order(const at::Tensor& keys) {
  const int64_t rows = keys.size(0), n = keys.size(1);
  const auto long_options = keys.options().dtype(at::kLong);
  at::Tensor position = at::arange(n, long_options).expand({rows, n}).contiguous();
  Parts s{keys, position, at::zeros({rows, n}, long_options), at::full({rows, n}, n, long_options),
          at::full({rows, n}, depth_limit(n), long_options), position, n};
  if (n > kInsertionSortThreshold) {
    // One host read per round: whether any part is still longer than the insertion sort takes.
    while (true) {
      const at::Tensor active = (s.end - s.start).gt(kInsertionSortThreshold);
      const at::Tensor out_of_depth = active.logical_and(s.depth.eq(0));
      const at::Tensor flags = at::stack({active.any(), out_of_depth.any()}).cpu();
      if (flags[1].item<bool>()) return std::nullopt;  // heapsort
      if (!flags[0].item<bool>()) break;
      move_median_to_first(s, active);
      partition(s, active);
    }
  }
  const at::Tensor final_order = std::get<1>(at::sort(s.keys, /*stable=*/true, 1, /*descending=*/false));
  return s.original.gather(1, final_order);
}

}  // namespace torch_hal::native
