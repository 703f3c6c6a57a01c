#include "gemm_pointers.h"

#include <algorithm>

#include "kernels/kernel_launch.h"

namespace hal_gpu {
namespace {

// Matrix i of operand k starts at base[k] + (group_stride[k] * (i / group_size) + batch_stride[k] *
// (i % group_size)) * elem_size. One argument struct (see Operand in tensor_access.cuh).
struct PointerArgs {
  const char* base[3];
  int64_t group_stride[3], batch_stride[3];
  int64_t group_size, batch, elem_size;
  void** pointers;
};

__global__ void gemm_pointers_kernel(PointerArgs a) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.batch; i += stride) {
    const int64_t group = i / a.group_size, member = i - group * a.group_size;
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      a.pointers[k * a.batch + i] = const_cast<char*>(
          a.base[k] + (group * a.group_stride[k] + member * a.batch_stride[k]) * a.elem_size);
    }
  }
}

int64_t element_bytes(GemmType type) { return type == GemmType::F64 ? 8 : type == GemmType::F32 ? 4 : 2; }

}  // namespace

hal_status_t write_gemm_pointers(const GemmPlan& plan, void** pointers, int32_t device, cudaStream_t stream) {
  PointerArgs args{{static_cast<const char*>(plan.first.data), static_cast<const char*>(plan.second.data),
                    static_cast<const char*>(plan.out)},
                   {plan.first.group_stride, plan.second.group_stride, plan.group_stride_out},
                   {plan.first.batch_stride, plan.second.batch_stride, plan.batch_stride_out},
                   plan.group_size,
                   plan.batch,
                   element_bytes(plan.type),
                   pointers};
  constexpr int kThreads = 256;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>((plan.batch + kThreads - 1) / kThreads, 1024));
  return launch_kernel<gemm_pointers_kernel>("gemm_pointers", device, grid, kThreads, 0, stream, args);
}

}  // namespace hal_gpu
