// cdist and pdist (_cdist_forward, _cdist_backward, _pdist_forward, _pdist_backward) composed from elementwise
// ops, gathers, reductions and the GEMM. ATen gives each a CPU kernel of its own, so without these they took the
// CPU fallback.
//
// The distances are p-norms of the row differences: for cdist the broadcast difference x1[..., i, None, :] -
// x2[..., None, j, :], for pdist the differences of the pairs i < j gathered with index_select. Each norm is
// the reduction the CPU kernel accumulates (a count for p = 0, a sum of |d|, sqrt of a sum of squares, the max
// of |d|, or (sum |d|^p)^(1/p)). Only for p = 2 under compute_mode's rules (use_mm_for_euclid_dist, or more than
// 25 rows with the default mode) is the distance the GEMM form ||a||^2 - 2 a.b + ||b||^2, as ATen's own
// _euclidean_dist; everywhere else the CPU computes the difference directly, and so does this.
//
// The backward ops return the gradient of x1 (cdist; autograd gets x2's by swapping the operands) or of the
// pdist input: for each pair, the derivative of the norm with respect to the difference, times the pair's
// gradient, summed over the other rows. The derivatives are the CPU kernel's, with its conventions where the
// norm is not differentiable: 0 where the distance is 0, 0 at a zero difference for p < 1, sign(d) for p = 1,
// and for p = inf the full gradient to every coordinate whose |d| equals the distance (each of a tie gets it).
// pdist's backward sums over the pairs without a scatter (no atomics): the pair values are gathered into the
// full symmetric [N, N] matrix and the cdist backward of x against itself does the sums.
//
// Float32 and float64 only, as the CPU kernels; the other dtypes, invalid arguments and non-contiguous
// operands where ATen requires them keep ATen's route (its errors). The differences take P * R * M elements
// (the CPU kernel needs none): fine for the sizes these ops see, a memory cost for very large ones.
#include <ATen/ExpandUtils.h>
#include <ATen/ops/_euclidean_dist.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/sign.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <cmath>
#include <optional>
#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

bool distance_dtype(at::ScalarType t) { return t == at::kFloat || t == at::kDouble; }

// ||d||_p over the last dim of the differences d, as the CPU kernel accumulates it.
at::Tensor norm_of_differences(const at::Tensor& d, double p) {
  if (d.size(-1) == 0) {  // no coordinates: every distance is 0 (amax would refuse the empty reduction)
    return at::zeros(d.sizes().slice(0, d.dim() - 1), d.options());
  }
  if (p == 0.0) return d.ne(0).to(d.scalar_type()).sum(-1);  // counted in the float type: a bool sum is no kernel's
  if (p == 1.0) return d.abs().sum(-1);
  if (p == 2.0) return d.mul(d).sum(-1).sqrt();
  if (std::isinf(p)) return d.abs().amax(-1);
  return d.abs().pow(p).sum(-1).pow(1.0 / p);
}

// d(||d||_p)/dd times grad, for differences d [..., M] with their pair's grad and dist [..., 1].
at::Tensor norm_derivative(const at::Tensor& d, const at::Tensor& grad, const at::Tensor& dist, double p) {
  const at::Tensor zero = at::zeros({}, d.options());
  const at::Tensor at_zero_distance = dist.eq(0);
  if (p == 1.0) return grad.mul(at::sign(d));
  if (p < 2.0) {
    at::Tensor r = at::sign(d).mul(d.abs().pow(p - 1)).mul(grad).div(dist.pow(p - 1));
    r = at::where(at_zero_distance, zero, r);
    return p < 1.0 ? at::where(d.eq(0), zero, r) : r;  // |0|^(p-1) is inf there
  }
  if (p == 2.0) return at::where(at_zero_distance, zero, grad.mul(d).div(dist));
  if (std::isinf(p)) return grad.mul(at::sign(d)).mul(d.abs().eq(dist).to(d.scalar_type()));
  return at::where(at_zero_distance, zero, d.mul(d.abs().pow(p - 2)).mul(grad).div(dist.pow(p - 1)));
}

// The rows of x1 against those of x2 [..., R, M] (batch dims broadcast): [..., P, R, M].
at::Tensor row_differences(const at::Tensor& x1, const at::Tensor& x2) {
  return x1.unsqueeze(-2).sub(x2.unsqueeze(-3));
}

// ATen's cdist checks, which the CPU kernel's route raises; false sends the op there.
bool cdist_arguments(const at::Tensor& x1, const at::Tensor& x2, double p) {
  return x1.dim() >= 2 && x2.dim() >= 2 && distance_dtype(x1.scalar_type()) &&
         x2.scalar_type() == x1.scalar_type() && p >= 0 && x1.size(-1) == x2.size(-1);
}

std::optional<at::Tensor> native_cdist_forward(const at::Tensor& x1, const at::Tensor& x2, double p,
                                               std::optional<int64_t> compute_mode) {
  if (!cdist_arguments(x1, x2, p)) return std::nullopt;
  const int64_t mode = compute_mode.value_or(0);
  if (mode < 0 || mode > 2) return std::nullopt;  // ATen's error
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  if (x1.numel() == 0 || x2.numel() == 0) {
    // The broadcast batch, [r1, r2]; zeros when only the columns are empty.
    auto shape = at::infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
    shape.push_back(r1);
    shape.push_back(r2);
    return at::zeros(shape, x1.options());
  }
  if (p == 2.0 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) return at::_euclidean_dist(x1, x2);
  return norm_of_differences(row_differences(x1, x2), p);
}

std::optional<at::Tensor> native_cdist_backward(const at::Tensor& grad, const at::Tensor& x1, const at::Tensor& x2,
                                                double p, const at::Tensor& cdist) {
  if (!cdist_arguments(x1, x2, p) || grad.scalar_type() != x1.scalar_type() ||
      cdist.scalar_type() != x1.scalar_type() || grad.dim() < 2 || cdist.dim() < 2) {
    return std::nullopt;
  }
  // x1 expanded to the broadcast batch: the CPU kernel's result shape (autograd reduces it to x1's).
  auto shape = at::infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
  shape.push_back(x1.size(-2));
  shape.push_back(x1.size(-1));
  if (p == 0.0 || grad.numel() == 0 || x1.numel() == 0 || x2.numel() == 0) return at::zeros(shape, x1.options());
  const at::Tensor per_pair =
      norm_derivative(row_differences(x1, x2), grad.unsqueeze(-1), cdist.unsqueeze(-1), p);  // [..., P, R, M]
  return per_pair.sum(-2).expand(shape).contiguous();
}

// The pairs i < j of n rows, in pdist's order (row-major over the upper triangle): the gather indices of i and j,
// and for the backward the pair index of every (i, j) of the full [n, n] matrix (either order), the diagonal
// pointing past the last pair (where a zero is appended).
struct Pairs {
  at::Tensor first, second, of_entry;
};
Pairs pairs_of(int64_t n, const at::Device& device) {
  std::vector<int64_t> first, second, of_entry(static_cast<size_t>(n * n), n * (n - 1) / 2);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      const int64_t k = static_cast<int64_t>(first.size());
      of_entry[static_cast<size_t>(i * n + j)] = of_entry[static_cast<size_t>(j * n + i)] = k;
      first.push_back(i);
      second.push_back(j);
    }
  }
  const auto to_device = [&](std::vector<int64_t>& v) {
    return at::from_blob(v.data(), {static_cast<int64_t>(v.size())}, at::kLong).to(device);
  };
  return {to_device(first), to_device(second), to_device(of_entry)};
}

bool pdist_arguments(const at::Tensor& self, double p) {
  return self.dim() == 2 && distance_dtype(self.scalar_type()) && self.is_contiguous() && p >= 0;
}

std::optional<at::Tensor> native_pdist_forward(const at::Tensor& self, double p) {
  if (!pdist_arguments(self, p)) return std::nullopt;
  const int64_t n = self.size(0);
  if (n <= 1) return at::empty({0}, self.options());
  if (self.size(1) == 0) return at::zeros({n * (n - 1) / 2}, self.options());
  const Pairs pairs = pairs_of(n, self.device());
  return norm_of_differences(self.index_select(0, pairs.first).sub(self.index_select(0, pairs.second)), p);
}

// [n, n] of the pair values v [n(n-1)/2], symmetric, zero on the diagonal.
at::Tensor full_matrix(const at::Tensor& v, const Pairs& pairs, int64_t n) {
  return at::cat({v, at::zeros({1}, v.options())}).index_select(0, pairs.of_entry).view({n, n});
}

std::optional<at::Tensor> native_pdist_backward(const at::Tensor& grad, const at::Tensor& self, double p,
                                                const at::Tensor& pdist) {
  if (!pdist_arguments(self, p) || !pdist.is_contiguous() || grad.scalar_type() != self.scalar_type() ||
      pdist.scalar_type() != self.scalar_type() || grad.dim() != 1 || pdist.dim() != 1) {
    return std::nullopt;
  }
  const int64_t n = self.size(0);
  if (p == 0.0 || n <= 1 || self.size(1) == 0) return at::zeros(self.sizes(), self.options());
  if (grad.numel() != n * (n - 1) / 2 || pdist.numel() != grad.numel()) return std::nullopt;
  const Pairs pairs = pairs_of(n, self.device());
  // Row i gains d/d(x_i) of every pair it is in: the derivative is odd in the difference, so the pair (j, i)
  // contributes as (i, j) with x_i - x_j, which is the cdist backward of self against itself.
  const at::Tensor per_pair = norm_derivative(row_differences(self, self), full_matrix(grad, pairs, n).unsqueeze(-1),
                                              full_matrix(pdist, pairs, n).unsqueeze(-1), p);
  return per_pair.sum(-2);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _cdist_forward, "_cdist_forward", launches(), native_cdist_forward);
  HAL_NATIVE(m, _cdist_backward, "_cdist_backward", launches(), native_cdist_backward);
  HAL_NATIVE(m, _pdist_forward, "_pdist_forward", launches(), native_pdist_forward);
  HAL_NATIVE(m, _pdist_backward, "_pdist_backward", launches(), native_pdist_backward);
}

}  // namespace
}  // namespace torch_hal::native
