#include "ops/elementwise_forms.h"

#include "ops/complex_by_real_view.h"

namespace torch_hal::native {

Promotion promotion_of(Form form) {
  return form == Form::Unary || form == Form::UnaryAnyOut ? Promotion::None : Promotion::ToCommonDtype;
}

at::TensorIterator make_iterator(Form form, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs) {
  // Borrowing builds, as ATen's structured kernels use: the iterator refers to the caller's tensors instead
  // of holding references of its own, which saves a reference-count round trip per operand (each of which
  // may reach the tensor's Python object) on every op.
  const at::Tensor& a = **inputs.begin();
  at::TensorIterator iter;
  switch (form) {
    case Form::Unary: iter.build_borrowing_unary_op(out, a); return iter;
    case Form::UnaryFloat: iter.build_borrowing_unary_float_op(out, a); return iter;
    case Form::Binary: iter.build_borrowing_binary_op(out, a, *inputs.begin()[1]); return iter;
    case Form::BinaryFloat: iter.build_borrowing_binary_float_op(out, a, *inputs.begin()[1]); return iter;
    case Form::Comparison: iter.build_borrowing_comparison_op(out, a, *inputs.begin()[1]); return iter;
    case Form::UnaryAnyOut:
      return at::TensorIteratorConfig().check_all_same_dtype(false).add_output(out).add_const_input(a).build();
    case Form::Promoting: {
      at::TensorIteratorConfig config;
      config.set_check_mem_overlap(true)
          .allow_cpu_scalars(true)
          .promote_inputs_to_common_dtype(true)
          .cast_common_dtype_to_outputs(true)
          .enforce_safe_casting_to_output(true)
          .add_output(out);
      for (const at::Tensor* t : inputs) config.add_const_input(*t);
      return config.build();
    }
  }
  TORCH_INTERNAL_ASSERT(false, "unknown elementwise form");
}

namespace {

// Operands of a dtype the adapter ABI has no name for (complex): no adapter can run the op, and ATen's
// own paths give it its dtype rules (abs of a complex tensor is real, which a unary iterator refuses).
bool abi_can_describe(const at::Tensor* out, std::initializer_list<const at::Tensor*> inputs) {
  if (out && out->defined() && !hal_dtype_of(out->scalar_type()).has_value()) return false;
  for (const at::Tensor* t : inputs) {
    if (!hal_dtype_of(t->scalar_type()).has_value()) return false;
  }
  return true;
}

}  // namespace

std::optional<at::Tensor> run_functional(hal_op_t op, Form form, std::initializer_list<const at::Tensor*> inputs,
                                         std::initializer_list<c10::Scalar> scalars) {
  if (complex_by_real_view::involves_complex(nullptr, inputs)) {
    return complex_by_real_view::elementwise(op, form, at::Tensor(), inputs, scalars);
  }
  if (!abi_can_describe(nullptr, inputs)) return std::nullopt;
  at::Tensor out;
  auto iter = make_iterator(form, out, inputs);
  if (!launch_elementwise(iter, op, scalars, promotion_of(form))) return std::nullopt;
  return iter.output();
}

bool run_into(hal_op_t op, Form form, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs,
              std::initializer_list<c10::Scalar> scalars) {
  if (complex_by_real_view::involves_complex(&out, inputs)) {
    return complex_by_real_view::elementwise(op, form, out, inputs, scalars).has_value();
  }
  if (!abi_can_describe(&out, inputs)) return false;
  auto iter = make_iterator(form, out, inputs);  // the iterator resizes and writes `out` itself
  return launch_elementwise(iter, op, scalars, promotion_of(form));
}

}  // namespace torch_hal::native
