// Complex data movement over real views (complex_data_movement.h), and the two ops that build a complex tensor
// from real ones, registered here: complex.out (torch.complex) and polar.out (torch.polar), which write their
// parts into out's real and imaginary views with native real ops. ATen treats a 0-dim tensor in gather, scatter
// and cumsum as 1-D of one element; so do the views, through indexing_launch.h's at_least_1d (view_as_real of a
// 0-dim tensor would be [2], whose one dimension is the pair's).
#include "ops/complex_data_movement.h"

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/native/ScatterGatherChecks.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/index.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/view_as_complex.h>
#include <ATen/ops/view_as_real.h>
#include <torch/library.h>

#include <vector>

#include "dispatch/native_first.h"

namespace torch_hal::native::complex_data_movement {
namespace {

// complex64 / complex128, whose views are float / double tensors the adapter may have kernels for; ComplexHalf
// keeps ATen's route.
bool has_real_view(const at::Tensor& t) {
  return t.scalar_type() == at::kComplexFloat || t.scalar_type() == at::kComplexDouble;
}

// An input's (real, imaginary) view: the conjugate or negative bit applied first, since a lazily conjugated
// tensor's memory holds the unconjugated values (view_as_real refuses it).
at::Tensor pairs_of_input(const at::Tensor& t) { return at::view_as_real(t.resolve_conj().resolve_neg()); }

// A tensor written through its view must hold its values as they are: no lazy bits.
bool writable_as_pairs(const at::Tensor& t) { return has_real_view(t) && !t.is_conj() && !t.is_neg(); }

// The complex tensor whose view is `pairs` (a new real result [..., 2]), shaped `sizes`.
at::Tensor complex_of(const at::Tensor& pairs, at::IntArrayRef sizes) {
  const at::Tensor viewable = pairs.stride(-1) == 1 ? pairs : pairs.contiguous();
  return at::view_as_complex(viewable).reshape(sizes);
}

// `index` with a trailing pair dimension of 2 (a stride-0 expansion: both parts take the same position).
at::Tensor for_both_parts(const at::Tensor& index) {
  std::vector<int64_t> sizes = index.sizes().vec();
  sizes.push_back(2);
  return index.unsqueeze(-1).expand(sizes);
}

// How many leading dimensions of self an index list covers: a mask its own dimensions, anything else one.
int64_t dims_indexed(const c10::List<std::optional<at::Tensor>>& indices) {
  int64_t covered = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const std::optional<at::Tensor> entry = indices.get(i);
    const bool mask = entry.has_value() && entry->defined() &&
                      (entry->scalar_type() == at::kBool || entry->scalar_type() == at::kByte);
    covered += mask ? entry->dim() : 1;
  }
  return covered;
}

// Whether an index list may index the real view as it indexes self: it must not reach the pair dimension (more
// indices than self has dimensions is ATen's IndexError, which its route raises).
bool indexes_like_self(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices) {
  return self.dim() > 0 && dims_indexed(indices) <= self.dim();
}

}  // namespace

bool put_rows(const at::Tensor& out, const at::Tensor& index, const at::Tensor& values, bool accumulate) {
  if (!writable_as_pairs(out) || values.scalar_type() != out.scalar_type()) return false;
  return torch_hal::native::put_rows(at::view_as_real(out), index, pairs_of_input(values), accumulate);
}

bool select_rows(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  if (!writable_as_pairs(out) || self.scalar_type() != out.scalar_type()) return false;
  return torch_hal::native::select_rows(at::view_as_real(out), pairs_of_input(self), dim, index);
}

bool scatter_elements(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor* src,
                      const c10::Scalar* value, ScatterReduce reduce) {
  if (!writable_as_pairs(out) || (reduce != ScatterReduce::Set && reduce != ScatterReduce::Add)) return false;
  if (src && src->scalar_type() != out.scalar_type()) return false;
  // 0-dim operands as 1-D of one element first: the part views of a [1] tensor keep that dimension.
  const at::Tensor out_pairs = at::view_as_real(at_least_1d(out));
  const at::Tensor src_pairs = src ? pairs_of_input(at_least_1d(*src)) : at::Tensor();
  const c10::complex<double> scalar = value ? value->toComplexDouble() : c10::complex<double>();
  for (const int64_t part : {0, 1}) {
    const at::Tensor part_src = src ? src_pairs.select(-1, part) : at::Tensor();
    const c10::Scalar part_value = part == 0 ? scalar.real() : scalar.imag();
    if (!torch_hal::native::scatter_elements(out_pairs.select(-1, part), dim, at_least_1d(index),
                                             src ? &part_src : nullptr, src ? nullptr : &part_value, reduce)) {
      // Only the first part can refuse (both are the same launch on the same dtype): nothing was written.
      return false;
    }
  }
  return true;
}

std::optional<at::Tensor> gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad) {
  if (sparse_grad || !has_real_view(self)) return std::nullopt;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  // ATen's checks and messages on the complex operands (the views would name shapes with the pair dimension).
  if (index.numel() == 0) return at::empty(index.sizes(), self.options());
  at::native::scatter_gather_dtype_check("gather", self, index, std::nullopt);
  at::native::gather_shape_check(self, wrapped, index);
  const at::Tensor pairs = at::gather(pairs_of_input(at_least_1d(self)), wrapped, for_both_parts(at_least_1d(index)));
  return complex_of(pairs, index.sizes());
}

std::optional<at::Tensor> index(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices) {
  if (!has_real_view(self) || !indexes_like_self(self, indices)) return std::nullopt;
  const at::Tensor pairs = at::index(pairs_of_input(self), indices);
  std::vector<int64_t> sizes = pairs.sizes().vec();
  sizes.pop_back();
  return complex_of(pairs, sizes);
}

bool index_put_impl(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices, const at::Tensor& values,
                    bool accumulate, bool unsafe) {
  // Values of another dtype: ATen's error (x[i] = v converts v before it gets here).
  if (!writable_as_pairs(self) || values.scalar_type() != self.scalar_type() || !indexes_like_self(self, indices)) {
    return false;
  }
  // A value given as a CPU scalar tensor comes over first: its view ([2]) is no longer a 0-dim CPU operand.
  const at::Tensor on_device = values.device() == self.device() ? values : values.to(self.device());
  at::Tensor self_pairs = at::view_as_real(self);
  at::_index_put_impl_(self_pairs, indices, pairs_of_input(on_device), accumulate, unsafe);
  return true;
}

std::optional<at::Tensor> masked_select(const at::Tensor& self, const at::Tensor& mask) {
  // uint8 masks (deprecated) and masks on another device: ATen's path and messages.
  if (!has_real_view(self) || mask.scalar_type() != at::kBool || mask.device() != self.device()) return std::nullopt;
  const std::vector<int64_t> shape = at::infer_size(self.sizes(), mask.sizes());
  const at::Tensor selected =
      at::masked_select(pairs_of_input(self.expand(shape)), for_both_parts(mask.expand(shape)));
  return complex_of(selected.view({-1, 2}), {selected.numel() / 2});
}

std::optional<at::Tensor> cumsum(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  if (!has_real_view(self) || (dtype.has_value() && *dtype != self.scalar_type())) return std::nullopt;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  return complex_of(at::cumsum(pairs_of_input(at_least_1d(self)), wrapped), self.sizes());
}

bool cumsum_(at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  if (!writable_as_pairs(self) || (dtype.has_value() && *dtype != self.scalar_type())) return false;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  at::view_as_real(at_least_1d(self)).cumsum_(wrapped);
  return true;
}

bool cumsum_out(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, at::Tensor& out) {
  // A result dtype other than self's converts: ATen's route (and its check that out's dtype is `dtype`).
  if (!has_real_view(self) || !writable_as_pairs(out) || out.scalar_type() != self.scalar_type() ||
      (dtype.has_value() && *dtype != self.scalar_type())) {
    return false;
  }
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  at::native::resize_output(out, self.sizes());
  at::Tensor out_pairs = at::view_as_real(at_least_1d(out));
  at::cumsum_out(out_pairs, pairs_of_input(at_least_1d(self)), wrapped);
  return true;
}

bool linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (!writable_as_pairs(out)) return false;
  if (out.numel() != steps) out.resize_({steps});
  const c10::complex<double> first = start.toComplexDouble(), last = end.toComplexDouble();
  const at::Tensor pairs = at::view_as_real(out);
  // The real linspace of each part rounds start and end to the part's dtype, as ATen rounds them to the complex.
  at::Tensor real = pairs.select(-1, 0), imag = pairs.select(-1, 1);
  at::linspace_out(real, first.real(), last.real(), steps);
  at::linspace_out(imag, first.imag(), last.imag(), steps);
  return true;
}

namespace {

// complex.out and polar.out: out gets the broadcast shape of the two real inputs of one floating dtype, out's
// dtype being its complex. Other mixes (ATen's errors), and outputs overlapping an input (which ATen's iterator
// orders for): not handled.
std::optional<std::vector<int64_t>> parts_shape(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) {
  const at::ScalarType type = a.scalar_type();
  if ((type != at::kFloat && type != at::kDouble) || b.scalar_type() != type || !writable_as_pairs(out) ||
      out.scalar_type() != c10::toComplexType(type)) {
    return std::nullopt;
  }
  if (at::get_overlap_status(out, a) != at::MemOverlapStatus::No ||
      at::get_overlap_status(out, b) != at::MemOverlapStatus::No) {
    return std::nullopt;
  }
  return at::infer_size(a.sizes(), b.sizes());
}

bool complex_out(const at::Tensor& real, const at::Tensor& imag, at::Tensor& out) {
  const auto shape = parts_shape(real, imag, out);
  if (!shape.has_value()) return false;
  at::native::resize_output(out, *shape);
  const at::Tensor pairs = at::view_as_real(out);
  pairs.select(-1, 0).copy_(real.expand(*shape));
  pairs.select(-1, 1).copy_(imag.expand(*shape));
  return true;
}

// ATen's CPU kernel: complex(abs * cos(angle), abs * sin(angle)), each a product of two roundings in the dtype.
bool polar_out(const at::Tensor& abs, const at::Tensor& angle, at::Tensor& out) {
  const auto shape = parts_shape(abs, angle, out);
  if (!shape.has_value()) return false;
  at::native::resize_output(out, *shape);
  const at::Tensor pairs = at::view_as_real(out);
  at::Tensor real = pairs.select(-1, 0), imag = pairs.select(-1, 1);
  at::mul_out(real, abs, at::cos(angle));
  at::mul_out(imag, abs, at::sin(angle));
  return true;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, complex_out, "complex.out", launches(), complex_out);
  HAL_NATIVE(m, polar_out, "polar.out", launches(), polar_out);
}

}  // namespace torch_hal::native::complex_data_movement
