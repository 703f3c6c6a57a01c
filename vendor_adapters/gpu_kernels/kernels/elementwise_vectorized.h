// The vectorized fast path of the elementwise family (elementwise_vectorized.cu): every tensor operand
// contiguous, one dtype (float32, float16 or bfloat16), 16-byte loads and stores. elementwise.cu decides
// when a launch qualifies and falls through to its generic strided kernels otherwise.
#pragma once

#include <cstdint>

#include "kernels/elementwise_ops.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu::ew {

struct VectorizedCall {
  int32_t op = 0;
  DType dtype = DType::Unsupported;  // of the output and every tensor input (WHERE's condition is bool)
  int64_t numel = 0;
  void* out = nullptr;
  const void* in[3] = {};  // nullptr: a scalar operand, whose value is value[k]
  float value[3] = {};
  Params<float> params;
  int32_t device = 0;
  cudaStream_t stream = nullptr;
};

// NOT_SUPPORTED, having launched nothing, when the op, dtype or pointer alignment has no vectorized kernel.
hal_status_t launch_vectorized(const VectorizedCall& call);

// A dtype conversion of a contiguous tensor into a contiguous output between float32, float16 and bfloat16 (the
// casts of autocast and of .to(dtype)): 8 elements per thread and step, 16-byte accesses. NOT_SUPPORTED, having
// launched nothing, for other dtypes or unaligned pointers.
hal_status_t launch_vectorized_cast(void* out, DType out_dtype, const void* in, DType in_dtype, int64_t numel,
                                    int32_t device, cudaStream_t stream);

}  // namespace hal_gpu::ew
