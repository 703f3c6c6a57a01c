// segment_reduce and _segment_reduce_backward (torch._segment_reduce: reductions over runs of consecutive
// elements given by their lengths or offsets, as in torch_scatter's segment_csr) composed from native gathers,
// masks, reductions and scans. ATen gives both only CPU and CUDA kernels, so they took the CPU fallback.
//
// data is seen as [B, L, I]: B the product of the dims before axis (lengths and offsets carry them too, as
// [B, S] and [B, S + 1]), L the size along axis, I the product of the dims after it. The forward lays the
// segments out padded, [B, S, M, I] with M the longest segment (one host read), gathered by index_select with
// the slots past a segment's end masked to the reduction's identity, and reduces over M. The backward finds
// each element's segment with searchsorted over the segment ends and gathers what its gradient needs from there.
//
// The CPU kernel's semantics, kept: `initial` enters every segment's reduction (an empty segment gives it, or
// the identity; an empty mean without initial is NaN); a NaN wins max and min; the mean divides initial + sum
// by the length. In the backward, max and min give the gradient to every element equal to the result (or NaN),
// and where several tie, divide the positive gradients (only those) among them; prod gives grad * out / x,
// except for zeros and NaNs, which get grad times the product of the others (and initial). Elements outside
// every segment (with unsafe lengths or offsets) get 0.
//
// Lengths, starts and positions are kept in float32 where the size along axis is below 2^24, where float32 holds
// them exactly: their comparisons and reductions then run on devices whose kernels compare and reduce no int64
// (OpenCL's); int64 otherwise. Masks combine by nested where (no bool logic, for the same reason); indices for
// the gathers are converted back to int64, batch offsets added there.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cumprod.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/minimum.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/util/string_view.h>
#include <torch/library.h>

#include <limits>
#include <optional>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

enum class Reduce { Sum, Mean, Max, Min, Prod };

Reduce reduction_of(c10::string_view reduce) {
  if (reduce == "max") return Reduce::Max;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "min") return Reduce::Min;
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  TORCH_CHECK(false, "unsupported reduction given! ", reduce);
}

// What a segment's reduction starts from without `initial`.
double identity_of(Reduce r) {
  switch (r) {
    case Reduce::Max: return -std::numeric_limits<double>::infinity();
    case Reduce::Min: return std::numeric_limits<double>::infinity();
    case Reduce::Prod: return 1;
    default: return 0;
  }
}

bool reducible(const at::Tensor& data, const at::Tensor& index) {
  const at::ScalarType t = data.scalar_type();
  const bool floating = t == at::kFloat || t == at::kDouble || t == at::kHalf || t == at::kBFloat16;
  const bool indices = index.scalar_type() == at::kLong || index.scalar_type() == at::kInt;
  return floating && indices;
}

// Below this, positions and lengths are exact in float32.
constexpr int64_t kExactInFloat = int64_t{1} << 24;

at::ScalarType count_type(int64_t L) { return L < kExactInFloat ? at::kFloat : at::kLong; }

// x where both conditions hold, else fill.
at::Tensor where_both(const at::Tensor& a, const at::Tensor& b, const at::Tensor& x, double fill) {
  const at::Tensor f = at::scalar_tensor(fill, x.options());
  return at::where(a, at::where(b, x, f), f);
}

// The segments of data along axis: their lengths and starts ([B, S], count_type) and the [B, L, I] shape.
struct Segments {
  at::Tensor lengths, starts;
  int64_t B = 1, S = 0, L = 0, I = 1, axis = 0;
};

Segments segments_of(const at::Tensor& data, const at::Tensor& index, bool offsets, int64_t axis) {
  Segments g;
  g.axis = axis;
  for (int64_t d = 0; d < axis; ++d) g.B *= data.size(d);
  for (int64_t d = axis + 1; d < data.dim(); ++d) g.I *= data.size(d);
  g.L = data.size(axis);
  const at::Tensor rows = index.to(count_type(g.L)).reshape({g.B, index.size(-1)});
  if (offsets) {
    g.S = rows.size(1) - 1;
    g.starts = rows.narrow(1, 0, g.S);
    g.lengths = rows.narrow(1, 1, g.S).sub(g.starts);
  } else {
    g.S = rows.size(1);
    g.lengths = rows;
    g.starts = at::cumsum(rows, 1).sub_(rows);  // exclusive prefix sums
  }
  return g;
}

// data [B, L, I] laid out as [B, S, M, I], slots past each segment's end (and data's end) holding `fill`.
at::Tensor padded(const at::Tensor& data3, const Segments& g, int64_t M, double fill) {
  const at::Tensor j = at::arange(M, g.lengths.options()).view({1, 1, M});
  const at::Tensor position = g.starts.unsqueeze(2).add(j);  // [B, S, M]
  const at::Tensor batch_row = at::arange(g.B, g.lengths.options().dtype(at::kLong)).mul_(g.L).view({g.B, 1, 1});
  const at::Tensor row = position.clamp(0, g.L - 1).to(at::kLong).add_(batch_row).reshape({-1});
  const at::Tensor values = data3.reshape({g.B * g.L, g.I}).index_select(0, row).view({g.B, g.S, M, g.I});
  return where_both(j.lt(g.lengths.unsqueeze(2)).unsqueeze(3), position.lt(g.L).unsqueeze(3), values, fill);
}

int64_t longest(const Segments& g) {
  return g.S == 0 || g.B == 0 ? 0 : static_cast<int64_t>(g.lengths.max().item<double>());
}

// [B, S, I] -> the output's shape: data's with S at axis.
at::Tensor shaped(const at::Tensor& t, const at::Tensor& data, const Segments& g) {
  auto sizes = data.sizes().vec();
  sizes[g.axis] = g.S;
  return t.reshape(sizes);
}

at::Tensor reduce_segments(const at::Tensor& data, const Segments& g, Reduce r,
                           const std::optional<c10::Scalar>& initial) {
  const at::Tensor data3 = data.reshape({g.B, g.L, g.I});
  const int64_t M = longest(g);
  TORCH_CHECK(M == 0 || g.L > 0, "segment_reduce(): segments reach past the data's end");
  const double start = initial ? initial->toDouble() : identity_of(r);
  at::Tensor result;
  if (M == 0) {
    result = at::full({g.B, g.S, g.I}, start, data.options());
  } else {
    const at::Tensor v = padded(data3, g, M, identity_of(r));
    switch (r) {
      case Reduce::Sum:
      case Reduce::Mean: result = v.sum(2); if (initial) result.add_(start); break;
      case Reduce::Prod: result = v.prod(2); if (initial) result.mul_(start); break;
      case Reduce::Max: result = v.amax(2); if (initial) result = at::maximum(result, at::scalar_tensor(start, v.options())); break;
      case Reduce::Min: result = v.amin(2); if (initial) result = at::minimum(result, at::scalar_tensor(start, v.options())); break;
    }
  }
  if (r == Reduce::Mean) {
    const at::Tensor length = g.lengths.unsqueeze(2);
    const double empty = initial ? start : std::numeric_limits<double>::quiet_NaN();
    result = at::where(length.gt(0), result.div(length.to(result.scalar_type())),
                       at::scalar_tensor(empty, result.options()));
  }
  return shaped(result, data, g);
}

// ATen's argument checks for the index tensor (lengths or offsets).
void check_index(const at::Tensor& data, const at::Tensor& index, const char* name, int64_t axis) {
  TORCH_CHECK(data.get_device() == index.get_device(), "segment_reduce(): Expected data and ", name,
              " on the same device.");
  TORCH_CHECK(data.dim() >= index.dim(), "segment_reduce(): Expected data.dim() >= ", name, ".dim()");
  TORCH_CHECK(axis == index.dim() - 1, "segment_reduce(): Expected axis to be the last dimension of ", name,
              " but got ", axis, ".");
  TORCH_CHECK(data.sizes().slice(0, axis) == index.sizes().slice(0, axis), "segment_reduce(): Expected data and ",
              name, " to have the same batch size");
}

std::optional<at::Tensor> native_segment_reduce(const at::Tensor& data, c10::string_view reduce,
                                                const std::optional<at::Tensor>& lengths,
                                                const std::optional<at::Tensor>& indices,
                                                const std::optional<at::Tensor>& offsets, int64_t axis, bool unsafe,
                                                const std::optional<c10::Scalar>& initial) {
  const bool by_offsets = offsets.has_value() && offsets->defined();
  const bool by_lengths = lengths.has_value() && lengths->defined();
  if (data.dim() == 0 || (!by_offsets && !by_lengths) || (indices.has_value() && indices->defined())) {
    return std::nullopt;  // ATen's errors
  }
  axis = at::maybe_wrap_dim(axis, data.dim());
  const at::Tensor& index = by_offsets ? *offsets : *lengths;
  if (!reducible(data, index)) return std::nullopt;
  const Reduce r = reduction_of(reduce);
  check_index(data, index, by_offsets ? "offsets" : "lengths", axis);
  if (!by_offsets && !unsafe && index.numel() > 0) {
    // (In float32 below 2^24 too: the sum of non-negative lengths rounds to the size only if it is the size.)
    const at::Tensor counts = index.to(count_type(data.size(axis)));
    TORCH_CHECK(counts.min().item<double>() >= 0, "lengths contains negative value!");
    TORCH_CHECK(counts.sum({-1}).eq(data.size(axis)).all().item<bool>(),
                "segment_reduce(): Expected all rows of lengths along axis ",
                "to sum to data.size(lengths.dim()-1) when !unsafe.");
  }
  return reduce_segments(data.contiguous(), segments_of(data, index, by_offsets, axis), r, initial);
}

bool native_segment_reduce_out(const at::Tensor& data, c10::string_view reduce,
                               const std::optional<at::Tensor>& lengths, const std::optional<at::Tensor>& indices,
                               const std::optional<at::Tensor>& offsets, int64_t axis, bool unsafe,
                               const std::optional<c10::Scalar>& initial, at::Tensor& out) {
  return write_out(native_segment_reduce(data, reduce, lengths, indices, offsets, axis, unsafe, initial), out);
}

// ---- backward -----------------------------------------------------------------------------------------------

// Where each element of [B, L] lies: its segment's row in [B * S] and its slot in the segment, and whether it
// lies in a segment at all (two conditions, both to hold).
struct Membership {
  at::Tensor row;            // [B * L] int64: b * S + segment, clamped
  at::Tensor slot;           // [B * L] int64
  at::Tensor before_end;     // [B, L, 1] bool: before the last segment's end
  at::Tensor after_start;    // [B, L, 1] bool: not before the first segment's start
};

Membership membership_of(const Segments& g) {
  const at::Tensor ends = g.starts.add(g.lengths).contiguous();  // [B, S]
  const at::Tensor position = at::arange(g.L, g.lengths.options()).expand({g.B, g.L}).contiguous();
  // The first segment whose end lies beyond the position (segments are consecutive: starts[s + 1] == ends[s]).
  const at::Tensor segment = at::searchsorted(ends, position, /*out_int32=*/false, /*right=*/true);
  Membership m;
  m.before_end = position.lt(ends.narrow(1, g.S - 1, 1)).unsqueeze(2);
  m.after_start = position.ge(g.starts.narrow(1, 0, 1)).unsqueeze(2);
  const at::Tensor clamped = segment.clamp_max(g.S - 1);
  const at::Tensor batch_row = at::arange(g.B, segment.options()).mul_(g.S).unsqueeze(1);
  m.row = clamped.add(batch_row).reshape({-1});
  m.slot = position.sub(g.starts.gather(1, clamped)).clamp_min(0).to(at::kLong).reshape({-1});
  return m;
}

// t [B, S, I] (or [B, S, 1]) read at every element's segment: [B, L, I'].
at::Tensor at_segments(const at::Tensor& t, const Segments& g, const Membership& m) {
  return t.reshape({g.B * g.S, t.size(2)}).index_select(0, m.row).view({g.B, g.L, t.size(2)});
}

std::optional<at::Tensor> native_segment_reduce_backward(const at::Tensor& grad, const at::Tensor& output,
                                                         const at::Tensor& data, c10::string_view reduce,
                                                         const std::optional<at::Tensor>& lengths,
                                                         const std::optional<at::Tensor>& offsets, int64_t axis,
                                                         const std::optional<c10::Scalar>& initial) {
  const bool by_offsets = offsets.has_value() && offsets->defined();
  const bool by_lengths = lengths.has_value() && lengths->defined();
  if (data.dim() == 0 || (!by_offsets && !by_lengths)) return std::nullopt;
  axis = at::maybe_wrap_dim(axis, data.dim());
  const at::Tensor& index = by_offsets ? *offsets : *lengths;
  if (!reducible(data, index) || grad.scalar_type() != data.scalar_type() ||
      output.scalar_type() != data.scalar_type()) {
    return std::nullopt;
  }
  TORCH_CHECK(grad.sizes() == output.sizes(), "segment_reduce(): Expected grad and output have the same sizes.");
  const Reduce r = reduction_of(reduce);
  const Segments g = segments_of(data, index, by_offsets, axis);
  const at::Tensor grad_input = at::zeros({g.B, g.L, g.I}, data.options());  // for the early returns
  if (g.S == 0 || g.L == 0 || g.B == 0 || g.I == 0) return grad_input.view(data.sizes());
  const Membership m = membership_of(g);
  const at::Tensor x = data.contiguous().view({g.B, g.L, g.I});
  const at::Tensor dy3 = grad.contiguous().view({g.B, g.S, g.I});
  const at::Tensor y3 = output.contiguous().view({g.B, g.S, g.I});
  const at::Tensor dy = at_segments(dy3, g, m);
  at::Tensor dx;
  switch (r) {
    case Reduce::Sum: dx = dy; break;
    case Reduce::Mean: {
      const at::Tensor length = at_segments(g.lengths.unsqueeze(2), g, m).clamp_min(1).to(dy.scalar_type());
      dx = dy.div(length);
      break;
    }
    case Reduce::Max:
    case Reduce::Min: {
      // The elements equal to their segment's result, or NaN (1 or 0, in float: counted exactly below 2^24).
      const at::ScalarType count = data.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
      const at::Tensor one = at::scalar_tensor(1, x.options().dtype(count));
      const at::Tensor tie = where_both(m.before_end, m.after_start,
                                        at::where(x.isnan(), one, x.eq(at_segments(y3, g, m)).to(count)), 0);
      // How many tie in each segment: a segment sum of the mask, read back at each element.
      const Segments counting{g.lengths, g.starts, g.B, g.S, g.L, g.I, 1};
      const at::Tensor ties = at_segments(
          reduce_segments(tie, counting, Reduce::Sum, std::nullopt).view({g.B, g.S, g.I}), g, m);
      const at::Tensor shared = at::where(ties.ge(2), dy.div(ties.to(dy.scalar_type())), dy);
      dx = at::where(tie.gt(0), at::where(dy.gt(0), shared, dy), at::scalar_tensor(0, dy.options()));
      break;
    }
    case Reduce::Prod: {
      // The product of the others (and initial), for zeros and NaNs: prefix times suffix products over the
      // padded layout, read back at each element's slot.
      const int64_t M = longest(g);
      if (M == 0) return grad_input.view(data.sizes());  // every segment empty
      const at::Tensor v = padded(x, g, M, 1);  // [B, S, M, I]
      const at::Tensor ones = at::ones({g.B, g.S, 1, g.I}, v.options());
      const at::Tensor before = at::cat({ones, v.narrow(2, 0, M - 1)}, 2).cumprod(2);
      const at::Tensor after = at::cat({v.narrow(2, 1, M - 1), ones}, 2).flip(2).cumprod(2).flip(2);
      at::Tensor others = before.mul(after);
      if (initial) others.mul_(initial->toDouble());
      const at::Tensor slot_row = m.row.mul(M).add_(m.slot.clamp_max(M - 1));
      const at::Tensor exclusive =
          others.reshape({g.B * g.S * M, g.I}).index_select(0, slot_row).view({g.B, g.L, g.I});
      const at::Tensor by_others = dy.mul(exclusive);
      dx = at::where(x.eq(0), by_others, at::where(x.isnan(), by_others, dy.mul(at_segments(y3, g, m)).div(x)));
      break;
    }
  }
  return where_both(m.before_end, m.after_start, dx, 0).view(data.sizes());
}

bool native_segment_reduce_backward_out(const at::Tensor& grad, const at::Tensor& output, const at::Tensor& data,
                                        c10::string_view reduce, const std::optional<at::Tensor>& lengths,
                                        const std::optional<at::Tensor>& offsets, int64_t axis,
                                        const std::optional<c10::Scalar>& initial, at::Tensor& out) {
  return write_out(native_segment_reduce_backward(grad, output, data, reduce, lengths, offsets, axis, initial), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, segment_reduce, "segment_reduce", launches(), native_segment_reduce);
  HAL_NATIVE(m, segment_reduce_out, "segment_reduce.out", launches(), native_segment_reduce_out);
  HAL_NATIVE(m, _segment_reduce_backward, "_segment_reduce_backward", launches(), native_segment_reduce_backward);
  HAL_NATIVE(m, _segment_reduce_backward_out, "_segment_reduce_backward.out", launches(),
             native_segment_reduce_backward_out);
}

}  // namespace
}  // namespace torch_hal::native
