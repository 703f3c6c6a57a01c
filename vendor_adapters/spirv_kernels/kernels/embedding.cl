// EMBEDDING_BACKWARD into float32 for the runtimes that take SPIR-V: the entry point around the kernel library's
// accumulation (gpu_kernels/kernels/embedding_accumulate.cuh, the same source the CUDA and HIP kernels compile).
// plan_embedding.cpp zeroes grad_weight [V, D] (dense) first (the elementwise module's fill), then launches this
// over the N * D elements of grad [N, D] (float32, any strides); indices are int64 or int32 (index_is_64), any
// stride. The atomic adds make the order of each row's sum vary from run to run, as on CUDA.
#include "kernels/embedding_accumulate.cuh"
#include "index_operand.h"

kernel void embedding_backward_f32(global const float* grad, long grad_row_stride, long grad_col_stride,
                                   global const char* indices, long index_stride, int index_is_64,
                                   global float* grad_weight, long N, long D, long V, long padding_idx) {
  hal_gpu::embedding_accumulate_body<float>(
      IndexAt{indices, index_stride, index_is_64},
      [=](int64_t n, int64_t d) { return grad[n * grad_row_stride + d * grad_col_stride]; }, grad_weight, N, D, V,
      padding_idx);
}
