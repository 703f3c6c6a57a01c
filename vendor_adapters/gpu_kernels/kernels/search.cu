// The search family: SEARCHSORTED, the position of each value in its sorted line (search_rules.cuh's binary
// search, which the SPIR-V kernel shares). A thread per value; every line is read in place through its strides
// and, when given, the sorter's order, so neither sorted nor values is copied to a dense layout first.

#include <type_traits>

#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/lines.cuh"
#include "kernels/op_call.h"
#include "kernels/search_rules.cuh"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;

struct SearchArgs {
  Elements sorted, sorter, values, out;
  Lines<4> lines;  // [0] sorted, [1] sorter (sorted again without one), [2] values, [3] out
  int64_t length = 0;  // elements per sorted line
  int64_t count = 0;   // values per line
  bool right = false;
  bool has_sorter = false;
};

template <class T>
__global__ void __launch_bounds__(kThreads) searchsorted_kernel(SearchArgs a) {
  const int64_t total = a.lines.count * a.count;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t m = e / a.count, j = e % a.count;
    int64_t off[4];
    line_offsets(m, a.lines, off);
    const T value = load_as<T>(a.values.base + (off[2] + j * a.lines.step[2]) * a.values.size, a.values.dtype);
    const auto element = [&](int64_t i) {
      const int64_t at = a.has_sorter ? load_as<int64_t>(a.sorter.base + (off[1] + i * a.lines.step[1]) *
                                                                            a.sorter.size, a.sorter.dtype)
                                      : i;
      return load_as<T>(a.sorted.base + (off[0] + at * a.lines.step[0]) * a.sorted.size, a.sorted.dtype);
    };
    const int64_t position = sorted_position<T>(value, a.length, a.right, element);
    store_from<int64_t>(a.out.base + (off[3] + j * a.lines.step[3]) * a.out.size, a.out.dtype, position);
  }
}

}  // namespace

hal_status_t launch_search(const OpCall& call) {
  if (call.op != HAL_OP_SEARCHSORTED || !has_operands(call, 3, 1, 1)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& sorted = call.inputs[0];
  const hal_tensor_t& sorter = call.inputs[1];
  const hal_tensor_t& values = call.inputs[2];
  const hal_tensor_t& out = call.outputs[0];
  const bool has_sorter = !is_absent(sorter);
  if (is_scalar_operand(sorted) || is_scalar_operand(values) || is_absent(sorted) || is_absent(values) ||
      sorted.ndim < 1 || sorted.ndim > HAL_MAX_DIMS || !same_shape(values, out)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType dtype = dtype_of(sorted.dtype), out_dtype = dtype_of(out.dtype);
  if (dtype == DType::Unsupported || dtype_of(values.dtype) != dtype ||
      (out_dtype != DType::I64 && out_dtype != DType::I32) ||
      (has_sorter && (dtype_of(sorter.dtype) != DType::I64 || !same_shape(sorter, sorted)))) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  SearchArgs a;
  const int64_t dim = sorted.ndim - 1;
  const hal_tensor_t* const tensors[4] = {&sorted, has_sorter ? &sorter : &sorted, &values, &out};
  if (!lines_of(tensors, dim, a.lines)) return HAL_STATUS_NOT_SUPPORTED;
  a.length = a.lines.length[0];
  a.count = a.lines.length[2];
  if (a.lines.count == 0 || a.count == 0) return HAL_STATUS_SUCCESS;
  a.sorted = {element0(sorted), dtype, dtype_size(dtype)};
  a.sorter = has_sorter ? Elements{element0(sorter), DType::I64, 8} : a.sorted;
  a.values = {element0(values), dtype, dtype_size(dtype)};
  a.out = {element0(out), out_dtype, dtype_size(out_dtype)};
  a.right = scalar_true(call.scalars[0]);
  a.has_sorter = has_sorter;
  const unsigned grid = grid_for(a.lines.count * a.count, kThreads, call.device);
  // Compared in a type that holds every value of the dtype exactly: double for float64, float for the other
  // floating types, int64 for integers and bool.
  if (dtype == DType::F64) return launch_kernel<searchsorted_kernel<double>>("searchsorted", call.device, grid, kThreads, 0, call.stream, a);
  if (is_floating(dtype)) return launch_kernel<searchsorted_kernel<float>>("searchsorted", call.device, grid, kThreads, 0, call.stream, a);
  return launch_kernel<searchsorted_kernel<int64_t>>("searchsorted", call.device, grid, kThreads, 0, call.stream, a);
}

}  // namespace hal_gpu
