// LAYER_NORM and LAYER_NORM_BACKWARD over contiguous float32 rows, for the runtimes that take SPIR-V: the entry
// points around the kernel library's layer norm bodies (gpu_kernels/kernels/layer_norm_rows.cuh, the same source
// the CUDA and HIP kernels compile), the column sums' tiles in local memory. plan_layer_norm.cpp launches a
// work-group per row (forward, dx) and a (kColumnTile, kRowLanes) work-group per column tile that sums every row
// into dweight and dbias (one chunk: no second pass, no scratch memory). The row sums are work-group collectives
// (accumulate.cuh), which take no shared memory: the bodies' `shared` is null here.
#include "kernels/layer_norm_rows.cuh"

// A [N] parameter (weight, bias), or `absent` where the plan says it is absent (its pointer then a stand-in).
struct Param {
  const global float* values;
  int present;
  float absent;
  float operator()(int64_t j) const { return present ? values[j] : absent; }
};

kernel void layer_norm_forward_f32(global const float* x, global const float* weight, global const float* bias,
                                   global float* y, global float* mean, global float* rstd, long M, long N, float eps,
                                   int has_weight, int has_bias) {
  hal_gpu::layer_norm_forward_rows<float, float>(x, Param{weight, has_weight, 1.0f}, Param{bias, has_bias, 0.0f}, y,
                                                 mean, rstd, M, N, eps, nullptr);
}

kernel void layer_norm_backward_dx_f32(global const float* dy, global const float* x, global const float* mean,
                                       global const float* rstd, global const float* weight, global float* dx, long M,
                                       long N, int has_weight) {
  hal_gpu::layer_norm_backward_dx_rows<float, float>(
      dy, x, mean, rstd, Param{weight, has_weight, 1.0f}, [=](int64_t row, int64_t j, float v) { dx[row * N + j] = v; },
      M, N, nullptr);
}

// dweight and dbias ([N], dense), either absent where its flag is 0 (its pointer then a stand-in).
kernel void layer_norm_backward_columns_f32(global const float* dy, global const float* x, global const float* mean,
                                            global const float* rstd, global float* dweight, global float* dbias,
                                            long M, long N, int has_dweight, int has_dbias) {
  local float tile_w[hal_gpu::kRowLanes][hal_gpu::kColumnTile + 1];
  local float tile_b[hal_gpu::kRowLanes][hal_gpu::kColumnTile + 1];
  hal_gpu::layer_norm_backward_column_sums<float, float>(dy, x, mean, rstd, has_dweight ? dweight : nullptr,
                                                         has_dbias ? dbias : nullptr, M, N, M, tile_w, tile_b);
}
