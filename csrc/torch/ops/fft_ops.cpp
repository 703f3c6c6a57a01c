// torch.fft's three primitives (_fft_c2c, _fft_r2c, _fft_c2r: every torch.fft function, stft and istft reach
// these) as one launch of the adapter's DFT (adapter_ops.def) per transformed dimension, on float32 and
// complex64. Complex tensors pass the kernel their real views ((real, imag) pairs), so the ABI needs no complex
// dtype. Each launch reads a dense tensor and writes a new one, so a transform over several dims ping-pongs
// between them; the normalization is applied by the last launch. Other dtypes (float64, complex128), empty dim
// lists and lines longer than the kernel takes go ATen's route (the CPU fallback).
#include <ATen/ops/empty.h>
#include <ATen/ops/view_as_real.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include <cmath>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// ATen's fft_norm_mode: none, 1 / sqrt(n), 1 / n.
double scale_of(int64_t normalization, int64_t signal_numel) {
  if (normalization == 1) return 1.0 / std::sqrt(static_cast<double>(signal_numel));
  if (normalization == 2) return 1.0 / static_cast<double>(signal_numel);
  return 1.0;
}

// The stored values of x, dense: the lazy conjugate and negative bits applied (the kernel reads memory as it is).
at::Tensor dense_values(const at::Tensor& x) { return x.resolve_conj().resolve_neg().contiguous(); }

// The [outer, length, inner] (+ [2] for complex) view of dense `t` around dimension `dim`, as KernelArgs takes it.
struct LineGeometry {
  c10::SmallVector<int64_t, 4> sizes, strides;
};
LineGeometry lines_of(const at::Tensor& t, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (const auto d : c10::irange(dim)) outer *= t.size(d);
  for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= t.size(d);
  const int64_t length = t.size(dim);
  LineGeometry g;
  const int64_t pair = t.is_complex() ? 2 : 1;
  g.sizes = {outer, length, inner};
  g.strides = {length * inner * pair, inner * pair, pair};
  if (t.is_complex()) {
    g.sizes.push_back(2);
    g.strides.push_back(1);
  }
  return g;
}

// One DFT along `dim` of dense x (float32 or complex64) into a new dense tensor whose `dim` has n_out elements.
std::optional<at::Tensor> dft_along(const at::Tensor& x, int64_t dim, int64_t n_out, bool complex_out, int64_t n,
                                    int64_t sign, double scale) {
  auto sizes = x.sizes().vec();
  sizes[dim] = n_out;
  at::Tensor y = at::empty(sizes, x.options().dtype(complex_out ? at::kComplexFloat : at::kFloat));
  if (y.numel() == 0) return y;
  const LineGeometry in = lines_of(x, dim), out = lines_of(y, dim);
  const at::Tensor x_floats = x.is_complex() ? at::view_as_real(x) : x;
  const at::Tensor y_floats = complex_out ? at::view_as_real(y) : y;
  KernelArgs args;
  args.input_as(x_floats, in.sizes, in.strides).output_as(y_floats, out.sizes, out.strides);
  args.scalar(n).scalar(sign).scalar(scale);
  if (!launch(x.device().index(), HAL_OP_DFT, args)) return std::nullopt;
  return y;
}

// The dims wrapped.
c10::SmallVector<int64_t, 4> wrapped_dims(at::IntArrayRef dims, int64_t ndim) {
  c10::SmallVector<int64_t, 4> out;
  for (const int64_t d : dims) out.push_back(c10::maybe_wrap_dim(d, ndim));
  return out;
}

// The product of t's sizes over `dims` (the signal's element count, which the normalization divides by).
int64_t signal_numel(const at::Tensor& t, at::IntArrayRef dims) {
  int64_t n = 1;
  for (const int64_t d : dims) n *= t.size(d);
  return n;
}

// Complex-to-complex along `dims` (in order), scaled by the last launch.
std::optional<at::Tensor> c2c_along(at::Tensor x, at::IntArrayRef dims, int64_t sign, double scale) {
  for (const auto i : c10::irange(dims.size())) {
    const int64_t d = dims[i];
    auto y = dft_along(x, d, x.size(d), true, x.size(d), sign, i + 1 == dims.size() ? scale : 1.0);
    if (!y) return std::nullopt;
    x = std::move(*y);
  }
  return x;
}

std::optional<at::Tensor> native_fft_c2c(const at::Tensor& self, c10::SymIntArrayRef dim, int64_t normalization,
                                         bool forward) {
  if (self.scalar_type() != at::kComplexFloat || dim.empty()) return std::nullopt;
  const auto dims = wrapped_dims(C10_AS_INTARRAYREF_SLOW(dim), self.dim());
  return c2c_along(dense_values(self), dims, forward ? -1 : 1, scale_of(normalization, signal_numel(self, dims)));
}

// Real-to-complex: the last dim first (a real line into n / 2 + 1 or n coefficients), then complex-to-complex.
std::optional<at::Tensor> native_fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                         bool onesided) {
  if (self.scalar_type() != at::kFloat || dim.empty()) return std::nullopt;
  const auto dims = wrapped_dims(dim, self.dim());
  const double scale = scale_of(normalization, signal_numel(self, dims));
  const int64_t last = dims.back(), n = self.size(last);
  const bool alone = dims.size() == 1;
  auto y = dft_along(dense_values(self), last, onesided ? n / 2 + 1 : n, true, n, -1, alone ? scale : 1.0);
  if (!y || alone) return y;
  return c2c_along(std::move(*y), at::IntArrayRef(dims).slice(0, dims.size() - 1), -1, scale);
}

// Complex-to-real (inverse): complex-to-complex over every dim but the last, then the last dim's Hermitian
// coefficients into last_dim_size real values.
std::optional<at::Tensor> native_fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                                         c10::SymInt last_dim_size) {
  if (self.scalar_type() != at::kComplexFloat || dim.empty()) return std::nullopt;
  const auto dims = wrapped_dims(dim, self.dim());
  const int64_t n = last_dim_size.guard_int(__FILE__, __LINE__), last = dims.back();
  const at::IntArrayRef others = at::IntArrayRef(dims).slice(0, dims.size() - 1);
  const int64_t signal = n * signal_numel(self, others);  // the output's last dim is n long
  at::Tensor x = dense_values(self);
  if (!others.empty()) {
    auto y = c2c_along(std::move(x), others, 1, 1.0);
    if (!y) return std::nullopt;
    x = std::move(*y);
  }
  return dft_along(x, last, n, false, n, 1, scale_of(normalization, signal));
}

bool native_fft_c2c_out(const at::Tensor& self, c10::SymIntArrayRef dim, int64_t normalization, bool forward,
                        at::Tensor& out) {
  return write_out(native_fft_c2c(self, dim, normalization, forward), out);
}
bool native_fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided,
                        at::Tensor& out) {
  return write_out(native_fft_r2c(self, dim, normalization, onesided), out);
}
bool native_fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, c10::SymInt last_dim_size,
                        at::Tensor& out) {
  return write_out(native_fft_c2r(self, dim, normalization, std::move(last_dim_size)), out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, _fft_c2c, "_fft_c2c", launches(HAL_OP_DFT), native_fft_c2c);
  HAL_NATIVE(m, _fft_c2c_out, "_fft_c2c.out", launches(HAL_OP_DFT), native_fft_c2c_out);
  HAL_NATIVE(m, _fft_r2c, "_fft_r2c", launches(HAL_OP_DFT), native_fft_r2c);
  HAL_NATIVE(m, _fft_r2c_out, "_fft_r2c.out", launches(HAL_OP_DFT), native_fft_r2c_out);
  HAL_NATIVE(m, _fft_c2r, "_fft_c2r", launches(HAL_OP_DFT), native_fft_c2r);
  HAL_NATIVE(m, _fft_c2r_out, "_fft_c2r.out", launches(HAL_OP_DFT), native_fft_c2r_out);
}

}  // namespace
}  // namespace torch_hal::native
