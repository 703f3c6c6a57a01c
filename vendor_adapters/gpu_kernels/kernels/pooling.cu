// 2-D pooling over x [N, C, H, W], contiguous or channels-last (every tensor of a launch in the same one):
// MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D, ADAPTIVE_MAX_POOL2D and their backward ops, on CUDA and HIP: the
// entry points around the family's kernel bodies (pooling.cuh, which the SPIR-V side compiles too; it says how each
// op computes an element), a grid-stride loop of a thread per element, and their launch over the problem that
// read_pooling() (pooling_geometry.cpp) reads, as the SPIR-V planner reads it.
#include <cstdint>
#include <type_traits>

#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/op_call.h"
#include "kernels/pooling_geometry.h"
// After family_support.cuh, whose to_acc/from_acc the kernel bodies use.
#include "kernels/pooling.cuh"

namespace hal_gpu {
namespace {

using namespace pooling;  // Window, Kind, Launch, the kernel bodies (pooling.cuh); spatial's Geometry

constexpr int kThreads = 256;

// ---- Forward kernels: a thread per output element ----------------------------------------------------------
template <class T, class Acc>
__global__ void max_pool_forward(const T* x, T* y, int64_t* indices, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    max_pool_forward_at<T, Acc>(i, x, y, indices, g, k);
  }
}

template <class T, class Acc>
__global__ void avg_pool_forward(const T* x, T* y, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    avg_pool_forward_at<T, Acc>(i, x, y, g, k);
  }
}

template <class T, class Acc, bool kMax>
__global__ void adaptive_pool_forward(const T* x, T* y, int64_t* indices, Geometry g, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    adaptive_pool_forward_at<T, Acc, kMax>(i, x, y, indices, g);
  }
}

// ---- Backward kernels: a thread per input element ---------------------------------------------------------
template <class T, class Acc>
__global__ void max_pool_backward(const T* dy, const int64_t* indices, T* dx, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    max_pool_backward_at<T, Acc>(i, dy, indices, dx, g, k);
  }
}

template <class T, class Acc>
__global__ void avg_pool_backward(const T* dy, T* dx, Geometry g, Window k, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    avg_pool_backward_at<T, Acc>(i, dy, dx, g, k);
  }
}

template <class T, class Acc, bool kMax>
__global__ void adaptive_pool_backward(const T* dy, const int64_t* indices, T* dx, Geometry g, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    adaptive_pool_backward_at<T, Acc, kMax>(i, dy, indices, dx, g);
  }
}

// ---- Host side ---------------------------------------------------------------------------------------------
template <class T>
hal_status_t run(const OpCall& call, const Launch& l) {
  using Acc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const Geometry& g = l.geometry;
  const Window& k = l.window;
  const int64_t total = l.total;
  const unsigned grid = grid_for(total, kThreads);
  const T* in0 = reinterpret_cast<const T*>(element0(call.inputs[0]));
  T* out0 = reinterpret_cast<T*>(element0(call.outputs[0]));
  const cudaStream_t stream = call.stream;
  if (!l.backward) {
    int64_t* indices = l.has_indices ? reinterpret_cast<int64_t*>(element0(call.outputs[1])) : nullptr;
    switch (l.kind) {
      case Kind::Max:
        return launch_kernel<max_pool_forward<T, Acc>>("max_pool2d", call.device, grid, kThreads, 0, stream, in0, out0,
                                                       indices, g, k, total);
      case Kind::Avg:
        return launch_kernel<avg_pool_forward<T, Acc>>("avg_pool2d", call.device, grid, kThreads, 0, stream, in0, out0,
                                                       g, k, total);
      case Kind::AdaptiveAvg:
        return launch_kernel<adaptive_pool_forward<T, Acc, false>>("adaptive_avg_pool2d", call.device, grid, kThreads,
                                                                   0, stream, in0, out0, indices, g, total);
      case Kind::AdaptiveMax:
        return launch_kernel<adaptive_pool_forward<T, Acc, true>>("adaptive_max_pool2d", call.device, grid, kThreads, 0,
                                                                  stream, in0, out0, indices, g, total);
    }
  } else {
    const int64_t* indices = l.has_indices ? reinterpret_cast<const int64_t*>(element0(call.inputs[1])) : nullptr;
    switch (l.kind) {
      case Kind::Max:
        return launch_kernel<max_pool_backward<T, Acc>>("max_pool2d_backward", call.device, grid, kThreads, 0, stream,
                                                        in0, indices, out0, g, k, total);
      case Kind::Avg:
        return launch_kernel<avg_pool_backward<T, Acc>>("avg_pool2d_backward", call.device, grid, kThreads, 0, stream,
                                                        in0, out0, g, k, total);
      case Kind::AdaptiveAvg:
        return launch_kernel<adaptive_pool_backward<T, Acc, false>>("adaptive_avg_pool2d_backward", call.device, grid,
                                                                    kThreads, 0, stream, in0, indices, out0, g, total);
      case Kind::AdaptiveMax:
        return launch_kernel<adaptive_pool_backward<T, Acc, true>>("adaptive_max_pool2d_backward", call.device, grid,
                                                                   kThreads, 0, stream, in0, indices, out0, g, total);
    }
  }
  return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unknown op");
}

}  // namespace

hal_status_t launch_pooling(const OpCall& call) {
  Launch l;
  const char* why = nullptr;
  if (!read_pooling(call.op, call.inputs, call.num_inputs, call.outputs, call.num_outputs, call.scalars,
                    call.num_scalars, &l, &why)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, why);
  }
  if (l.total == 0) return HAL_STATUS_SUCCESS;  // nothing to read
  switch (dtype_of(call.inputs[0].dtype)) {
    case DType::F32: return run<float>(call, l);
    case DType::F16: return run<__half>(call, l);
    case DType::BF16: return run<__nv_bfloat16>(call, l);
    case DType::F64: return run<double>(call, l);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "pooling: unsupported dtype");
  }
}

}  // namespace hal_gpu
