// Ops that only move elements, composed from views and the native copies (index_select, copy_ of strided
// views): flip, roll, narrow_copy, pixel_shuffle / pixel_unshuffle, channel_shuffle and eye's out= forms.
// ATen gives each of them a CPU kernel of its own (no composite one a backend could inherit), so without these
// registrations they took the CPU fallback. Bad arguments raise the errors, and of the kinds, that CPU raises.
#include <ATen/WrapDimUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/narrow.h>
#include <torch/library.h>

#include <optional>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// flip: one index_select per flipped dim of size > 1, with the reversed positions as its index. (PyTorch has no
// negative strides, so a reversed view that one strided copy could read does not exist.)
std::optional<at::Tensor> native_flip(const at::Tensor& self, at::IntArrayRef dims) {
  const auto flipped = at::dim_list_to_bitset(dims, self.dim());  // CPU's errors: out of range, repeated dims
  at::Tensor result;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t n = self.size(d);
    if (!flipped[d] || n <= 1) continue;
    const at::Tensor reversed = at::arange(n - 1, -1, -1, self.options().dtype(at::kLong));
    result = (result.defined() ? result : self).index_select(d, reversed);
  }
  // Nothing to reorder (0-d, or every flipped dim of size <= 1): a copy, as CPU returns.
  return result.defined() ? result : self.clone(at::MemoryFormat::Preserve);
}
bool native_flip_out(const at::Tensor& self, at::IntArrayRef dims, at::Tensor& out) {
  return write_out(*native_flip(self, dims), out);
}

// roll: along each rolled dim the output is two pieces of the input, [start, n) then [0, start); over k dims
// that is 2^k blocks, each one strided copy of a view of the input into a view of the output, so every element
// is moved once (CPU's kernel chains a cat per dim instead).
at::Tensor roll_dims(const at::Tensor& self, c10::SymIntArrayRef shifts, at::IntArrayRef dims) {
  TORCH_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {  // roll the flattened tensor, as CPU does
    const at::Tensor flat = self.contiguous().view({self.numel()});
    const int64_t zero = 0;
    return roll_dims(flat, shifts, at::IntArrayRef(&zero, 1)).view(self.sizes());
  }
  TORCH_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  std::vector<int64_t> dims_wrapped;
  for (int64_t d : dims) dims_wrapped.push_back(at::maybe_wrap_dim(d, self.dim(), /*wrap_scalar=*/false));
  if (self.numel() == 0) return self.clone(at::MemoryFormat::Preserve);
  // start[d]: where the output's dim d begins in the input; a dim rolled twice adds its shifts.
  std::vector<int64_t> start(self.dim(), 0);
  for (size_t i = 0; i < dims_wrapped.size(); ++i) {
    const int64_t d = dims_wrapped[i], n = self.size(d);
    const int64_t shift = shifts[i].guard_int(__FILE__, __LINE__) % n;
    start[d] = ((start[d] - shift) % n + n) % n;
  }
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (start[d] != 0) rolled.push_back(d);
  }
  at::Tensor out = at::empty_like(self);
  if (rolled.empty()) return out.copy_(self);
  for (uint64_t block = 0; block < (uint64_t{1} << rolled.size()); ++block) {
    at::Tensor src = self, dst = out;
    for (size_t j = 0; j < rolled.size(); ++j) {
      const int64_t d = rolled[j], n = self.size(d), s = start[d];
      if ((block >> j) & 1) {  // the input's [0, s) lands at the output's [n - s, n)
        src = src.narrow(d, 0, s);
        dst = dst.narrow(d, n - s, s);
      } else {  // the input's [s, n) lands at the output's [0, n - s)
        src = src.narrow(d, s, n - s);
        dst = dst.narrow(d, 0, n - s);
      }
    }
    dst.copy_(src);
  }
  return out;
}
std::optional<at::Tensor> native_roll(const at::Tensor& self, c10::SymIntArrayRef shifts, at::IntArrayRef dims) {
  if (dims.size() > 16) return std::nullopt;  // 2^k blocks: no real use rolls this many dims
  return roll_dims(self, shifts, dims);
}
bool native_roll_out(const at::Tensor& self, c10::SymIntArrayRef shifts, at::IntArrayRef dims, at::Tensor& out) {
  if (dims.size() > 16) return false;
  return write_out(roll_dims(self, shifts, dims), out);
}

// narrow_copy: the narrow view (whose checks are CPU's, but for a negative length, which CPU reports as its
// bounds error) copied into a contiguous tensor.
at::Tensor narrow_copy_impl(const at::Tensor& self, int64_t dim, const c10::SymInt& start, const c10::SymInt& length) {
  TORCH_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = at::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(d), len = length.guard_int(__FILE__, __LINE__);
  int64_t begin = start.guard_int(__FILE__, __LINE__);
  TORCH_CHECK_INDEX(-n <= begin && begin <= n, "start out of range (expected to be in range of [", -n, ", ", n,
                    "], but got ", begin, ")");
  if (begin < 0) begin += n;
  TORCH_CHECK(begin <= n - len && len >= 0, "start (", begin, ") + length (", len, ") exceeds dimension size (", n,
              ").");
  return self.narrow(d, begin, len).clone(at::MemoryFormat::Contiguous);
}
std::optional<at::Tensor> native_narrow_copy(const at::Tensor& self, int64_t dim, c10::SymInt start,
                                             c10::SymInt length) {
  return narrow_copy_impl(self, dim, start, length);
}
bool native_narrow_copy_out(const at::Tensor& self, int64_t dim, c10::SymInt start, c10::SymInt length,
                            at::Tensor& out) {
  return write_out(narrow_copy_impl(self, dim, start, length), out);
}

// pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r), ATen's composite form: a view splitting the channels, a
// permutation, one copy in the input's suggested memory format (channels-last stays channels-last, as on CPU).
at::Tensor pixel_shuffle_impl(const at::Tensor& self, int64_t r) {
  TORCH_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              self.dim(), " dimension(s)");
  TORCH_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  TORCH_CHECK(c % (r * r) == 0,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
              "upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  const auto batch = self.sizes().slice(0, self.dim() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split(batch.begin(), batch.end());
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 3, nb + 1, nb + 4, nb + 2});  // (oc, h, r, w, r)
  std::vector<int64_t> shape(batch.begin(), batch.end());
  shape.insert(shape.end(), {c / (r * r), h * r, w * r});
  const auto format = self.suggest_memory_format();
  return self.reshape(split).permute(perm).reshape(shape).contiguous(format);
}
// pixel_unshuffle: the inverse, (*, C, H r, W r) -> (*, C r^2, H, W).
at::Tensor pixel_unshuffle_impl(const at::Tensor& self, int64_t r) {
  TORCH_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              self.dim(), " dimension(s)");
  TORCH_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  TORCH_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=",
              h, " is not divisible by ", r);
  TORCH_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=",
              w, " is not divisible by ", r);
  const auto batch = self.sizes().slice(0, self.dim() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split(batch.begin(), batch.end());
  split.insert(split.end(), {c, h / r, r, w / r, r});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 2, nb + 4, nb + 1, nb + 3});  // (c, r, r, h, w)
  std::vector<int64_t> shape(batch.begin(), batch.end());
  shape.insert(shape.end(), {c * r * r, h / r, w / r});
  const auto format = self.suggest_memory_format();
  return self.reshape(split).permute(perm).reshape(shape).contiguous(format);
}
std::optional<at::Tensor> native_pixel_shuffle(const at::Tensor& self, int64_t r) {
  return pixel_shuffle_impl(self, r);
}
std::optional<at::Tensor> native_pixel_unshuffle(const at::Tensor& self, int64_t r) {
  return pixel_unshuffle_impl(self, r);
}
bool native_pixel_shuffle_out(const at::Tensor& self, int64_t r, at::Tensor& out) {
  return write_out(pixel_shuffle_impl(self, r), out);
}
bool native_pixel_unshuffle_out(const at::Tensor& self, int64_t r, at::Tensor& out) {
  return write_out(pixel_unshuffle_impl(self, r), out);
}

// channel_shuffle: (N, C, *) with C = g k -> channel i k + j moves to j g + i: a view (N, g, k, rest), the
// permutation (N, k, g, rest) and one copy, kept in the input's suggested memory format as CPU keeps it.
at::Tensor channel_shuffle_impl(const at::Tensor& self, const c10::SymInt& groups_sym) {
  TORCH_CHECK(self.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes ",
              self.sizes());
  const int64_t groups = groups_sym.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(groups > 0, "Number of groups to divide channels in must be positive.", " Value of groups:", groups);
  const int64_t c = self.size(1);
  TORCH_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ", groups,
              " groups.");
  const auto format = self.suggest_memory_format();
  if (self.numel() == 0) return self.clone(format);
  at::Tensor out = at::empty(self.sizes(), self.options().memory_format(format));
  // Written through a view of the output, so the copy lands in the output's own layout.
  const int64_t n = self.size(0), k = c / groups;
  at::Tensor src = self.reshape({n, groups, k, -1}).permute({0, 2, 1, 3});
  out.view({n, c, -1}).view({n, k, groups, -1}).copy_(src);
  return out;
}
std::optional<at::Tensor> native_channel_shuffle(const at::Tensor& self, c10::SymInt groups) {
  return channel_shuffle_impl(self, groups);
}
bool native_channel_shuffle_out(const at::Tensor& self, c10::SymInt groups, at::Tensor& out) {
  return write_out(channel_shuffle_impl(self, groups), out);
}

// eye: zeros, then the diagonal (a 1-d view of stride stride(0) + stride(1)) filled with ones.
bool native_eye_m_out(c10::SymInt n_sym, c10::SymInt m_sym, at::Tensor& out) {
  const int64_t n = n_sym.guard_int(__FILE__, __LINE__), m = m_sym.guard_int(__FILE__, __LINE__);
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  out.resize_({n, m});
  out.zero_();
  const int64_t diagonal = std::min(n, m);
  if (diagonal > 0) {
    out.as_strided({diagonal}, {out.stride(0) + out.stride(1)}, out.storage_offset()).fill_(1);
  }
  return true;
}
bool native_eye_out(c10::SymInt n, at::Tensor& out) { return native_eye_m_out(n, n, out); }

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, flip, "flip", launches(), native_flip);
  HAL_NATIVE(m, flip_out, "flip.out", launches(), native_flip_out);
  HAL_NATIVE(m, roll, "roll", launches(), native_roll);
  HAL_NATIVE(m, roll_out, "roll.out", launches(), native_roll_out);
  HAL_NATIVE(m, narrow_copy, "narrow_copy", launches(), native_narrow_copy);
  HAL_NATIVE(m, narrow_copy_out, "narrow_copy.out", launches(), native_narrow_copy_out);
  HAL_NATIVE(m, pixel_shuffle, "pixel_shuffle", launches(), native_pixel_shuffle);
  HAL_NATIVE(m, pixel_shuffle_out, "pixel_shuffle.out", launches(), native_pixel_shuffle_out);
  HAL_NATIVE(m, pixel_unshuffle, "pixel_unshuffle", launches(), native_pixel_unshuffle);
  HAL_NATIVE(m, pixel_unshuffle_out, "pixel_unshuffle.out", launches(), native_pixel_unshuffle_out);
  HAL_NATIVE(m, channel_shuffle, "channel_shuffle", launches(), native_channel_shuffle);
  HAL_NATIVE(m, channel_shuffle_out, "channel_shuffle.out", launches(), native_channel_shuffle_out);
  HAL_NATIVE(m, eye_out, "eye.out", launches(), native_eye_out);
  HAL_NATIVE(m, eye_m_out, "eye.m_out", launches(), native_eye_m_out);
}

}  // namespace
}  // namespace torch_hal::native
