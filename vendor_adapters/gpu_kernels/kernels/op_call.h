// One native op launch as the GPU kernel library's families receive it, and the families' entry points.
// launch_op (op_dispatch.cpp) routes an op id to the family that owns it; each family returns
// HAL_STATUS_NOT_SUPPORTED, having done nothing, for ops, dtypes or layouts it does not handle, so the core
// falls back. Plain C++ (no vendor headers) so that host-compiled files can include it.
#pragma once

#include <cstdint>
#include <string>

#include "torch_hal/adapter.h"

// The vendor's stream handle, under CUDA's name in both builds (see gpu_runtime.h).
#if defined(HAL_GPU_HIP)
typedef struct ihipStream_t* cudaStream_t;
#else
typedef struct CUstream_st* cudaStream_t;
#endif

namespace hal_gpu {

// Per-device caches of the kernel families (SM counts, kernel handles) have this many slots; devices past
// it still work, uncached.
constexpr int kMaxCachedDevices = 64;

struct OpCall {
  hal_op_t op;
  int32_t device;
  cudaStream_t stream;  // the stream to launch on (never the legacy default: the adapter resolves NULL)
  const hal_tensor_t* inputs;
  int32_t num_inputs;
  hal_tensor_t* outputs;
  int32_t num_outputs;
  const hal_scalar_t* scalars;
  int32_t num_scalars;
};

// Elementwise unary/binary/ternary ops, activation backward ops, FILL, COPY, ARANGE (elementwise.cu).
hal_status_t launch_elementwise(const OpCall& call);
// SUM..STD (reduce.cu).
hal_status_t launch_reduction(const OpCall& call);
// SOFTMAX.., LAYER_NORM.., NLL_LOSS.., EMBEDDING_BACKWARD (softmax.cu, layer_norm.cu, loss.cu, embedding.cu).
hal_status_t launch_softmax(const OpCall& call);
hal_status_t launch_layer_norm(const OpCall& call);
hal_status_t launch_loss(const OpCall& call);
hal_status_t launch_embedding(const OpCall& call);
// INDEX_SELECT, GATHER, SCATTER, INDEX_PUT (indexing.cu).
hal_status_t launch_indexing(const OpCall& call);
// UNIFORM, NORMAL, BERNOULLI, RANDPERM (random.cu).
hal_status_t launch_random(const OpCall& call);
// MATMUL, GEMM through cuBLAS (gemm.cpp).
hal_status_t launch_gemm(const OpCall& call);
// FOREACH: one elementwise op over many groups of tensors in one launch (multi_tensor.cu).
hal_status_t launch_multi_tensor(const OpCall& call);
// Batch/group/RMS norm, pooling, upsampling: ops 900..999 (norm_pool.cpp routes them to batch_norm.cu,
// group_norm.cu, pooling.cu, upsample.cu).
hal_status_t launch_norm_pool(const OpCall& call);
// Ops of a training step outside the families above: 1210..1299 (training_ops.cpp routes them to
// triangular.cu, scan.cu, multi_tensor_norm.cu, amp_scale.cu, sort.cu; ALL, ANY and VECTOR_NORM are reductions).
hal_status_t launch_training_ops(const OpCall& call);

// Records the per-thread message that the adapter's get_last_error() returns; returns `status`.
hal_status_t fail(hal_status_t status, const char* message);
inline hal_status_t fail(hal_status_t status, const std::string& message) { return fail(status, message.c_str()); }

}  // namespace hal_gpu
