// kthvalue's CPU kernel picks with a quickselect, and which of several equal elements it leaves at position k - 1
// follows from the swaps it makes, not from any sort. This replays those swaps on all rows at once with whole-row
// tensor ops (gather, scatter, cumsum, where), so that kthvalue on hal returns the CPU's indices with ties too.
// Checked against the CPU kernel by experiment (random rows up to 700 long, few distinct values, NaNs).
//
// One step of the CPU's loop on the active part [L, R] of a row: the pivot is the median of three (after moving
// the middle element next to L), then i runs up from L + 1 over elements below the pivot and j down from R over
// elements above it, and elements at i and j swap until the two cross. Those stops are, before the crossing, the
// m-th element >= pivot from the left (a_m) and the m-th element <= pivot from the right (b_m), so the swaps are
// the pairs (a_m, b_m) with a_m <= b_m, all made at once; where i and j end follows from the last such pair. Rows
// whose part is done stay as they are; the loop ends when no row has a part of three or more elements left.
#include "ops/quickselect_replay.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

namespace torch_hal::native {
namespace {

at::Tensor column(const at::Tensor& t, const at::Tensor& p) { return t.gather(1, p.unsqueeze(1)).squeeze(1); }

// Each element's place in the CPU's order as an integer (equal elements, NaNs among them, get equal ranks), so
// that the replay compares integers only.
at::Tensor dense_ranks(const at::Tensor& sorted, const at::Tensor& order) {
  const int64_t n = sorted.size(1);
  const at::Tensor next = sorted.narrow(1, 1, n - 1), prev = sorted.narrow(1, 0, n - 1);
  at::Tensor same = next.eq(prev);
  if (at::isFloatingType(sorted.scalar_type())) same.logical_or_(at::isnan(next).logical_and_(at::isnan(prev)));
  const at::Tensor first = at::zeros({sorted.size(0), 1}, order.options());
  const at::Tensor step = at::cat({first, same.logical_not().to(at::kLong)}, 1).cumsum(1);
  return at::empty_like(step).scatter_(1, order, step);
}

struct Rows {
  at::Tensor ranks;  // [rows, n], permuted as the CPU permutes its copy of the values
  at::Tensor index;  // [rows, n], the original index of each element
};

// Swaps elements p and q of the rows where `where` holds.
void swap_where(Rows& rows, const at::Tensor& p, const at::Tensor& q, const at::Tensor& where) {
  const at::Tensor from_p = at::where(where, q, p).unsqueeze(1), from_q = at::where(where, p, q).unsqueeze(1);
  for (at::Tensor* t : {&rows.ranks, &rows.index}) {
    const at::Tensor to_p = t->gather(1, from_p), to_q = t->gather(1, from_q);
    *t = t->scatter(1, p.unsqueeze(1), to_p).scatter(1, q.unsqueeze(1), to_q);
  }
}

}  // namespace

at::Tensor quickselect_indices(const at::Tensor& sorted, const at::Tensor& order, int64_t k) {
  const int64_t count = sorted.size(0), n = sorted.size(1), target = k - 1;
  const int64_t none_above = n + 5, none_below = -5;  // "no such position" beyond either end
  const auto longs = order.options().dtype(at::kLong);
  const at::Tensor pos = at::arange(n, longs).unsqueeze(0);
  const at::Tensor positions = pos.expand({count, n});
  Rows rows{dense_ranks(sorted, order), positions.contiguous()};
  at::Tensor L = at::zeros({count}, longs), R = at::full({count}, n - 1, longs);
  while (true) {
    // A part of two elements is put in order and done (L moves onto R).
    const at::Tensor two = R.eq(L.add(1));
    swap_where(rows, L, R, two.logical_and(column(rows.ranks, L).gt(column(rows.ranks, R))));
    L = at::where(two, R, L);
    const at::Tensor active = R.gt(L.add(1));
    if (!active.any().item<bool>()) break;

    // The pivot: the median of L, the middle (moved to L + 1) and R, left at L.
    const at::Tensor L1 = L.add(1).clamp_max(n - 1);
    swap_where(rows, L.add(R.sub(L).div(2, "floor")), L1, active);
    swap_where(rows, L1, R, active.logical_and(column(rows.ranks, L1).gt(column(rows.ranks, R))));
    swap_where(rows, L, R, active.logical_and(column(rows.ranks, L).gt(column(rows.ranks, R))));
    swap_where(rows, L1, L, active.logical_and(column(rows.ranks, L1).gt(column(rows.ranks, L))));

    // The stops of i (a_m) and j (b_m), numbered from 1 in columns of A and B; column 0 stands for "before any".
    const at::Tensor pivot = column(rows.ranks, L).unsqueeze(1), act = active.unsqueeze(1);
    const at::Tensor low = L.unsqueeze(1), high = R.unsqueeze(1);
    const at::Tensor ge =
        pos.ge(low.add(2)).logical_and_(pos.le(high)).logical_and_(rows.ranks.ge(pivot)).logical_and_(act);
    const at::Tensor le =
        pos.ge(low).logical_and_(pos.le(high.sub(1))).logical_and_(rows.ranks.le(pivot)).logical_and_(act);
    const at::Tensor nth_ge = ge.to(at::kLong).cumsum(1).mul_(ge);
    const at::Tensor nth_le = le.to(at::kLong).flip({1}).cumsum(1).flip({1}).mul_(le);
    at::Tensor A = at::full({count, n + 2}, none_above, longs).scatter_(1, nth_ge, positions);
    at::Tensor B = at::full({count, n + 2}, none_below, longs).scatter_(1, nth_le, positions);
    A.select(1, 0).fill_(-1);
    B.select(1, 0).fill_(none_above);

    // M: the last pair that swaps (a_m <= b_m holds for a prefix of m), and where i and j end.
    at::Tensor swaps = A.le(B);
    swaps.select(1, 0).fill_(true);
    const at::Tensor M = swaps.to(at::kLong).cumprod(1).sum(1).sub_(1);
    const at::Tensor before = M.sub(1).clamp_min(0), has_before = M.ge(2), none = M.eq(0);
    const at::Tensor aM = column(A, M), bM = column(B, M);
    // i ends at a_{M+1} or on the nearest b it swapped (b_M, or b_{M-1} where a_M == b_M), whichever comes first;
    // j likewise.
    const at::Tensor b_swapped = at::where(bM.gt(aM), bM, at::where(has_before, column(B, before), none_above));
    const at::Tensor a_swapped = at::where(aM.lt(bM), aM, at::where(has_before, column(A, before), none_below));
    const at::Tensor i_on_swapped = at::where(none, none_above, b_swapped);
    const at::Tensor j_on_swapped = at::where(none, none_below, a_swapped);
    const at::Tensor i = at::minimum(column(A, M.add(1)), i_on_swapped);
    at::Tensor j = at::maximum(column(B, M.add(1)), j_on_swapped);

    // The swaps of pairs 1..M at once (a pair a_m == b_m swaps nothing), through a permutation of the row whose
    // extra column n takes the writes of the other pairs.
    const at::Tensor m = at::arange(n + 2, longs).unsqueeze(0);
    const at::Tensor swapped = m.le(M.unsqueeze(1)).logical_and_(m.ge(1)).logical_and_(A.ne(B));
    const at::Tensor from = at::where(swapped, A, n), to = at::where(swapped, B, n);
    const at::Tensor identity = at::cat({positions, at::full({count, 1}, n, longs)}, 1);
    const at::Tensor perm = identity.scatter(1, from, to).scatter_(1, to, from).narrow(1, 0, n);
    rows.ranks = at::where(act, rows.ranks.gather(1, perm), rows.ranks);
    rows.index = at::where(act, rows.index.gather(1, perm), rows.index);

    // The pivot goes to j; the part left is the side of j that holds k - 1.
    j = at::where(active, j, L);
    swap_where(rows, L, j.clamp(0, n - 1), active);
    const at::Tensor new_L = at::where(active.logical_and(j.le(target)), i, L);
    R = at::where(active.logical_and(j.ge(target)), j.sub(1), R);
    L = new_L;
  }
  return rows.index.select(1, target);
}

}  // namespace torch_hal::native
