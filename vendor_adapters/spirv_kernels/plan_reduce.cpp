// Plans of the reductions (kernels/reduce.cl; float64.cl where an operand is float64): SUM, MEAN, PROD, AMAX, AMIN,
// VAR, STD and VECTOR_NORM of floating dtypes (into any floating dtype), SUM, PROD, AMAX and AMIN of bool and
// integers (into an integer type), ARGMAX and ARGMIN of any of them into int64, ALL and ANY of any element type into
// bool or uint8, over any dims (the reductions' shape
// rule of adapter_ops.h) and strides.
#include "kernels/tensor_operands.h"
#include "kernels/vector_norm.cuh"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(ReduceLayout) == 336, "ReduceLayout must match kernels/kernel_layouts.h as the kernels see it");

constexpr size_t kMaxGroup = 256;  // kernels/reduce.cl's kMaxGroup

}  // namespace

bool is_planned_reduction(hal_op_t op) {
  return op == HAL_OP_SUM || op == HAL_OP_MEAN || op == HAL_OP_PROD || op == HAL_OP_AMAX || op == HAL_OP_AMIN ||
         op == HAL_OP_VECTOR_NORM || op == HAL_OP_ALL || op == HAL_OP_ANY || op == HAL_OP_ARGMAX ||
         op == HAL_OP_ARGMIN || op == HAL_OP_VAR || op == HAL_OP_STD;
}

hal_status_t plan_reduce(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                         int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                         std::vector<Launch>* launches) {
  if (num_inputs != 1 || num_outputs != 1) return HAL_STATUS_NOT_SUPPORTED;
  const bool norm = op == HAL_OP_VECTOR_NORM;
  const bool arg = op == HAL_OP_ARGMAX || op == HAL_OP_ARGMIN;
  const bool moments = op == HAL_OP_VAR || op == HAL_OP_STD;
  if ((norm || moments) && (scalars == nullptr || num_scalars < 1)) return HAL_STATUS_INVALID_ARGUMENT;
  const hal_tensor_t& in = inputs[0];
  const hal_tensor_t& out = outputs[0];
  const bool logical = op == HAL_OP_ALL || op == HAL_OP_ANY;
  int32_t in_type = kF32, out_type = kF32;
  if (in.data == nullptr || out.data == nullptr || in.ndim < 0 || in.ndim != out.ndim) return HAL_STATUS_NOT_SUPPORTED;
  if (!element_type_of(in, &in_type) || !element_type_of(out, &out_type)) return HAL_STATUS_NOT_SUPPORTED;
  // The accumulation type: float64 where an operand is float64 (float64.cl), else int64 for bool and integers
  // (SUM, PROD, AMAX, AMIN into an integer output), else float32.
  // The accumulation type: float64 where an operand is float64 (float64.cl), else float32 for a floating output (a
  // bool or integer input loaded into it, as sum(dtype=) casts), else int64 (SUM, PROD, AMAX, AMIN of bool and
  // integers into an integer output). ARGMAX and ARGMIN compare in the input's: float64, float32, or int64, into
  // an int64 output; ALL and ANY test in float32 (float64 for float64 inputs) into bool or uint8.
  auto floating = [](int32_t t) { return is_float_type(t) || t == kF64; };
  const bool doubles = in_type == kF64 || out_type == kF64;
  const bool integers = arg ? !floating(in_type) : !logical && !floating(out_type);
  if (integers && !arg && (floating(in_type) || norm || moments || op == HAL_OP_MEAN)) return HAL_STATUS_NOT_SUPPORTED;
  if (arg ? out_type != kI64 : logical ? out_type != kBool && out_type != kU8 : false) return HAL_STATUS_NOT_SUPPORTED;
  // float32 alone takes the kernels that load and store float32 directly.
  const bool typed = logical || arg || moments || in_type != kF32 || out_type != kF32;
  // Split the dims: reduced where the output's size is 1 and the input's is not; kept (sizes equal) otherwise.
  int64_t kept_shape[HAL_MAX_DIMS], kept_in[HAL_MAX_DIMS], kept_out[HAL_MAX_DIMS];
  int64_t reduced_shape[HAL_MAX_DIMS], reduced_in[HAL_MAX_DIMS];
  int32_t kept = 0, reduced = 0;
  int64_t length = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (out.shape[d] == 1 && in.shape[d] != 1) {
      reduced_shape[reduced] = in.shape[d];
      reduced_in[reduced++] = in.strides[d];
      length *= in.shape[d];
    } else if (out.shape[d] == in.shape[d]) {
      kept_shape[kept] = in.shape[d];
      kept_in[kept] = in.strides[d];
      kept_out[kept++] = out.strides[d];
    } else {
      return HAL_STATUS_INVALID_ARGUMENT;
    }
  }
  // ARGMAX and ARGMIN take exactly one reduced dim, and no empty one (the CPU's error, through the fallback).
  if (arg && (reduced > 1 || length == 0)) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t outputs_count = hal_gpu::numel(out);
  if (outputs_count == 0) return HAL_STATUS_SUCCESS;
  ReduceLayout layout{};
  layout.length = length;
  int64_t kept_strides[2][kMaxDims], reduced_strides[1][kMaxDims];
  const int64_t* kept_pair[2] = {kept_in, kept_out};
  const int64_t* reduced_one[1] = {reduced_in};
  if (!merge_dims(kept_shape, kept, kept_pair, 2, layout.kept_size, kept_strides, &layout.kept_ndim) ||
      !merge_dims(reduced_shape, reduced, reduced_one, 1, layout.reduced_size, reduced_strides, &layout.reduced_ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  for (int32_t d = 0; d < layout.kept_ndim; ++d) {
    layout.kept_in[d] = kept_strides[0][d];
    layout.kept_out[d] = kept_strides[1][d];
  }
  for (int32_t d = 0; d < layout.reduced_ndim; ++d) layout.reduced_in[d] = reduced_strides[0][d];

  // A work-group per output element, as wide as the reduction (a power of two for the kernel's tree).
  const size_t group = pow2_at_least(length, kMaxGroup);
  const char* norm_kernel = doubles ? "vector_norm_typed_f64" : typed ? "vector_norm_typed_f32" : "vector_norm_f32";
  const char* arg_kernel = doubles    ? "arg_reduce_typed_f64"
                           : integers ? "arg_reduce_typed_i64"
                                      : "arg_reduce_typed_f32";
  const char* kernel = norm       ? norm_kernel
                       : arg      ? arg_kernel
                       : moments  ? (doubles ? "moments_typed_f64" : "moments_typed_f32")
                       : doubles  ? "reduce_typed_f64"
                       : integers ? "reduce_typed_i64"
                       : typed    ? "reduce_typed_f32"
                                  : "reduce_f32";
  Launch l = launch_of(doubles ? Module::Float64 : Module::Reduce, kernel);
  add_pointer(&l, in, hal_gpu::element0(out));  // a reduction of no elements reads nothing
  add_pointer(&l, out, nullptr);
  l.args.push_back(KernelArg::of_value(layout));
  if (norm) {
    const double ord = scalar_as_double(scalars[0]);
    const hal_gpu::NormOrder order = hal_gpu::norm_order_of(ord);
    // The infinite orders of no elements are an error on the CPU: the fallback gives it.
    if (length == 0 && (order == hal_gpu::NormOrder::Inf || order == hal_gpu::NormOrder::NegInf)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
    l.args.push_back(KernelArg::of_value(static_cast<int32_t>(order)));
    if (doubles) l.args.push_back(KernelArg::of_value(ord));
    else l.args.push_back(KernelArg::of_value(static_cast<float>(ord)));
  } else {
    l.args.push_back(KernelArg::of_value(static_cast<int32_t>(op)));
  }
  if (moments) {
    const double correction = scalar_as_double(scalars[0]);
    if (doubles) l.args.push_back(KernelArg::of_value(correction));
    else l.args.push_back(KernelArg::of_value(static_cast<float>(correction)));
  }
  if (typed) {
    l.args.push_back(KernelArg::of_value(in_type));
    l.args.push_back(KernelArg::of_value(out_type));
  }
  l.global[0] = static_cast<size_t>(outputs_count) * group;
  l.local[0] = group;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
