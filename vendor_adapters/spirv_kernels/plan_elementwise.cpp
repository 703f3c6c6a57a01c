// Plans of the elementwise module (kernels/elementwise.cl): the library's elementwise ops on float32, those that take
// integers on int64 too, and FILL.
#include <cstring>

#include "kernels/elementwise_params.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(StridedLayout) == 344 && sizeof(StridedLayout) <= sizeof(KernelArg::value),
              "StridedLayout must match kernels/kernel_layouts.h as the kernels see it");

constexpr const char* kDenseKernels[3] = {"unary_f32", "binary_f32", "ternary_f32"};
constexpr const char* kStridedKernels[3] = {"unary_strided_f32", "binary_strided_f32", "ternary_strided_f32"};
constexpr const char* kIntegerKernels[3] = {"unary_strided_i64", "binary_strided_i64", "ternary_strided_i64"};

bool is_dense_float32(const hal_tensor_t& t) { return is_float32_tensor(t) && hal_gpu::is_contiguous(t); }

// The compute type of a launch: float32 tensors, or int64 ones (for ops that take integers: ADD of
// num_batches_tracked), every tensor operand of that dtype.
enum class Compute { F32, I64 };

bool has_compute_type(const hal_tensor_t& t, Compute c) {
  return t.data != nullptr && t.ndim >= 0 &&
         hal_gpu::dtype_of(t.dtype) == (c == Compute::F32 ? hal_gpu::DType::F32 : hal_gpu::DType::I64);
}

}  // namespace

bool is_elementwise_dtype(hal_op_t op, hal_dtype_t t) {
  const hal_gpu::ew::Domain domain = hal_gpu::ew::op_info(op).domain;
  switch (hal_gpu::dtype_of(t)) {
    case hal_gpu::DType::F32: return domain != hal_gpu::ew::Domain::IntOnly;
    case hal_gpu::DType::I64: return domain != hal_gpu::ew::Domain::FloatOnly;
    default: return false;
  }
}

// Dense float32 operands of the output's shape take the plain kernels (an element per work-item, no index
// arithmetic); broadcast or strided operands, scalar operands and int64 take the strided ones. Arguments:
// (inputs..., out, [layout, [integer scalars,]] n, op, s0, mode).
hal_status_t plan_elementwise(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                              int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                              std::vector<Launch>* launches) {
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  if (num_inputs != info.arity || num_outputs != 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  const Compute compute = has_compute_type(out, Compute::I64) ? Compute::I64 : Compute::F32;
  if (!has_compute_type(out, compute) || !is_elementwise_dtype(op, out.dtype)) return HAL_STATUS_NOT_SUPPORTED;
  bool dense = compute == Compute::F32 && is_dense_float32(out);
  int scalar_operands = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (hal_gpu::is_scalar_operand(inputs[i])) {
      ++scalar_operands;
      dense = false;
    } else if (!has_compute_type(inputs[i], compute) || !same_shape(inputs[i], out)) {
      return HAL_STATUS_NOT_SUPPORTED;  // other dtypes (the compute type would differ): the fallback
    } else {
      dense = dense && is_dense_float32(inputs[i]);
    }
  }
  if (scalars == nullptr && scalar_operands + info.own_scalars > 0) return HAL_STATUS_NOT_SUPPORTED;
  if (num_scalars < scalar_operands + info.own_scalars) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;

  const char* const* kernels = dense ? kDenseKernels : compute == Compute::F32 ? kStridedKernels : kIntegerKernels;
  Launch l = launch_of(Module::Elementwise, kernels[info.arity - 1]);
  const void* out0 = hal_gpu::element0(out);
  for (int32_t i = 0; i < num_inputs; ++i) add_pointer(&l, inputs[i], out0);  // a scalar operand's: never read
  add_pointer(&l, out, out0);
  if (!dense) {
    StridedLayout layout{};
    IntegerScalars integers{};
    const int64_t* strides[4] = {};
    for (int32_t i = 0; i < num_inputs; ++i) strides[i] = inputs[i].data != nullptr ? inputs[i].strides : nullptr;
    strides[num_inputs] = out.strides;
    if (!merge_dims(out.shape, out.ndim, strides, num_inputs + 1, layout.size, layout.stride, &layout.ndim)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
    // Scalar operands' values come first among the scalars, in input order (adapter_ops.h).
    for (int32_t i = 0, next = 0; i < num_inputs; ++i) {
      if (!hal_gpu::is_scalar_operand(inputs[i])) continue;
      layout.scalar_mask |= 1 << i;
      layout.scalar[i] = static_cast<float>(scalar_as_double(scalars[next]));
      integers.value[i] = scalar_as_int(scalars[next++]);
    }
    l.args.push_back(KernelArg::of_value(layout));
    if (compute == Compute::I64) l.args.push_back(KernelArg::of_value(integers));
  }
  const hal_scalar_t* own = scalars != nullptr ? scalars + scalar_operands : nullptr;
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(n)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op)));
  if (compute == Compute::F32) {
    const hal_gpu::ew::Params<float> params = hal_gpu::params_of<float>(op, own);
    l.args.push_back(KernelArg::of_value(params.s0));
    l.args.push_back(KernelArg::of_value(static_cast<int32_t>(params.mode)));
  } else {
    const hal_gpu::ew::Params<int64_t> params = hal_gpu::params_of<int64_t>(op, own);
    l.args.push_back(KernelArg::of_value(params.s0));
    l.args.push_back(KernelArg::of_value(static_cast<int32_t>(params.mode)));
  }
  l.global[0] = static_cast<size_t>(n);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

// FILL of any dtype but float16/bfloat16 (their rounding is not written here): the value converted on the host
// as ATen converts a Scalar, then stored as raw bits of the element's size. Arguments: (out, layout, n, bits).
hal_status_t plan_fill(const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                       int32_t num_scalars, std::vector<Launch>* launches) {
  if (num_outputs != 1 || scalars == nullptr || num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (out.data == nullptr || out.ndim < 0) return HAL_STATUS_NOT_SUPPORTED;
  const hal_scalar_t& v = scalars[0];
  uint64_t bits = 0;
  const char* kernel = nullptr;
  auto as_bits = [&bits](auto value) { std::memcpy(&bits, &value, sizeof(value)); };
  switch (hal_gpu::dtype_of(out.dtype)) {
    case hal_gpu::DType::F32: as_bits(static_cast<float>(scalar_as_double(v))), kernel = "fill_b32"; break;
    case hal_gpu::DType::F64: as_bits(scalar_as_double(v)), kernel = "fill_b64"; break;
    case hal_gpu::DType::Bool: as_bits(static_cast<uint8_t>(scalar_as_double(v) != 0.0)), kernel = "fill_b8"; break;
    case hal_gpu::DType::U8: as_bits(static_cast<uint8_t>(scalar_as_int(v))), kernel = "fill_b8"; break;
    case hal_gpu::DType::I8: as_bits(static_cast<int8_t>(scalar_as_int(v))), kernel = "fill_b8"; break;
    case hal_gpu::DType::I16: as_bits(static_cast<int16_t>(scalar_as_int(v))), kernel = "fill_b16"; break;
    case hal_gpu::DType::I32: as_bits(static_cast<int32_t>(scalar_as_int(v))), kernel = "fill_b32"; break;
    case hal_gpu::DType::I64: as_bits(scalar_as_int(v)), kernel = "fill_b64"; break;
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  Launch l;
  if (!output_walk(Module::Elementwise, kernel, out, n, &l)) return HAL_STATUS_NOT_SUPPORTED;
  l.args.push_back(KernelArg::of_value(bits));
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
