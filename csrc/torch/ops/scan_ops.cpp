// cumsum and cumprod (functional, in place, out=): one launch of the adapter's CUMSUM/CUMPROD kernel. The
// result dtype follows ATen: `dtype` when given, else int64 for integer and bool inputs, else the input's.
// logcumsumexp (ATen's _logcumsumexp, floating and complex dtypes) and cummax / cummin (ATen's _cummax_helper
// and _cummin_helper, which fill the values and indices cummax.out has allocated) likewise.
// Complex cumprod has no kernel: it is an inclusive scan of log2(n) rounds of native complex multiplications
// composed over the real views (complex_scan below).
#include <ATen/MemoryOverlap.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/view_as_real.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include "dispatch/native_first.h"
#include "ops/complex_data_movement.h"
#include "dispatch/output_overlap.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

at::ScalarType scan_dtype(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  if (dtype.has_value()) return *dtype;
  return c10::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong : self.scalar_type();
}

bool launch_scan(hal_op_t op, const at::Tensor& self, const at::Tensor& out, int64_t dim) {
  at::assert_no_internal_overlap(out);  // ATen's error for an expanded output (one element written twice)
  if (!launchable_overlap(out, self)) return false;
  if (out.numel() == 0) return true;
  KernelArgs args;
  args.input(self).output(out).scalar(c10::maybe_wrap_dim(dim, self.dim()));
  return launch(self.device().index(), op, args);
}

// Complex scans (Hillis and Steele): after the round of shift k, element i combines elements i-2k+1 .. i, so
// log2(n) rounds of one elementwise op over shifted slices give every prefix. The association differs from
// ATen's running loop by rounding only. Declined (nullopt) for conjugate or negative bits and dtype changes.
bool complex_scan_done(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  return self.is_complex() && !self.is_conj() && !self.is_neg() &&
         (!dtype.has_value() || *dtype == self.scalar_type());
}
at::Tensor complex_cumprod(const at::Tensor& self, int64_t dim) {
  if (self.dim() == 0) return self.clone();
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(d);
  if (n <= 1) return self.clone();  // a new tensor, as every later round's cat makes
  at::Tensor t = self;
  for (int64_t k = 1; k < n; k *= 2) {
    const at::Tensor later = t.narrow(d, k, n - k), earlier = t.narrow(d, 0, n - k);
    t = at::cat({t.narrow(d, 0, k), earlier.mul(later)}, d);
  }
  return t;
}

template <hal_op_t OP>
std::optional<at::Tensor> scan(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  if (OP == HAL_OP_CUMSUM && self.is_complex()) return complex_data_movement::cumsum(self, dim, dtype);
  if (OP == HAL_OP_CUMPROD && self.is_complex()) {
    if (!complex_scan_done(self, dtype)) return std::nullopt;
    return complex_cumprod(self, dim);
  }
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  at::Tensor out = at::empty(self.sizes(), self.options().dtype(scan_dtype(self, dtype)));
  if (!launch_scan(OP, self, out, wrapped)) return std::nullopt;
  return out;
}
template <hal_op_t OP>
bool scan_(at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  if (OP == HAL_OP_CUMSUM && self.is_complex()) return complex_data_movement::cumsum_(self, dim, dtype);
  if (OP == HAL_OP_CUMPROD && self.is_complex()) {
    if (!complex_scan_done(self, dtype)) return false;
    self.copy_(complex_cumprod(self, dim));
    return true;
  }
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  // A dtype other than self's: ATen's error, from the usual route.
  if (dtype.has_value() && *dtype != self.scalar_type()) return false;
  return launch_scan(OP, self, self, wrapped);
}
template <hal_op_t OP>
bool scan_out(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, at::Tensor& out) {
  if (OP == HAL_OP_CUMSUM && self.is_complex()) return complex_data_movement::cumsum_out(self, dim, dtype, out);
  if (OP == HAL_OP_CUMPROD && self.is_complex()) {
    if (!complex_scan_done(self, dtype)) return false;
    return write_out(complex_cumprod(self, dim), out);
  }
  const int64_t wrapped = c10::maybe_wrap_dim(dim, self.dim());
  const at::ScalarType type = dtype.value_or(out.scalar_type());
  TORCH_CHECK(out.scalar_type() == type, "Expected out tensor to have dtype ", type, ", but got ", out.scalar_type(),
              " instead");
  at::native::resize_output(out, self.sizes());
  return launch_scan(OP, self, out, wrapped);
}

// Complex _logcumsumexp: ATen's running logaddexp keeps the imaginary part of whichever operand has the larger
// real part, so the result's imaginary part depends on the order of the combinations by multiples of 2 pi. The
// kernel replays that order (a thread walks each line: LOGCUMSUMEXP's complex_pairs) over the real views.
bool complex_kernel_dtype(const at::Tensor& self) {  // complex32 is ATen's to refuse, as on the CPU
  return self.scalar_type() == at::kComplexFloat || self.scalar_type() == at::kComplexDouble;
}
std::optional<at::Tensor> complex_logcumsumexp(const at::Tensor& self, int64_t dim) {
  // A 0-dim self is a line of one element; conjugate and negative bits are resolved (real views need plain data).
  const at::Tensor plain = self.resolve_conj().resolve_neg();
  const at::Tensor line = plain.dim() == 0 ? plain.reshape({1}) : plain;
  at::Tensor out = at::empty(line.sizes(), self.options());
  if (out.numel() > 0) {
    const at::Tensor in_pairs = at::view_as_real(line), out_pairs = at::view_as_real(out);  // alive until launch
    KernelArgs args;
    args.input(in_pairs).output(out_pairs).scalar(c10::maybe_wrap_dim(dim, line.dim())).scalar(true);
    if (!launch(self.device().index(), HAL_OP_LOGCUMSUMEXP, args)) return std::nullopt;
  }
  return self.dim() == 0 ? out.reshape({}) : out;
}

// _logcumsumexp: a floating or complex self into a result of its dtype.
std::optional<at::Tensor> native_logcumsumexp(const at::Tensor& self, int64_t dim) {
  if (self.is_complex()) return complex_kernel_dtype(self) ? complex_logcumsumexp(self, dim) : std::nullopt;
  if (!at::isFloatingType(self.scalar_type())) return std::nullopt;
  at::Tensor out = at::empty(self.sizes(), self.options());
  if (!launch_scan(HAL_OP_LOGCUMSUMEXP, self, out, c10::maybe_wrap_dim(dim, self.dim()))) return std::nullopt;
  return out;
}
bool native_logcumsumexp_out(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  if (out.scalar_type() != self.scalar_type()) return false;
  if (self.is_complex()) {
    if (!complex_kernel_dtype(self)) return false;
    at::assert_no_internal_overlap(out);
    const auto result = complex_logcumsumexp(self, dim);
    if (!result.has_value()) return false;
    at::native::resize_output(out, self.sizes());
    out.copy_(*result);
    return true;
  }
  if (!at::isFloatingType(self.scalar_type())) return false;
  at::native::resize_output(out, self.sizes());
  return launch_scan(HAL_OP_LOGCUMSUMEXP, self, out, c10::maybe_wrap_dim(dim, self.dim()));
}

// _cummax_helper / _cummin_helper: values (self's dtype) and indices (int64) already have self's shape.
template <hal_op_t OP>
bool native_extremum_scan(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  if (self.is_complex() || values.scalar_type() != self.scalar_type() || indices.scalar_type() != at::kLong) {
    return false;
  }
  at::assert_no_internal_overlap(values);
  at::assert_no_internal_overlap(indices);
  if (!launchable_overlap(values, self) || !launchable_overlap(indices, self)) return false;
  if (self.numel() == 0) return true;
  KernelArgs args;
  args.input(self).output(values).output(indices).scalar(c10::maybe_wrap_dim(dim, self.dim()));
  return launch(self.device().index(), OP, args);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE_FORMS(m, cumsum, "cumsum", HAL_OP_CUMSUM, scan, <HAL_OP_CUMSUM>);
  HAL_NATIVE_FORMS(m, cumprod, "cumprod", HAL_OP_CUMPROD, scan, <HAL_OP_CUMPROD>);
  HAL_NATIVE(m, _logcumsumexp, "_logcumsumexp", launches(HAL_OP_LOGCUMSUMEXP), native_logcumsumexp);
  HAL_NATIVE(m, _logcumsumexp_out, "_logcumsumexp.out", launches(HAL_OP_LOGCUMSUMEXP), native_logcumsumexp_out);
  HAL_NATIVE(m, _cummax_helper, "_cummax_helper", launches(HAL_OP_CUMMAX), native_extremum_scan<HAL_OP_CUMMAX>);
  HAL_NATIVE(m, _cummin_helper, "_cummin_helper", launches(HAL_OP_CUMMIN), native_extremum_scan<HAL_OP_CUMMIN>);
}

}  // namespace
}  // namespace torch_hal::native
