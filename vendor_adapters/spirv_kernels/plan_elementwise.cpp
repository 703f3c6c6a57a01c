// Plans of the elementwise module (kernels/elementwise.cl): the library's elementwise ops in its compute types
// (adapter_ops.h): float32 where some operand is floating (float32, float16, bfloat16, with bool and integer
// operands beside them), int64 where every operand is bool or an integer; and FILL and ARANGE.
#include <cstring>

#include "kernels/elementwise_params.h"
#include "kernels/elementwise_scalars.cuh"
#include "kernels/elementwise_special.cuh"
#include "kernels/half_bits.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(StridedLayout) == 344 && sizeof(StridedLayout) <= sizeof(KernelArg::value),
              "StridedLayout must match kernels/kernel_layouts.h as the kernels see it");
static_assert(sizeof(FloatParams) == 16 && sizeof(IntegerParams) == 32 && sizeof(DoubleParams) == 32 &&
                  sizeof(DoubleScalars) == 32,
              "FloatParams, IntegerParams, DoubleParams and DoubleScalars must match kernels/kernel_layouts.h as the "
              "kernels see them");

constexpr const char* kDenseKernels[3] = {"unary_f32", "binary_f32", "ternary_f32"};
constexpr const char* kStridedKernels[3] = {"unary_strided_f32", "binary_strided_f32", "ternary_strided_f32"};
constexpr const char* kTypedKernels[3] = {"unary_typed_f32", "binary_typed_f32", "ternary_typed_f32"};
constexpr const char* kIntegerKernels[3] = {"unary_strided_i64", "binary_strided_i64", "ternary_strided_i64"};
constexpr const char* kTypedIntegerKernels[3] = {"unary_typed_i64", "binary_typed_i64", "ternary_typed_i64"};
constexpr const char* kTypedDoubleKernels[3] = {"unary_typed_f64", "binary_typed_f64", "ternary_typed_f64"};

// The compute type of a launch, the kernel library's rule (adapter_ops.h; elementwise.cu's compute_type): float64
// where some operand is float64 (float64.cl's kernels), else float32 where some operand is floating (bool and
// integer operands beside it are loaded into float32 by the typed kernels), else int64; a bool output takes no
// part, scalar operands count by the dtype they stand for. Complex operands: None.
enum class Compute { F32, I64, F64, None };

Compute compute_type(const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t& out) {
  bool floating = false, doubles = false;
  auto visit = [&](hal_dtype_t t) {
    const hal_gpu::DType d = hal_gpu::dtype_of(t);
    floating = floating || hal_gpu::is_floating(d);
    doubles = doubles || d == hal_gpu::DType::F64;
    return d != hal_gpu::DType::Unsupported;
  };
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (!visit(inputs[i].dtype)) return Compute::None;
  }
  if (hal_gpu::dtype_of(out.dtype) != hal_gpu::DType::Bool && !visit(out.dtype)) return Compute::None;
  return doubles ? Compute::F64 : floating ? Compute::F32 : Compute::I64;
}

}  // namespace

bool is_elementwise_dtype(hal_op_t op, hal_dtype_t t) {
  const hal_gpu::ew::Domain domain = hal_gpu::ew::op_info(op).domain;
  switch (hal_gpu::dtype_of(t)) {
    case hal_gpu::DType::F32:
    case hal_gpu::DType::F16:
    case hal_gpu::DType::BF16:
    case hal_gpu::DType::F64: return domain != hal_gpu::ew::Domain::IntOnly;
    case hal_gpu::DType::Unsupported: return false;
    // bool and integers: computed in int64 among themselves, in float32 beside a floating operand (a float op's
    // bool or integer operand; the planner checks the mix).
    default: return true;
  }
}

// Dense float32 operands of the output's shape take the plain kernels (an element per work-item, no index
// arithmetic); broadcast or strided operands and scalar operands take the strided ones; operands of other element
// types (float16, bfloat16, bool, integers) where the compute type is float32 take the typed float32 ones; int64
// operands alone take the int64 ones, bool and integer operands of other types the typed int64 ones; a float64
// operand, float64.cl's typed ones. Arguments: (inputs..., out, [layout, [integer or double scalars,]] n, op,
// params[, types]).
hal_status_t plan_elementwise(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                              int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                              std::vector<Launch>* launches) {
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  if (num_inputs != info.arity || num_outputs != 1) return HAL_STATUS_NOT_SUPPORTED;
  // bitwise_not of bools is logical not (~1 would be "true" again once stored as bool), as elementwise.cu says.
  if (op == HAL_OP_BITWISE_NOT && hal_gpu::dtype_of(inputs[0].dtype) == hal_gpu::DType::Bool) {
    op = HAL_OP_LOGICAL_NOT;
  }
  // The special functions compute in double, which the SPIR-V module leaves out (elementwise_special.cuh).
  if (hal_gpu::ew::is_special_function(op)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  int32_t out_type = kF32;
  if (out.data == nullptr || out.ndim < 0 || !element_type_of(out, &out_type)) return HAL_STATUS_NOT_SUPPORTED;
  const Compute compute = compute_type(inputs, num_inputs, out);
  if (compute == Compute::None) return HAL_STATUS_NOT_SUPPORTED;
  if (info.domain == (compute == Compute::I64 ? hal_gpu::ew::Domain::FloatOnly : hal_gpu::ew::Domain::IntOnly)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // The plain float32 and int64 kernels take operands of their compute type alone; others the typed kernels
  // (float64's kernels are all typed: no float64 element type is "plain").
  const int32_t plain = compute == Compute::F32 ? kF32 : compute == Compute::I64 ? kI64 : -1;
  bool typed = out_type != plain;
  bool dense = compute == Compute::F32 && !typed && hal_gpu::is_contiguous(out);
  uint32_t types = 0;
  int scalar_operands = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (hal_gpu::is_scalar_operand(inputs[i])) {
      ++scalar_operands;
      dense = false;
      types |= static_cast<uint32_t>(out_type) << (8 * i);  // its stand-in is out's first element
      continue;
    }
    int32_t type = kF32;
    if (inputs[i].data == nullptr || inputs[i].ndim < 0 || !same_shape(inputs[i], out) ||
        !element_type_of(inputs[i], &type)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
    typed = typed || type != plain;
    dense = dense && type == kF32 && hal_gpu::is_contiguous(inputs[i]);
    types |= static_cast<uint32_t>(type) << (8 * i);
  }
  types |= static_cast<uint32_t>(out_type) << (8 * num_inputs);
  if (scalars == nullptr && scalar_operands + info.own_scalars > 0) return HAL_STATUS_NOT_SUPPORTED;
  if (num_scalars < scalar_operands + info.own_scalars) return HAL_STATUS_NOT_SUPPORTED;
  // True division of integers into an integer output is not an ATen op (elementwise.cu refuses it too).
  if (op == HAL_OP_DIV && compute == Compute::I64 && scalar_as_int(scalars[scalar_operands]) == 0) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;

  const char* const* kernels = compute == Compute::F64 ? kTypedDoubleKernels
                               : compute == Compute::I64 ? (typed ? kTypedIntegerKernels : kIntegerKernels)
                               : dense                  ? kDenseKernels
                               : typed                  ? kTypedKernels
                                                        : kStridedKernels;
  Launch l = launch_of(compute == Compute::F64 ? Module::Float64 : Module::Elementwise, kernels[info.arity - 1]);
  const void* out0 = hal_gpu::element0(out);
  for (int32_t i = 0; i < num_inputs; ++i) add_pointer(&l, inputs[i], out0);  // a scalar operand's: never used
  add_pointer(&l, out, out0);
  if (!dense) {
    StridedLayout layout{};
    IntegerScalars integers{};
    DoubleScalars doubles{};
    const int64_t* strides[4] = {};
    for (int32_t i = 0; i < num_inputs; ++i) strides[i] = inputs[i].data != nullptr ? inputs[i].strides : nullptr;
    strides[num_inputs] = out.strides;
    if (!merge_dims(out.shape, out.ndim, strides, num_inputs + 1, layout.size, layout.stride, &layout.ndim)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
    // Scalar operands' values come first among the scalars, in input order (adapter_ops.h), read as the CUDA and
    // HIP launch reads them: first the dtype they stand for, then the compute type.
    for (int32_t i = 0, next = 0; i < num_inputs; ++i) {
      if (!hal_gpu::is_scalar_operand(inputs[i])) continue;
      const hal_gpu::DType stands_for = hal_gpu::dtype_of(inputs[i].dtype);
      layout.scalar_mask |= 1 << i;
      layout.scalar[i] = hal_gpu::scalar_operand_as<float>(scalars[next], stands_for);
      doubles.value[i] = hal_gpu::scalar_operand_as<double>(scalars[next], stands_for);
      integers.value[i] = hal_gpu::scalar_operand_as<int64_t>(scalars[next++], stands_for);
    }
    l.args.push_back(KernelArg::of_value(layout));
    if (compute == Compute::I64) l.args.push_back(KernelArg::of_value(integers));
    if (compute == Compute::F64) l.args.push_back(KernelArg::of_value(doubles));
  }
  const hal_scalar_t* own = scalars != nullptr ? scalars + scalar_operands : nullptr;
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op)));
  // The op's own scalars travel as one Params struct (elementwise_ops.cuh), as the CUDA and HIP kernels take them.
  if (compute == Compute::F32) {
    const hal_gpu::ew::Params<float> p = hal_gpu::params_of<float>(op, own);
    l.args.push_back(KernelArg::of_value(FloatParams{p.s0, p.s1, p.s2, p.mode}));
  } else if (compute == Compute::F64) {
    const hal_gpu::ew::Params<double> p = hal_gpu::params_of<double>(op, own);
    l.args.push_back(KernelArg::of_value(DoubleParams{p.s0, p.s1, p.s2, p.mode, 0}));
  } else {
    const hal_gpu::ew::Params<int64_t> p = hal_gpu::params_of<int64_t>(op, own);
    l.args.push_back(KernelArg::of_value(IntegerParams{p.s0, p.s1, p.s2, p.mode, 0}));
  }
  if (typed) l.args.push_back(KernelArg::of_value(types));
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

// The value converted on the host as ATen converts a Scalar (float16 and bfloat16 through float32, as c10's
// conversions go).
bool scalar_bits(const hal_scalar_t& v, hal_dtype_t t, uint64_t* bits) {
  *bits = 0;
  auto as_bits = [bits](auto value) { std::memcpy(bits, &value, sizeof(value)); };
  const float single = static_cast<float>(scalar_as_double(v));
  switch (hal_gpu::dtype_of(t)) {
    case hal_gpu::DType::F32: as_bits(single); return true;
    case hal_gpu::DType::F64: as_bits(scalar_as_double(v)); return true;
    case hal_gpu::DType::F16: as_bits(hal_gpu::float16_of_float(single)); return true;
    case hal_gpu::DType::BF16: as_bits(hal_gpu::bfloat16_of_float(single)); return true;
    case hal_gpu::DType::Bool: as_bits(static_cast<uint8_t>(scalar_as_double(v) != 0.0)); return true;
    case hal_gpu::DType::U8: as_bits(static_cast<uint8_t>(scalar_as_int(v))); return true;
    case hal_gpu::DType::I8: as_bits(static_cast<int8_t>(scalar_as_int(v))); return true;
    case hal_gpu::DType::I16: as_bits(static_cast<int16_t>(scalar_as_int(v))); return true;
    case hal_gpu::DType::I32: as_bits(static_cast<int32_t>(scalar_as_int(v))); return true;
    case hal_gpu::DType::I64: as_bits(scalar_as_int(v)); return true;
    default: return false;
  }
}

// FILL of any dtype: scalar_bits stored as raw bits of the element's size. Arguments: (out,
// layout, n, bits).
hal_status_t plan_fill(const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars, std::vector<Launch>* launches) {
  if (num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (out.data == nullptr || out.ndim < 0) return HAL_STATUS_NOT_SUPPORTED;
  uint64_t bits = 0;
  if (!scalar_bits(scalars[0], out.dtype, &bits)) return HAL_STATUS_NOT_SUPPORTED;
  const char* kernel = nullptr;
  switch (hal_gpu::dtype_size(hal_gpu::dtype_of(out.dtype))) {
    case 1: kernel = "fill_b8"; break;
    case 2: kernel = "fill_b16"; break;
    case 4: kernel = "fill_b32"; break;
    default: kernel = "fill_b64"; break;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  Launch l;
  if (!output_walk(Module::Elementwise, kernel, out, n, &l)) return HAL_STATUS_NOT_SUPPORTED;
  l.args.push_back(KernelArg::of_value(bits));
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

// ARANGE into a 1-D floating, int64 or int32 output of any stride: start and step in the compute type of CUDA's
// kernel (float for float32, float16 and bfloat16, double for float64 (float64.cl), int64 for integers).
// Arguments: (out, stride, n, start, step[, element type]).
hal_status_t plan_arange(const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                         int32_t num_scalars, std::vector<Launch>* launches) {
  if (num_outputs != 1 || scalars == nullptr || num_scalars < 2) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (out.data == nullptr || out.ndim != 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_gpu::DType d = hal_gpu::dtype_of(out.dtype);
  const bool half = d == hal_gpu::DType::F16 || d == hal_gpu::DType::BF16;
  const bool doubles = d == hal_gpu::DType::F64;
  const char* kernel = d == hal_gpu::DType::F32   ? "arange_f32"
                       : half                     ? "arange_typed_f32"
                       : doubles                  ? "arange_f64"
                       : d == hal_gpu::DType::I64 ? "arange_i64"
                       : d == hal_gpu::DType::I32 ? "arange_i32"
                                                  : nullptr;
  int32_t type = kF32;
  if (kernel == nullptr || !element_type_of(out, &type)) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t n = out.shape[0];
  if (n == 0) return HAL_STATUS_SUCCESS;
  Launch l = launch_of(doubles ? Module::Float64 : Module::Elementwise, kernel);
  add_pointer(&l, out, nullptr);
  l.args.push_back(KernelArg::of_value(out.strides[0]));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  if (doubles) {
    l.args.push_back(KernelArg::of_value(scalar_as_double(scalars[0])));
    l.args.push_back(KernelArg::of_value(scalar_as_double(scalars[1])));
  } else if (d == hal_gpu::DType::F32 || half) {
    l.args.push_back(KernelArg::of_value(static_cast<float>(scalar_as_double(scalars[0]))));
    l.args.push_back(KernelArg::of_value(static_cast<float>(scalar_as_double(scalars[1]))));
    if (half) l.args.push_back(KernelArg::of_value(type));
  } else {
    l.args.push_back(KernelArg::of_value(scalar_as_int(scalars[0])));
    l.args.push_back(KernelArg::of_value(scalar_as_int(scalars[1])));
  }
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
