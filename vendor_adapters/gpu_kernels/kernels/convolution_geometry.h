// The convolution family's problem as its kernel reads it: HAL_OP_CONVOLUTION and its two backward ops as one
// implicit GEMM per group (convolution_gemm.cuh says how each op maps onto it). Read on the host from an adapter
// launch by every runtime that runs the library's kernel (convolution.cu for CUDA and HIP, the SPIR-V planner's
// plan_convolution.cpp), and passed to the kernel by value: int32 fields only, so that the layout is the same for
// x86-64, NVIDIA, AMD and spir64.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#endif

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

constexpr int kConvSpatial = 3;  // 1-D and 2-D problems fill the missing leading dims with size 1

// The block's GEMM tile: kConvThreads threads, each computing kConvThreadTile x kConvThreadTile outputs.
constexpr int kConvTileM = 64;
constexpr int kConvTileN = 64;
constexpr int kConvTileK = 16;
constexpr int kConvThreadTile = 4;
constexpr int kConvThreads = (kConvTileM / kConvThreadTile) * (kConvTileN / kConvThreadTile);

enum class ConvDirection : int32_t { Forward = 0, BackwardInput = 1, BackwardWeight = 2 };

struct ConvGeometry {
  int32_t batch, channels, out_channels, groups;  // N, C, K of the whole problem
  int32_t in[kConvSpatial], out[kConvSpatial], filter[kConvSpatial];
  int32_t stride[kConvSpatial], pad[kConvSpatial], dilation[kConvSpatial];
  // Element strides of x [N, C, in...], w [K, C/groups, filter...] and y [N, K, out...].
  int32_t x_stride[2 + kConvSpatial], w_stride[2 + kConvSpatial], y_stride[2 + kConvSpatial];
  int32_t gemm_m, gemm_n, gemm_k;  // one group's GEMM for the launch's direction
};

}  // namespace hal_gpu

#if !defined(__OPENCL_CPP_VERSION__)
#include "torch_hal/adapter.h"

namespace hal_gpu {

// The operands of a convolution launch in the convolution's terms: x the input, w the filter, y the output (for
// the backward ops one of them is the op's output), and the problem. False, with `why` set, for what the
// kernel does not take: not 1 to 3 spatial dims, mixed dtypes, shapes that disagree with the ABI's formula,
// an offset past 2^31 (the kernel's index math is 32-bit), an empty filter.
struct ConvLaunch {
  ConvDirection direction = ConvDirection::Forward;
  const hal_tensor_t* x = nullptr;
  const hal_tensor_t* w = nullptr;
  const hal_tensor_t* y = nullptr;
  ConvGeometry geometry{};
  bool empty = false;  // nothing to compute (a zero-sized batch or channel); the output may still need zeros
};
bool read_convolution(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                      int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, ConvLaunch* launch,
                      const char** why);

// The launch's grid in blocks: GEMM tiles along M (x) and N (y), groups (z).
void convolution_grid(const ConvGeometry& g, uint32_t* blocks);

}  // namespace hal_gpu
#endif
