// HAL_OP_CONVOLUTION and its two backward ops on CUDA and HIP: the entry points around the family's kernel body
// (convolution_gemm.cuh, which the SPIR-V side compiles too) and their launch. The AMD adapter's convolutions (no
// MIOpen yet) run here; the NVIDIA adapter runs cuDNN and comes here for what cuDNN lacks or declines.

#include <cstdint>
#include <type_traits>

#include "kernels/convolution_gemm.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/op_call.h"
#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace {

template <class T, class Acc, ConvDirection D>
__global__ void __launch_bounds__(kConvThreads)
    convolution_kernel(const __grid_constant__ ConvGeometry g, const T* in0, const T* in1, T* out) {
  __shared__ Acc tile_a[kConvTileK * kConvTileM];
  __shared__ Acc tile_b[kConvTileK * kConvTileN];
  convolution_block<T, Acc, D>(g, in0, in1, out, tile_a, tile_b);
}

constexpr const char* kKernelName = "convolution (implicit GEMM)";

template <class T, ConvDirection D>
hal_status_t run(const OpCall& call, const ConvGeometry& g, dim3 grid) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const T* in0 = reinterpret_cast<const T*>(element0(call.inputs[0]));
  const T* in1 = reinterpret_cast<const T*>(element0(call.inputs[1]));
  T* out = reinterpret_cast<T*>(element0(call.outputs[0]));
  return launch_kernel<convolution_kernel<T, Acc, D>>(kKernelName, call.device, grid, kConvThreads, 0, call.stream, g,
                                                      in0, in1, out);
}

template <class T>
hal_status_t run_direction(const OpCall& call, const ConvLaunch& l, dim3 grid) {
  switch (l.direction) {
    case ConvDirection::Forward: return run<T, ConvDirection::Forward>(call, l.geometry, grid);
    case ConvDirection::BackwardInput: return run<T, ConvDirection::BackwardInput>(call, l.geometry, grid);
    case ConvDirection::BackwardWeight: return run<T, ConvDirection::BackwardWeight>(call, l.geometry, grid);
  }
  return HAL_STATUS_NOT_SUPPORTED;
}

}  // namespace

hal_status_t launch_convolution(const OpCall& call) {
  ConvLaunch l;
  const char* why = nullptr;
  if (!read_convolution(call.op, call.inputs, call.num_inputs, call.outputs, call.num_outputs, call.scalars,
                        call.num_scalars, &l, &why)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, why);
  }
  if (l.empty) return HAL_STATUS_SUCCESS;
  uint32_t blocks[3];
  convolution_grid(l.geometry, blocks);
  if (blocks[1] > 65535 || blocks[2] > 65535) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "convolution: more output channels or groups than the grid takes");
  }
  const dim3 grid(blocks[0], blocks[1], blocks[2]);
  switch (dtype_of(l.x->dtype)) {
    case DType::F32: return run_direction<float>(call, l, grid);
    case DType::F16: return run_direction<__half>(call, l, grid);
    case DType::BF16: return run_direction<__nv_bfloat16>(call, l, grid);
    case DType::F64: return run_direction<double>(call, l, grid);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "convolution: unsupported dtype");
  }
}

}  // namespace hal_gpu
