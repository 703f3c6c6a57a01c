#include "ops/elementwise_launch.h"

#include <ATen/ops/empty_strided.h>

#include "dispatch/native_launch.h"

namespace torch_hal::native {
namespace {

// The ABI's compute class of a dtype (adapter.h: int64 < float32 < float64), bool counting as an integer.
int compute_class(at::ScalarType type) {
  if (type == at::kDouble) return 2;
  return at::isFloatingType(type) ? 1 : 0;
}

// Whether every value of `from` survives conversion to `to` unchanged.
bool converts_exactly(at::ScalarType from, at::ScalarType to) {
  if (from == to || from == at::kBool) return true;
  const bool small_int = from == at::kByte || from == at::kChar;
  switch (to) {
    case at::kDouble: return from != at::kLong;
    case at::kFloat: return small_int || from == at::kShort || from == at::kHalf || from == at::kBFloat16;
    case at::kHalf: case at::kBFloat16: return small_int;
    case at::kLong: return at::isIntegralType(from, false);
    case at::kInt: return small_int || from == at::kShort;
    case at::kShort: return small_int;
    default: return false;
  }
}

// ATen's kernels convert each input to the iteration's common dtype and compute in that dtype's math type
// (float for float16/bfloat16); the ABI converts each input straight to the launch's compute type. The two
// agree unless the trip through the common dtype changes a value the compute type would keep: a 0-dim
// float64 tensor beside float32 ones (compared in float32 by ATen), float32 beside a float16 result, int64
// beside an int32 result. Such inputs are converted to the common dtype on the device first.
bool input_needs_common_dtype(at::ScalarType input, at::ScalarType common) {
  if (converts_exactly(input, common)) return false;
  const bool common_is_math_type = common == at::kFloat || common == at::kDouble;
  return !(common_is_math_type && compute_class(input) <= compute_class(common));
}

// Likewise for the output: ATen rounds the result to the common dtype before it is cast to a wider output
// (out= float64 for float32 inputs), and wraps integer results at the common dtype's width (int32 inputs
// into an int64 out=; bool inputs stay bool), while the ABI would compute in the wider type. Such results go
// through a temporary of the common dtype.
bool output_needs_common_dtype(at::ScalarType output, at::ScalarType common) {
  if (output == common || output == at::kBool) return false;
  if (compute_class(common) == 0 && compute_class(output) == 0) {
    return common == at::kBool || c10::elementSize(output) > c10::elementSize(common);
  }
  return compute_class(output) > compute_class(common) || common == at::kHalf || common == at::kBFloat16;
}

// A tensor of dtype `type` with t's sizes and element strides, so the iterator's geometry describes it too
// (holding t's values when `copy_values`); or an undefined tensor when t's strides cannot hold a tensor of
// their own (overlapping, expanded memory).
at::Tensor in_dtype(const at::Tensor& t, at::ScalarType type, bool copy_values) {
  if (t.dim() > 0 && !t.is_non_overlapping_and_dense()) return {};
  at::Tensor result = at::empty_strided(t.sizes(), t.strides(), t.options().dtype(type));
  if (copy_values) result.copy_(t);
  return result;
}

}  // namespace

bool launch_elementwise(at::TensorIteratorBase& iter, hal_op_t op, std::initializer_list<c10::Scalar> op_scalars,
                        Promotion promotion) {
  const int ndim = iter.ndim();
  if (ndim > HAL_MAX_DIMS) return false;
  const c10::DeviceIndex device = iter.device(0).index();
  if (!has_native_kernels(device)) return false;
  if (iter.numel() == 0) return true;
  // (An iterator without promotion also has a "common dtype": its first input's, which means nothing here.)
  const std::optional<at::ScalarType> common =
      promotion == Promotion::ToCommonDtype ? std::optional<at::ScalarType>(iter.common_dtype()) : std::nullopt;

  // TensorIterator orders dimensions fastest first; the ABI is row-major (last dimension fastest).
  int64_t sizes[HAL_MAX_DIMS];
  for (int d = 0; d < ndim; ++d) sizes[ndim - 1 - d] = iter.shape()[d];
  const at::IntArrayRef shape(sizes, ndim);
  auto strides_of = [&](int k, int64_t* strides) {
    const int64_t element_size = static_cast<int64_t>(c10::elementSize(iter.dtype(k)));
    const auto byte_strides = iter.strides(k);
    for (int d = 0; d < ndim; ++d) strides[ndim - 1 - d] = byte_strides[d] / element_size;
    return at::IntArrayRef(strides, ndim);
  };

  KernelArgs args;
  at::Tensor wide_output;        // the real output when the kernel writes a common-dtype temporary
  at::Tensor output_temporary;
  c10::SmallVector<at::Tensor, 2> converted_inputs;  // alive until the launch is queued
  for (int k = 0; k < iter.ntensors(); ++k) {
    at::ScalarType type = iter.dtype(k);
    if (k >= iter.noutputs() && iter.is_cpu_scalar(k)) {
      const at::ScalarType as = iter.common_dtype();  // iterators that take CPU scalars have one
      if (at::isFloatingType(type)) {
        args.scalar_input(iter.scalar_value<double>(k), as);
      } else if (type == at::kBool) {
        args.scalar_input(iter.scalar_value<bool>(k), as);
      } else {
        args.scalar_input(iter.scalar_value<int64_t>(k), as);
      }
      continue;
    }
    int64_t strides[HAL_MAX_DIMS];
    const at::IntArrayRef stride_list = strides_of(k, strides);
    void* data = iter.data_ptr(k);
    if (k < iter.noutputs()) {
      if (common && iter.noutputs() == 1 && output_needs_common_dtype(type, *common)) {
        output_temporary = in_dtype(iter.tensor(k), *common, false);
        if (!output_temporary.defined()) return false;
        wide_output = iter.tensor(k);
        data = output_temporary.data_ptr();
        type = *common;
      }
      args.raw_output(data, type, shape, stride_list);
    } else {
      if (common && input_needs_common_dtype(type, *common)) {
        at::Tensor copy = in_dtype(iter.tensor(k), *common, true);
        if (!copy.defined()) return false;
        data = copy.data_ptr();
        type = *common;
        converted_inputs.push_back(std::move(copy));
      }
      args.raw_input(data, type, shape, stride_list);
    }
  }
  for (const c10::Scalar& s : op_scalars) args.scalar(s);
  if (!launch(device, op, args)) return false;
  if (wide_output.defined()) wide_output.copy_(output_temporary);  // the cast ATen does when it stores
  iter.cast_outputs();  // only does work where the iterator made a temporary output
  return true;
}

}  // namespace torch_hal::native
