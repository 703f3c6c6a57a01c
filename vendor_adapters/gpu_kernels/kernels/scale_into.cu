#include <algorithm>

#include "kernels/kernel_launch.h"
#include "scale_into.h"
#include "tensor_access.cuh"

namespace hal_gpu {
namespace {

// One thread per output element, grid-stride. T is the compute type: float for 16- and 32-bit floats,
// double for float64 (two instantiations in all: this kernel is not on a hot path).
template <class T>
__global__ void scale_into_kernel(Shape shape, Operand out, Operand src, bool has_src, T scale, int64_t n) {
  const Operand ops[2] = {out, src};
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t offsets[2];
    offsets_of<2>(i, shape, ops, offsets);
    const T v = has_src ? scale * load_as<T>(src.base + offsets[1] * src.elem_size, src.dtype) : T(0);
    store_from<T>(out.base + offsets[0] * out.elem_size, out.dtype, v);
  }
}

}  // namespace

hal_status_t scale_into(const hal_tensor_t& out, const hal_tensor_t* src, double scale, int32_t device,
                        cudaStream_t stream) {
  const int64_t n = numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  const Shape shape = shape_of(out);
  const Operand o = operand_of(out);
  const Operand s = src ? operand_of(*src) : Operand{};
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 65535);
  const unsigned grid = static_cast<unsigned>(blocks);
  if (o.dtype == DType::F64) {
    return launch_kernel<scale_into_kernel<double>>("scale_into_kernel", device, grid, kThreads, 0, stream, shape, o, s,
                                                    src != nullptr, scale, n);
  }
  return launch_kernel<scale_into_kernel<float>>("scale_into_kernel", device, grid, kThreads, 0, stream, shape, o, s,
                                                 src != nullptr, static_cast<float>(scale), n);
}

}  // namespace hal_gpu
