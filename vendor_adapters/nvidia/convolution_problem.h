// A convolution launch (HAL_OP_CONVOLUTION and its two backward ops) read into the numbers cuDNN takes, by
// both of the adapter's cuDNN routes: execution plans of the graph API (convolution_plan.h) and the legacy
// API (convolution_legacy.h).
#pragma once

#include <cstdint>
#include <vector>

#include "cudnn_library.h"
#include "kernels/op_call.h"

namespace hal_nvidia {

constexpr int kMaxConvDims = 5;  // [N, C, D, H, W]

// The problem as cuDNN takes it: 4 or 5 dims (a 1-D convolution gains a spatial dim of size 1 in front, as
// torch.cuda does), int32 sizes and strides.
struct ConvProblem {
  int ndim = 0;
  int dtype = 0;       // cudnnDataType_t
  bool tf32 = false;   // f32 may use tensor cores
  int groups = 1;
  int w_format = kCudnnNchw;
  int x[kMaxConvDims], x_strides[kMaxConvDims];   // the convolution's input  [N, C, S...]
  int y[kMaxConvDims], y_strides[kMaxConvDims];   // the convolution's output [N, O, Q...]
  int w[kMaxConvDims], w_strides[kMaxConvDims];   // the filter [O, C/groups, K...]
  int stride[kMaxConvDims - 2], pad[kMaxConvDims - 2], dilation[kMaxConvDims - 2];
  // The largest power of two (up to 16) that each tensor's address is a multiple of: a cuDNN plan is made
  // for an alignment (x, w, y).
  int alignment[3] = {16, 16, 16};
  bool f64() const { return dtype == kCudnnDouble; }
};

// The tensors of a launch in the convolution's terms: x the input, w the filter, y the output (for the
// backward ops, one of them is the op's output).
struct ConvTensors {
  const hal_tensor_t* x = nullptr;
  const hal_tensor_t* w = nullptr;
  const hal_tensor_t* y = nullptr;
};

// Reads the launch; false (NOT_SUPPORTED) for what the ABI or cuDNN's int32 API excludes.
bool parse_convolution(const hal_gpu::OpCall& call, ConvProblem* p, ConvTensors* t);

// The cache key of a problem: the op and every number of the problem.
std::vector<int64_t> convolution_key(hal_op_t op, const ConvProblem& p);

// cuDNN's answer as a hal status: a configuration it declines (or calls invalid) is NOT_SUPPORTED, for the
// core's fallback; anything else is a device error naming the call.
hal_status_t cudnn_status(const CudnnApi& api, const char* what, int status);

// A tensor's first element.
inline void* tensor_address(const hal_tensor_t& t) { return static_cast<char*>(t.data) + t.byte_offset; }

}  // namespace hal_nvidia
