// The pieces complex_by_real_view.cpp and complex_division.cpp compose complex ops from: an operand as its
// real and imaginary parts, and a Composer that launches real kernels over parts into real views.
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <optional>

#include "ops/elementwise_forms.h"

namespace torch_hal::native::complex_by_real_view {

// One part of an operand: a real tensor on the device (a strided view of a complex tensor, or a real operand
// itself), or a number (a part of a Python number or 0-dim CPU tensor, or the zero imaginary part of a real
// operand), already rounded to the real dtype the op computes in.
struct Part {
  at::Tensor tensor;  // defined: the part is this tensor
  double value = 0;   // else: this number
  bool is_number() const { return !tensor.defined(); }
};
inline Part number(double v) { return Part{at::Tensor(), v}; }
inline Part tensor(at::Tensor t) { return Part{std::move(t), 0}; }

struct Parts {
  Part re, im;
};

// The parts of operand `t` of an op whose common dtype is `common` (complex), as ATen converts it to
// `common`; nullopt for operands not done here (conjugate or negative bits, complex operands of another
// precision, real ones that would not convert exactly as ATen converts them).
std::optional<Parts> parts_of(const at::Tensor& t, at::ScalarType common);

// The (real, imaginary) views of a complex tensor.
Parts views_of(const at::Tensor& complex);

// Launches real kernels writing tensors of one shape (the op's output shape) in the real dtype `real`. The
// first launch the adapter refuses makes ok() false and every later call a no-op, so a composition is written
// straight through and checked once at its end.
class Composer {
 public:
  Composer(at::IntArrayRef shape, at::ScalarType real, const at::TensorOptions& device_options);

  bool ok() const { return ok_; }
  at::ScalarType real() const { return real_; }
  // A new real (or bool) tensor of the output shape: a temporary of the composition.
  at::Tensor temp(at::ScalarType type) const;
  at::Tensor temp() const { return temp(real_); }

  // dst = op(a, b) over the iterator of `form`; two numbers are computed here (in the real dtype, as a kernel
  // would) and filled in. `scalars` are the op's own (alpha).
  void binary(const at::Tensor& dst, hal_op_t op, Form form, const Part& a, const Part& b,
              std::initializer_list<c10::Scalar> scalars = {});
  // dst = op(a) (neg, abs) of a tensor part; Form::UnaryAnyOut for tests that write bool (isnan).
  void unary(const at::Tensor& dst, hal_op_t op, const at::Tensor& a, Form form = Form::Unary);
  // dst = condition ? a : b.
  void where(const at::Tensor& dst, const at::Tensor& condition, const Part& a, const Part& b);
  // dst = value (a real or bool number) in every element.
  void fill(const at::Tensor& dst, const c10::Scalar& value);
  // dst = src, element by element (same shapes, dtypes).
  void copy(const at::Tensor& dst, const at::Tensor& src);
  // A part as a tensor on the device (a number as a 0-dim tensor of the real dtype), for kernels that take
  // no scalar operands (where).
  at::Tensor tensor_of(const Part& p);

 private:
  c10::SmallVector<int64_t, 6> shape_;
  at::ScalarType real_;
  at::TensorOptions options_;
  bool ok_ = true;
};

// dst (complex, of the composer's shape) = a / b as ATen's CPU computes it; reciprocal is 1 / b.
void divide(Composer& c, const Parts& dst, const Parts& a, const Parts& b);

}  // namespace torch_hal::native::complex_by_real_view
