#include "ops/complex_parts.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/view_as_real.h>
#include <c10/util/complex.h>

namespace torch_hal::native::complex_by_real_view {
namespace {

// A number as the real dtype holds it: a complex64 op converts its Python numbers to float first.
double rounded(double v, at::ScalarType real) { return real == at::kFloat ? static_cast<double>(static_cast<float>(v)) : v; }

// op(x, y) of two numbers in T, as a kernel computes it elementwise (one rounding per operation).
template <class T>
c10::Scalar on_host(hal_op_t op, T x, T y, T alpha) {
  switch (op) {
    case HAL_OP_ADD: { const T p = alpha * y; return static_cast<double>(x + p); }
    case HAL_OP_SUB: { const T p = alpha * y; return static_cast<double>(x - p); }
    case HAL_OP_MUL: return static_cast<double>(x * y);
    case HAL_OP_DIV: return static_cast<double>(x / y);
    case HAL_OP_EQ: return x == y;
    case HAL_OP_NE: return x != y;
    case HAL_OP_GE: return x >= y;
    case HAL_OP_GT: return x > y;
    case HAL_OP_LE: return x <= y;
    case HAL_OP_LT: return x < y;
    default: TORCH_INTERNAL_ASSERT(false, "complex_by_real_view: no host form of op ", static_cast<int>(op));
  }
}

}  // namespace

std::optional<Parts> parts_of(const at::Tensor& t, at::ScalarType common) {
  const at::ScalarType real = c10::toRealValueType(common);
  if (t.device().is_cpu()) {
    // A Python number or 0-dim CPU tensor (TensorIterator admits no other CPU operand beside device ones):
    // its value converted to the common dtype, as ATen's kernel reads it.
    if (t.dim() != 0) return std::nullopt;
    const c10::complex<double> z = t.item().toComplexDouble();
    return Parts{number(rounded(z.real(), real)), number(rounded(z.imag(), real))};
  }
  if (t.is_conj() || t.is_neg()) return std::nullopt;  // view_as_real refuses the bits; the other paths apply them
  if (t.is_complex()) {
    // complex64 parts convert exactly to float64; any other mix (a 0-dim complex128 beside complex64 ones,
    // complex32) would be rounded differently here than by ATen.
    if (t.scalar_type() != common && !(t.scalar_type() == at::kComplexFloat && common == at::kComplexDouble)) {
      return std::nullopt;
    }
    return views_of(t);
  }
  // A real operand is (t, 0); its kernels then convert t to the real dtype as ATen converts it to complex,
  // provided the real dtype holds it (not a 0-dim float64 beside complex64).
  if (at::promoteTypes(t.scalar_type(), real) != real) return std::nullopt;
  return Parts{tensor(t), number(0)};
}

Parts views_of(const at::Tensor& complex) {
  const at::Tensor pairs = at::view_as_real(complex);
  return Parts{tensor(pairs.select(-1, 0)), tensor(pairs.select(-1, 1))};
}

Composer::Composer(at::IntArrayRef shape, at::ScalarType real, const at::TensorOptions& device_options)
    : shape_(shape.begin(), shape.end()), real_(real), options_(device_options) {}

at::Tensor Composer::temp(at::ScalarType type) const { return at::empty(shape_, options_.dtype(type)); }

void Composer::binary(const at::Tensor& dst, hal_op_t op, Form form, const Part& a, const Part& b,
                      std::initializer_list<c10::Scalar> scalars) {
  if (!ok_) return;
  if (a.is_number() && b.is_number()) {
    const c10::Scalar alpha = scalars.size() > 0 ? *scalars.begin() : c10::Scalar(1.0);
    fill(dst, real_ == at::kFloat ? on_host<float>(op, static_cast<float>(a.value), static_cast<float>(b.value),
                                                   static_cast<float>(alpha.toDouble()))
                                  : on_host<double>(op, a.value, b.value, alpha.toDouble()));
    return;
  }
  // Tensor parts expanded to dst's shape: the iterator would resize dst to its inputs' broadcast shape.
  const at::Tensor x = a.is_number() ? wrapped(a.value) : a.tensor.expand(dst.sizes());
  const at::Tensor y = b.is_number() ? wrapped(b.value) : b.tensor.expand(dst.sizes());
  // The op's own scalars that adapter_ops.def requires: add/sub's alpha (1), div's rounding mode (0: true).
  if (scalars.size() == 0 && (op == HAL_OP_ADD || op == HAL_OP_SUB)) {
    ok_ = run_into(op, form, dst, {&x, &y}, {c10::Scalar(1.0)});
  } else if (scalars.size() == 0 && op == HAL_OP_DIV) {
    ok_ = run_into(op, form, dst, {&x, &y}, {c10::Scalar(int64_t{0})});
  } else {
    ok_ = run_into(op, form, dst, {&x, &y}, scalars);
  }
}

void Composer::unary(const at::Tensor& dst, hal_op_t op, const at::Tensor& a, Form form) {
  if (!ok_) return;
  const at::Tensor x = a.expand(dst.sizes());
  ok_ = run_into(op, form, dst, {&x});
}

void Composer::where(const at::Tensor& dst, const at::Tensor& condition, const Part& a, const Part& b) {
  if (!ok_) return;
  const at::Tensor x = tensor_of(a).expand(dst.sizes()), y = tensor_of(b).expand(dst.sizes());
  const at::Tensor cond = condition.expand(dst.sizes());
  if (!ok_) return;
  auto iter = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .add_output(dst)
                  .add_const_input(cond)
                  .add_const_input(x)
                  .add_const_input(y)
                  .build();
  ok_ = launch_elementwise(iter, HAL_OP_WHERE);
}

void Composer::fill(const at::Tensor& dst, const c10::Scalar& value) {
  if (!ok_ || dst.numel() == 0) return;
  KernelArgs args;
  args.output(dst).scalar(value);
  ok_ = launch(dst.device().index(), HAL_OP_FILL, args);
}

void Composer::copy(const at::Tensor& dst, const at::Tensor& src) {
  if (!ok_ || dst.numel() == 0) return;
  KernelArgs args;
  args.input(src).output(dst);
  ok_ = launch(dst.device().index(), HAL_OP_COPY, args);
}

at::Tensor Composer::tensor_of(const Part& p) {
  // where's iterator does not promote: its value operands must be of the real dtype already.
  if (p.is_number()) {
    at::Tensor t = at::empty({}, options_.dtype(real_));
    fill(t, p.value);
    return t;
  }
  if (p.tensor.scalar_type() == real_) return p.tensor;
  at::Tensor t = at::empty(p.tensor.sizes(), options_.dtype(real_));
  copy(t, p.tensor);  // the COPY kernel converts dtypes
  return t;
}

}  // namespace torch_hal::native::complex_by_real_view
