#include "native/elementwise_forms.h"

namespace torch_hal::native {

at::TensorIterator make_iterator(Form form, at::Tensor& out, std::initializer_list<const at::Tensor*> inputs) {
  const at::Tensor& a = **inputs.begin();
  switch (form) {
    case Form::Unary: return at::TensorIterator::unary_op(out, a);
    case Form::UnaryFloat: return at::TensorIterator::unary_float_op(out, a);
    case Form::Binary: return at::TensorIterator::binary_op(out, a, *inputs.begin()[1]);
    case Form::BinaryFloat: return at::TensorIterator::binary_float_op(out, a, *inputs.begin()[1]);
    case Form::Comparison: return at::TensorIterator::comparison_op(out, a, *inputs.begin()[1]);
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

std::optional<at::Tensor> run_functional(hal_op_t op, Form form, std::initializer_list<const at::Tensor*> inputs,
                                         std::initializer_list<c10::Scalar> scalars) {
  at::Tensor out;
  auto iter = make_iterator(form, out, inputs);
  if (!launch_elementwise(iter, op, scalars)) return std::nullopt;
  return iter.output();
}

bool run_into(hal_op_t op, Form form, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs,
              std::initializer_list<c10::Scalar> scalars) {
  at::Tensor target = out;  // the same TensorImpl: the iterator resizes and writes `out` itself
  auto iter = make_iterator(form, target, inputs);
  return launch_elementwise(iter, op, scalars);
}

}  // namespace torch_hal::native
