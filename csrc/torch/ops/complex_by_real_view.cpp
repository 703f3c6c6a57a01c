#include "ops/complex_by_real_view.h"

#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/view_as_real.h>

#include <cmath>
#include <limits>

#include "ops/complex_functions.h"
#include "ops/complex_parts.h"

namespace torch_hal::native::complex_by_real_view {
namespace {

constexpr Form kBinary = Form::Binary;

bool complex_in_abi_parts(at::ScalarType t) { return t == at::kComplexFloat || t == at::kComplexDouble; }

// An output the composition may write through its real views.
bool writable(const at::Tensor& out) { return !out.is_conj() && !out.is_neg(); }

// The imaginary part of alpha * b when alpha is real: ATen multiplies b by the complex alpha (alpha + 0i), so
// each part of the product carries 0 * (the other part of b): NaN where that part is infinite or NaN. dst += it.
void add_product_with_zero(Composer& c, const at::Tensor& dst, const Part& other_part_of_b) {
  if (other_part_of_b.is_number() && std::isfinite(other_part_of_b.value)) return;  // adds a zero
  const at::Tensor t = c.temp();
  c.binary(t, HAL_OP_MUL, kBinary, other_part_of_b, number(0.0));
  c.binary(dst, HAL_OP_ADD, kBinary, tensor(dst), tensor(t));
}

// a +- alpha * b with a real alpha (rounded to the real dtype, as ATen rounds it to the complex one).
void add_sub(Composer& c, hal_op_t op, const Parts& d, const Parts& a, const Parts& b, double alpha) {
  c.binary(d.re.tensor, op, kBinary, a.re, b.re, {alpha});
  c.binary(d.im.tensor, op, kBinary, a.im, b.im, {alpha});
  add_product_with_zero(c, d.re.tensor, b.im);
  add_product_with_zero(c, d.im.tensor, b.re);
}

// (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re): each product rounded, then the sum, as ATen's
// vectorized and scalar complex products compute it.
void multiply(Composer& c, const Parts& d, const Parts& a, const Parts& b) {
  const at::Tensor t = c.temp();
  c.binary(d.re.tensor, HAL_OP_MUL, kBinary, a.re, b.re);
  c.binary(t, HAL_OP_MUL, kBinary, a.im, b.im);
  c.binary(d.re.tensor, HAL_OP_SUB, kBinary, d.re, tensor(t));
  c.binary(d.im.tensor, HAL_OP_MUL, kBinary, a.re, b.im);
  c.binary(t, HAL_OP_MUL, kBinary, a.im, b.re);
  c.binary(d.im.tensor, HAL_OP_ADD, kBinary, d.im, tensor(t));
}

// eq: both parts equal; ne: either part differs. The real parts' answer decides the imaginary parts'
// comparison through a NaN (equal to nothing) put in place of a.im: eq = (re equal ? a.im : NaN) == b.im,
// ne = (re differ ? NaN : a.im) != b.im; so only real kernels run (adapters may lack bool logical kernels).
void compare(Composer& c, hal_op_t op, const at::Tensor& d, const Parts& a, const Parts& b) {
  const at::Tensor decided = c.temp(at::kBool), im = c.temp();
  const Part nan = number(std::numeric_limits<double>::quiet_NaN());
  c.binary(decided, op, Form::Comparison, a.re, b.re);
  if (op == HAL_OP_EQ) c.where(im, decided, a.im, nan);
  else c.where(im, decided, nan, a.im);
  c.binary(d, op, Form::Comparison, tensor(im), b.im);
}

// neg: the real kernel over the whole (real, imaginary) view, one launch.
std::optional<at::Tensor> negate(const at::Tensor& self, const at::Tensor& out) {
  if (!complex_in_abi_parts(self.scalar_type()) || self.is_conj() || self.is_neg()) return std::nullopt;
  at::Tensor result = out.defined() ? out : at::empty_like(self);
  if (result.scalar_type() != self.scalar_type() || !writable(result)) return std::nullopt;
  if (!result.is_same(self) && result.is_alias_of(self)) return std::nullopt;  // partial overlap: ATen's error
  at::native::resize_output(result, self.sizes());
  if (result.numel() == 0) return result;
  Composer c(self.sizes(), c10::toRealValueType(self.scalar_type()), self.options());
  c.unary(at::view_as_real(result), HAL_OP_NEG, at::view_as_real(self));
  if (!c.ok()) return std::nullopt;
  return result;
}

// abs.out: hypot of the parts (as ATen's CPU kernel, which calls hypot), into a real `out` of the real dtype.
std::optional<at::Tensor> absolute(const at::Tensor& self, const at::Tensor& out) {
  if (!complex_in_abi_parts(self.scalar_type()) || self.is_conj() || self.is_neg() || !out.defined()) {
    return std::nullopt;
  }
  const at::ScalarType real = c10::toRealValueType(self.scalar_type());
  if (out.scalar_type() != real || out.is_alias_of(self)) return std::nullopt;
  at::Tensor result = out;
  at::native::resize_output(result, self.sizes());
  if (result.numel() == 0) return result;
  const Parts z = views_of(self);
  Composer c(self.sizes(), real, self.options());
  c.binary(result, HAL_OP_HYPOT, kBinary, z.re, z.im);
  if (!c.ok()) return std::nullopt;
  return result;
}

// A complex operand on the device that the composition can read through its real views.
bool readable_complex(const at::Tensor& self) {
  return complex_in_abi_parts(self.scalar_type()) && !self.is_conj() && !self.is_neg() && !self.device().is_cpu();
}

// f(self) over the unary iterator of `form` (ATen's checks, allocation and resizing of `out`), into a complex
// result of self's dtype. In place (out is self), computed aside and copied, so a refusal leaves self as it was.
std::optional<at::Tensor> unary_function(ComplexFunction f, Form form, const at::Tensor& out, const at::Tensor& self) {
  if (!readable_complex(self)) return std::nullopt;
  at::Tensor out_arg = out;
  auto iter = make_iterator(form, out_arg, {&self});
  at::Tensor result = out.defined() ? out : iter.output();
  if (result.scalar_type() != self.scalar_type() || !writable(result)) return std::nullopt;
  if (result.numel() == 0) return result;
  const bool aliased = result.is_alias_of(self);
  const at::Tensor target = aliased ? at::empty(result.sizes(), result.options()) : result;
  Composer c(result.sizes(), c10::toRealValueType(self.scalar_type()), result.options());
  compose_function(c, f, views_of(target), views_of(self));
  if (aliased) c.copy(at::view_as_real(result), at::view_as_real(target));
  if (!c.ok()) return std::nullopt;
  return result;
}

// isnan into the caller's bool `out` (the glue allocates it shaped like self).
std::optional<at::Tensor> isnan_into(const at::Tensor& self, const at::Tensor& out) {
  if (!readable_complex(self) || !out.defined() || out.scalar_type() != at::kBool) return std::nullopt;
  if (!out.sizes().equals(self.sizes()) || out.is_alias_of(self)) return std::nullopt;
  if (out.numel() == 0) return out;
  Composer c(self.sizes(), c10::toRealValueType(self.scalar_type()), self.options());
  compose_isnan(c, out, views_of(self));
  if (!c.ok()) return std::nullopt;
  return out;
}

// angle of a complex tensor: atan2 of the parts into a real result of the real dtype. ATen writes it through a
// complex temporary into a result resized from empty (contiguous, whatever self's layout); an `out` of another
// real dtype (ATen casts into it) is left to ATen.
std::optional<at::Tensor> angle_into(const at::Tensor& self, const at::Tensor& out) {
  if (!readable_complex(self)) return std::nullopt;
  const at::ScalarType real = c10::toRealValueType(self.scalar_type());
  at::Tensor result = out.defined() ? out : at::empty(self.sizes(), self.options().dtype(real));
  if (result.scalar_type() != real || result.is_alias_of(self)) return std::nullopt;
  at::native::resize_output(result, self.sizes());
  if (result.numel() == 0) return result;
  Composer c(self.sizes(), real, self.options());
  compose_angle(c, result, views_of(self));
  if (!c.ok()) return std::nullopt;
  return result;
}

// addcmul / addcdiv's value converted to the complex dtype, as ATen's value.to<scalar_t>() (each part rounded to the
// real dtype); nullopt where that conversion overflows (ATen's error, which the fallback gives).
std::optional<Parts> value_in(const c10::Scalar& value, at::ScalarType real) {
  const c10::complex<double> v = value.toComplexDouble();
  if (real != at::kFloat) return Parts{number(v.real()), number(v.imag())};
  const double limit = std::numeric_limits<float>::max();
  for (const double part : {v.real(), v.imag()}) {
    if (std::isfinite(part) && std::abs(part) > limit) return std::nullopt;
  }
  return Parts{number(static_cast<float>(v.real())), number(static_cast<float>(v.imag()))};
}

// pow's exponent when it is a Python number (pow.Tensor_Scalar wraps it) of one of the exact special forms
// (complex_functions.h); nullopt otherwise.
std::optional<c10::complex<double>> exact_power_exponent(std::initializer_list<const at::Tensor*> inputs) {
  const at::Tensor& exponent = *inputs.begin()[1];
  if (!exponent.unsafeGetTensorImpl()->is_wrapped_number()) return std::nullopt;
  const c10::complex<double> e = exponent.item().toComplexDouble();
  return is_exact_power(e) ? std::optional(e) : std::nullopt;
}

// Whether a binary op with these scalars is one done here: true division only (ATen refuses rounding modes
// for complex: the fallback gives its error), a real alpha (a complex one would mix the parts).
bool scalars_done(hal_op_t op, std::initializer_list<c10::Scalar> scalars) {
  if (scalars.size() == 0) return true;
  const c10::Scalar& s = *scalars.begin();
  if (op == HAL_OP_DIV) return s.toLong() == 0;
  if (op == HAL_OP_ADD || op == HAL_OP_SUB) {
    return !s.isBoolean() && (!s.isComplex() || s.toComplexDouble().imag() == 0);
  }
  return true;
}

}  // namespace

bool involves_complex(const at::Tensor* out, std::initializer_list<const at::Tensor*> inputs) {
  if (out != nullptr && out->defined() && out->is_complex()) return true;
  for (const at::Tensor* t : inputs) {
    if (t->is_complex()) return true;
  }
  return false;
}

std::optional<at::Tensor> elementwise(hal_op_t op, Form form, const at::Tensor& out,
                                      std::initializer_list<const at::Tensor*> inputs,
                                      std::initializer_list<c10::Scalar> scalars) {
  if (auto f = complex_function_of(op)) return unary_function(*f, form, out, **inputs.begin());
  switch (op) {
    case HAL_OP_NEG: return negate(**inputs.begin(), out);
    case HAL_OP_ISNAN: return isnan_into(**inputs.begin(), out);
    case HAL_OP_ABS: return absolute(**inputs.begin(), out);
    case HAL_OP_ANGLE: return angle_into(**inputs.begin(), out);
    case HAL_OP_ADD: case HAL_OP_SUB: case HAL_OP_MUL: case HAL_OP_DIV: case HAL_OP_RECIPROCAL:
    case HAL_OP_EQ: case HAL_OP_NE: case HAL_OP_LOGADDEXP: case HAL_OP_LERP: case HAL_OP_ADDCMUL: case HAL_OP_ADDCDIV:
      break;
    case HAL_OP_POW: break;
    default: return std::nullopt;
  }
  if (!scalars_done(op, scalars)) return std::nullopt;
  // ATen's iterator for the op gives the checks, the result's dtype, shape and layout (and allocates it).
  at::Tensor out_arg = out;
  auto iter = make_iterator(form, out_arg, inputs);
  const at::ScalarType common = iter.common_dtype();
  if (!complex_in_abi_parts(common)) return std::nullopt;
  // Powers other than the exact forms are composed in complex128, a complex64 result rounded once at the end
  // (complex_functions.h says why).
  const bool widened = op == HAL_OP_POW && !exact_power_exponent(inputs) && common == at::kComplexFloat;
  // lerp's result has self's dtype (ATen's iterator is over self and end only; the weight is converted to it): a
  // complex weight beside real tensors is ATen's to refuse.
  if (op == HAL_OP_LERP && inputs.begin()[0]->scalar_type() != common) return std::nullopt;
  const at::ScalarType real = c10::toRealValueType(common);
  const bool comparison = form == Form::Comparison;
  at::Tensor result = out.defined() ? out : iter.output();
  if (result.scalar_type() != (comparison ? at::kBool : common) || !writable(result)) return std::nullopt;
  if (result.numel() == 0) return result;

  c10::SmallVector<Parts, 2> operands;
  bool aliased = false;  // an operand shares the output's memory (in place): compute aside, then copy
  for (const at::Tensor* t : inputs) {
    auto parts = parts_of(*t, common);
    if (!parts.has_value()) return std::nullopt;
    operands.push_back(std::move(*parts));
    aliased = aliased || (!t->device().is_cpu() && result.is_alias_of(*t));
  }
  // The output is only written by the composition's last launches, or (aliased, widened) by one final copy, so
  // that a refused launch leaves `out` as the fallback needs to find it.
  const at::Tensor target =
      widened ? at::empty(result.sizes(), result.options().dtype(at::kComplexDouble))
              : (aliased ? at::empty(result.sizes(), result.options()) : result);
  Composer c(result.sizes(), widened ? at::kDouble : real, result.options());
  if (comparison) {
    compare(c, op, target, operands[0], operands[1]);
  } else {
    const Parts d = views_of(target);
    switch (op) {
      case HAL_OP_ADD: case HAL_OP_SUB: {
        const double alpha = scalars.begin()->toComplexDouble().real();
        add_sub(c, op, d, operands[0], operands[1], real == at::kFloat ? static_cast<float>(alpha) : alpha);
        break;
      }
      case HAL_OP_MUL: multiply(c, d, operands[0], operands[1]); break;
      case HAL_OP_DIV: divide(c, d, operands[0], operands[1]); break;
      case HAL_OP_RECIPROCAL: divide(c, d, Parts{number(1.0), number(0.0)}, operands[0]); break;
      case HAL_OP_POW:
        if (const auto e = exact_power_exponent(inputs)) compose_exact_power(c, d, operands[0], *e);
        else compose_power(c, d, operands[0], operands[1]);
        break;
      case HAL_OP_LOGADDEXP: compose_logaddexp(c, d, operands[0], operands[1]); break;
      case HAL_OP_LERP: compose_lerp(c, d, operands[0], operands[1], operands[2]); break;
      case HAL_OP_ADDCMUL: case HAL_OP_ADDCDIV: {
        const auto value = value_in(*scalars.begin(), real);
        if (!value.has_value()) return std::nullopt;
        if (op == HAL_OP_ADDCMUL) compose_addcmul(c, d, operands[0], operands[1], operands[2], *value);
        else compose_addcdiv(c, d, operands[0], operands[1], operands[2], *value);
        break;
      }
      default: return std::nullopt;
    }
  }
  if (aliased || widened) {
    c.copy(comparison ? result : at::view_as_real(result), comparison ? target : at::view_as_real(target));
  }
  if (!c.ok()) return std::nullopt;
  return result;
}

std::optional<at::Tensor> sgn(const at::Tensor& self, const at::Tensor& out) {
  return unary_function(ComplexFunction::Sgn, Form::Unary, out, self);
}

bool conj_physical_out(const at::Tensor& self, at::Tensor& out) {
  if (!complex_in_abi_parts(self.scalar_type()) || self.is_conj() || self.is_neg()) return false;
  if (out.scalar_type() != self.scalar_type() || !writable(out)) return false;
  const bool in_place = out.is_same(self);
  if (!in_place && out.is_alias_of(self)) return false;
  at::native::resize_output(out, self.sizes());
  if (out.numel() == 0) return has_native_kernels(out.device().index());
  const Parts z = views_of(self), d = views_of(out);
  Composer c(self.sizes(), c10::toRealValueType(self.scalar_type()), self.options());
  // In place, the imaginary part alone is written: one launch, so a refusal leaves self as it was.
  c.unary(d.im.tensor, HAL_OP_NEG, z.im.tensor);
  if (!in_place) c.copy(d.re.tensor, z.re.tensor);
  return c.ok();
}

bool conj_physical_(at::Tensor& self) {
  if (!self.is_complex()) return true;
  return complex_by_real_view::conj_physical_out(self, self);
}

}  // namespace torch_hal::native::complex_by_real_view
