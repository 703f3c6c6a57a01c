// Plans of the scan module (kernels/scan.cl) along any dim of any strides: CUMSUM, CUMPROD and LOGCUMSUMEXP of a
// floating dtype into a floating dtype (float16 and bfloat16 accumulated in float32; float64's in float64.cl), of
// bool or integers into int64 (ATen's result dtype for them; not LOGCUMSUMEXP), CUMMAX and CUMMIN of floating dtypes
// or int64 (values of the input's dtype, int64 indices), as scan.cu takes them; other dtype pairs (a requested
// dtype of another kind) are NOT_SUPPORTED.
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

bool is_scan(hal_op_t op) {
  return op == HAL_OP_CUMSUM || op == HAL_OP_CUMPROD || op == HAL_OP_LOGCUMSUMEXP || op == HAL_OP_CUMMAX ||
         op == HAL_OP_CUMMIN;
}

// scan.cl's kind argument: the ScanKind of the value scans, or whether an extremum scan takes the maximum.
int32_t kind_of(hal_op_t op) {
  switch (op) {
    case HAL_OP_CUMPROD: return 1;
    case HAL_OP_LOGCUMSUMEXP: return 2;
    case HAL_OP_CUMMAX: return 1;
    default: return 0;  // CUMSUM, CUMMIN
  }
}

}  // namespace

hal_status_t plan_scan(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                       int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                       std::vector<Launch>* launches) {
  const bool extremum = op == HAL_OP_CUMMAX || op == HAL_OP_CUMMIN;
  if (!is_scan(op) || num_inputs != 1 || num_outputs != (extremum ? 2 : 1) || scalars == nullptr ||
      num_scalars < 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // Complex log-sum-exps (LOGCUMSUMEXP's complex_pairs scalar): no SPIR-V kernel yet (scan.cu's runs in float64).
  if (num_scalars > 1 && scalar_as_int(scalars[1]) != 0) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t &in = inputs[0], &out = outputs[0], &indices = outputs[extremum ? 1 : 0];
  if (in.data == nullptr || out.data == nullptr || indices.data == nullptr || in.ndim < 0 || !same_shape(in, out) ||
      !same_shape(in, indices)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const hal_gpu::DType in_dtype = hal_gpu::dtype_of(in.dtype), out_dtype = hal_gpu::dtype_of(out.dtype);
  int32_t in_type = kF32, out_type = kF32;
  if (!element_type_of(in, &in_type) || !element_type_of(out, &out_type)) return HAL_STATUS_NOT_SUPPORTED;
  // Floating in and out (extremum scans: of one dtype): float32 alone takes scan_f32 / extremum_f32, the others
  // the typed kernels of their accumulation type.
  const bool floats = hal_gpu::is_floating(in_dtype) && hal_gpu::is_floating(out_dtype) &&
                      (!extremum || in_dtype == out_dtype);
  const bool doubles = floats && (in_dtype == hal_gpu::DType::F64 || out_dtype == hal_gpu::DType::F64);
  const bool typed = floats && (in_type != kF32 || out_type != kF32);
  const bool integers = extremum ? in_dtype == hal_gpu::DType::I64 && out_dtype == hal_gpu::DType::I64
                                 : out_dtype == hal_gpu::DType::I64 && !hal_gpu::is_floating(in_dtype);
  if (!floats && !integers) return HAL_STATUS_NOT_SUPPORTED;
  if (op == HAL_OP_LOGCUMSUMEXP && !floats) return HAL_STATUS_NOT_SUPPORTED;
  if (extremum && hal_gpu::dtype_of(indices.dtype) != hal_gpu::DType::I64) return HAL_STATUS_NOT_SUPPORTED;
  int64_t dim = in.ndim > 0 ? scalar_as_int(scalars[0]) : 0;
  if (dim < 0) dim += in.ndim;
  if (in.ndim > 0 && (dim < 0 || dim >= in.ndim)) return HAL_STATUS_NOT_SUPPORTED;
  // The lines: every dim but `dim`, with each operand's strides there.
  int64_t line_shape[HAL_MAX_DIMS], in_strides[HAL_MAX_DIMS], out_strides[HAL_MAX_DIMS], index_strides[HAL_MAX_DIMS];
  int32_t line_ndim = 0;
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (d == dim) continue;
    line_shape[line_ndim] = in.shape[d];
    in_strides[line_ndim] = in.strides[d];
    out_strides[line_ndim] = out.strides[d];
    index_strides[line_ndim] = indices.strides[d];
    ++line_ndim;
  }
  const int64_t length = in.ndim > 0 ? in.shape[dim] : 1;
  const int64_t in_step = in.ndim > 0 ? in.strides[dim] : 0, out_step = in.ndim > 0 ? out.strides[dim] : 0;
  const int64_t index_step = in.ndim > 0 ? indices.strides[dim] : 0;
  int64_t lines = 1;
  for (int32_t d = 0; d < line_ndim; ++d) lines *= line_shape[d];
  if (lines == 0 || length == 0) return HAL_STATUS_SUCCESS;
  StridedLayout layout{};
  const int64_t* strides[3] = {in_strides, out_strides, index_strides};
  if (line_ndim == 0) {  // one line: a single merged dim of size 1
    layout.ndim = 1;
    layout.size[0] = 1;
  } else if (!merge_dims(line_shape, line_ndim, strides, extremum ? 3 : 2, layout.size, layout.stride,
                         &layout.ndim)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  // Arguments: value scans (in, out, layout, lines, length, in_step, out_step, kind[, in_type[, out_type]]);
  // extremum scans (in, values, indices, layout, lines, length, in_step, out_step, index_step, max[, type]).
  const char* typed_kernel = extremum ? (doubles ? "extremum_typed_f64" : "extremum_typed_f32")
                                      : (doubles ? "scan_typed_f64" : "scan_typed_f32");
  const char* plain_kernel = extremum ? (floats ? "extremum_f32" : "extremum_i64") : (floats ? "scan_f32" : "scan_i64");
  Launch l = launch_of(doubles ? Module::Float64 : Module::Scan, typed ? typed_kernel : plain_kernel);
  add_pointer(&l, in, nullptr);
  add_pointer(&l, out, nullptr);
  if (extremum) add_pointer(&l, indices, nullptr);
  l.args.push_back(KernelArg::of_value(layout));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(lines)));
  l.args.push_back(KernelArg::of_value(length));
  l.args.push_back(KernelArg::of_value(in_step));
  l.args.push_back(KernelArg::of_value(out_step));
  if (extremum) l.args.push_back(KernelArg::of_value(index_step));
  l.args.push_back(KernelArg::of_value(kind_of(op)));
  if (typed || (!floats && !extremum)) l.args.push_back(KernelArg::of_value(in_type));
  if (typed && !extremum) l.args.push_back(KernelArg::of_value(out_type));
  l.global[0] = static_cast<size_t>(lines);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
