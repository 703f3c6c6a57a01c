// TRIL and TRIU: the lower or upper triangle of the last two dimensions, the rest zeroed (triangle.cuh's rule,
// which the SPIR-V kernels share).
//
// One thread per element of the output; the element's row and column come from its index, and it is
// either copied from the input (bytes as they are: input and output share a dtype, so any dtype works,
// bool included) or zeroed. In place (y is x), kept elements are left alone and only zeros are written.

#include <cstdint>

#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"
#include "kernels/triangle.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;

struct TriangleArgs {
  Shape shape;        // the output's shape (at least 2 dimensions)
  Divisors div;       // of shape, for outputs of fewer than 2^31 elements
  Operand ops[2];     // [0] output, [1] input
  int64_t numel = 0;
  int64_t diagonal = 0;
  bool upper = false;
  bool in_place = false;
};

// An element's bytes as one unsigned integer of the dtype's width.
template <int Bytes> struct Word;
template <> struct Word<1> { using type = uint8_t; };
template <> struct Word<2> { using type = uint16_t; };
template <> struct Word<4> { using type = uint32_t; };
template <> struct Word<8> { using type = uint64_t; };

template <int Bytes>
__global__ void __launch_bounds__(kThreads) triangle_kernel(TriangleArgs a) {
  using W = typename Word<Bytes>::type;
  const int64_t cols = a.shape.sizes[a.shape.ndim - 1], rows = a.shape.sizes[a.shape.ndim - 2];
  const bool narrow = a.numel < (int64_t{1} << 31);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.numel; i += stride) {
    const bool keep = triangle_keeps(i, rows, cols, a.diagonal, a.upper);
    if (keep && a.in_place) continue;
    int64_t off[2];
    if (narrow) offsets_of32<2>(static_cast<uint32_t>(i), a.shape, a.div, a.ops, off);
    else offsets_of<2>(i, a.shape, a.ops, off);
    W* out = reinterpret_cast<W*>(a.ops[0].base) + off[0];
    *out = keep ? reinterpret_cast<const W*>(a.ops[1].base)[off[1]] : W(0);
  }
}

}  // namespace

hal_status_t launch_triangular(const OpCall& call) {
  if ((call.op != HAL_OP_TRIL && call.op != HAL_OP_TRIU) || !has_operands(call, 1, 1, 1)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& in = call.inputs[0];
  const hal_tensor_t& out = call.outputs[0];
  if (is_scalar_operand(in) || in.ndim < 2 || in.ndim > HAL_MAX_DIMS || !same_shape(in, out)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  const DType dtype = dtype_of(out.dtype);
  if (dtype == DType::Unsupported || dtype_of(in.dtype) != dtype) return HAL_STATUS_NOT_SUPPORTED;
  TriangleArgs a;
  a.numel = numel(out);
  if (a.numel == 0) return HAL_STATUS_SUCCESS;
  a.shape = shape_of(out);
  if (a.numel < (int64_t{1} << 31)) a.div = divisors_of(a.shape);
  a.ops[0] = operand_of(out);
  a.ops[1] = operand_of(in);
  const hal_scalar_t& s = call.scalars[0];
  a.diagonal = s.kind == 1 ? s.value.i : static_cast<int64_t>(s.value.f);
  a.upper = call.op == HAL_OP_TRIU;
  // The very same tensor (adapter.h: outputs overlap inputs only that way).
  bool same = element0(in) == element0(out);
  for (int d = 0; same && d < in.ndim; ++d) same = in.strides[d] == out.strides[d];
  a.in_place = same;
  const unsigned grid = grid_for(a.numel, kThreads, call.device);
  switch (dtype_size(dtype)) {
    case 1: return launch_kernel<triangle_kernel<1>>("tril/triu", call.device, grid, kThreads, 0, call.stream, a);
    case 2: return launch_kernel<triangle_kernel<2>>("tril/triu", call.device, grid, kThreads, 0, call.stream, a);
    case 4: return launch_kernel<triangle_kernel<4>>("tril/triu", call.device, grid, kThreads, 0, call.stream, a);
    case 8: return launch_kernel<triangle_kernel<8>>("tril/triu", call.device, grid, kThreads, 0, call.stream, a);
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace hal_gpu
