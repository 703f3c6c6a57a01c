// ATTENTION_SOFTMAX (adapter.h): the softmax step of attention computed through GEMMs, which the torch side
// composes as scores = scale * q k^T (GEMM), probs = this op, out = probs v (GEMM). One pass per row adds
// the bias, applies the causal mask, and writes the probabilities (in place over the scores where the
// caller passes one buffer for both) and the row's log-sum-exp, so that attention's semantics live here:
// a row whose every key is masked has probabilities 0 and log-sum-exp +inf, as HAL_OP_ATTENTION's.
//
// A warp per row up to 1024 keys, its scores (bias added) held in registers: the row and its bias are read
// once, with every load of a lane issued before the first reduction, and written once. Templated on the
// storage types of the scores and of the bias: a bias loaded through the runtime dtype switch, three passes
// over the row, made BERT's masked softmax take 35 us where the unmasked one took 16 (the H100, [8, 8, 256,
// 256] f32). A block per row beyond 1024 keys (softmax.cu's split), reading the row three times (maximum,
// sum, write). Sums in f32 for every storage type.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/op_call.h"

namespace hal_gpu {
namespace {

// The scores as [rows = B * H * L, S], and where each row's bias lives.
struct Rows {
  int64_t H = 1, L = 1, S = 1;
  bool causal = false;
  const char* bias = nullptr;  // [B, H, L, S] scores to add (broadcast strides), or null
  DType bias_dtype = DType::F32;
  int32_t bias_size = 4;
  int64_t bias_strides[4] = {};
};

__device__ __forceinline__ float biased_score(float score, const Rows& r, int64_t bias_row, int64_t j) {
  return r.bias ? score + load_as<float>(r.bias + (bias_row + j * r.bias_strides[3]) * r.bias_size, r.bias_dtype)
                : score;
}

// One row, by `lanes` cooperating threads (this one is `lane`), reduced with `sum` / `max` over them.
template <class T, class SumFn, class MaxFn>
__device__ __forceinline__ void softmax_row(const T* scores, T* probs, float* lse, const Rows& r, int64_t row,
                                            int64_t lane, int64_t lanes, SumFn sum, MaxFn max) {
  const int64_t i = row % r.L, bh = row / r.L;
  const int64_t b = bh / r.H, h = bh % r.H;
  const int64_t bias_row = b * r.bias_strides[0] + h * r.bias_strides[1] + i * r.bias_strides[2];
  const int64_t keys = r.causal ? (i + 1 < r.S ? i + 1 : r.S) : r.S;  // keys past this are masked
  const T* in = scores + row * r.S;
  T* out = probs + row * r.S;
  float m = -INFINITY;
  for (int64_t j = lane; j < keys; j += lanes) m = fmaxf(m, biased_score(to_acc<float>(in[j]), r, bias_row, j));
  m = max(m);
  if (m == -INFINITY) {  // every key masked
    for (int64_t j = lane; j < r.S; j += lanes) out[j] = from_acc<T>(0.f);
    if (lane == 0) lse[row] = INFINITY;
    return;
  }
  float s = 0.f;
  for (int64_t j = lane; j < keys; j += lanes) s += __expf(biased_score(to_acc<float>(in[j]), r, bias_row, j) - m);
  s = sum(s);
  const float inverse = 1.f / s;
  for (int64_t j = lane; j < r.S; j += lanes) {
    out[j] = from_acc<T>(j < keys ? __expf(biased_score(to_acc<float>(in[j]), r, bias_row, j) - m) * inverse : 0.f);
  }
  if (lane == 0) lse[row] = m + logf(s);
}

// No bias: the Bias template argument of attention_softmax_warp when the caller passes none.
struct NoBias {};

// A row of at most 32 * kPerLane keys per warp; lane l holds keys l, l + 32, ... (coalesced loads).
template <class T, class Bias, int kPerLane>
__global__ void attention_softmax_warp(const T* scores, T* probs, float* lse, int64_t rows, Rows r) {
  constexpr bool kBiased = !std::is_same_v<Bias, NoBias>;
  const int64_t warps = blockDim.x >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int S = static_cast<int>(r.S);
  for (int64_t row = blockIdx.x * warps + (threadIdx.x >> 5); row < rows; row += static_cast<int64_t>(gridDim.x) * warps) {
    const int64_t i = row % r.L, bh = row / r.L;
    const int keys = r.causal ? static_cast<int>(i + 1 < r.S ? i + 1 : r.S) : S;  // keys past this are masked
    const T* in = scores + row * r.S;
    T* out = probs + row * r.S;
    const Bias* bias_row = nullptr;
    if constexpr (kBiased) {
      const int64_t b = bh / r.H, h = bh % r.H;
      bias_row = reinterpret_cast<const Bias*>(r.bias) + b * r.bias_strides[0] + h * r.bias_strides[1] +
                 i * r.bias_strides[2];
    }
    float v[kPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      const int j = lane + 32 * t;
      v[t] = -INFINITY;
      if (j < keys) {
        v[t] = to_acc<float>(in[j]);
        if constexpr (kBiased) v[t] += to_acc<float>(bias_row[j * r.bias_strides[3]]);
      }
      m = fmaxf(m, v[t]);
    }
    m = warp_max(m);
    if (m == -INFINITY) {  // every key masked
#pragma unroll
      for (int t = 0; t < kPerLane; ++t) {
        if (lane + 32 * t < S) out[lane + 32 * t] = from_acc<T>(0.f);
      }
      if (lane == 0) lse[row] = INFINITY;
      continue;
    }
    float s = 0.f;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      v[t] = lane + 32 * t < keys ? __expf(v[t] - m) : 0.f;
      s += v[t];
    }
    s = warp_sum(s);
    const float inverse = 1.f / s;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      if (lane + 32 * t < S) out[lane + 32 * t] = from_acc<T>(v[t] * inverse);
    }
    if (lane == 0) lse[row] = m + logf(s);
  }
}

template <class T>
__global__ void attention_softmax_block(const T* scores, T* probs, float* lse, int64_t rows, Rows r) {
  __shared__ float shared[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    softmax_row(scores, probs, lse, r, row, threadIdx.x, blockDim.x,
                [&](float v) { return block_reduce<float, false>(v, shared); },
                [&](float v) { return block_reduce<float, true>(v, shared); });
  }
}

template <class T, class Bias, int kPerLane>
hal_status_t run_warp(const OpCall& call, const T* scores, T* probs, float* lse, const Rows& r, int64_t rows) {
  constexpr int kThreads = 128;  // 4 rows per block
  return launch_kernel<attention_softmax_warp<T, Bias, kPerLane>>(
      "attention_softmax_warp", call.device, grid_for(rows, kThreads / 32), kThreads, 0, call.stream, scores, probs,
      lse, rows, r);
}

// The warp kernel for rows of at most 1024 keys, registers per lane for the next power of two up from 128.
template <class T, class Bias>
hal_status_t run_warp(const OpCall& call, const T* scores, T* probs, float* lse, const Rows& r, int64_t rows) {
  if (r.S <= 128) return run_warp<T, Bias, 4>(call, scores, probs, lse, r, rows);
  if (r.S <= 256) return run_warp<T, Bias, 8>(call, scores, probs, lse, r, rows);
  if (r.S <= 512) return run_warp<T, Bias, 16>(call, scores, probs, lse, r, rows);
  return run_warp<T, Bias, 32>(call, scores, probs, lse, r, rows);
}

template <class T>
hal_status_t run(const OpCall& call, const Rows& r, int64_t rows) {
  const T* scores = reinterpret_cast<const T*>(element0(call.inputs[0]));
  T* probs = reinterpret_cast<T*>(element0(call.outputs[0]));
  float* lse = reinterpret_cast<float*>(element0(call.outputs[1]));
  if (r.S <= 1024) {
    if (r.bias == nullptr) return run_warp<T, NoBias>(call, scores, probs, lse, r, rows);
    switch (r.bias_dtype) {
      case DType::F32: return run_warp<T, float>(call, scores, probs, lse, r, rows);
      case DType::F16: return run_warp<T, __half>(call, scores, probs, lse, r, rows);
      case DType::BF16: return run_warp<T, __nv_bfloat16>(call, scores, probs, lse, r, rows);
      default: break;  // f64: the block kernel's runtime loads
    }
  }
  const int threads = r.S >= 8192 ? 1024 : 512;
  return launch_kernel<attention_softmax_block<T>>("attention_softmax_block", call.device, grid_for(rows, 1), threads, 0,
                                                   call.stream, scores, probs, lse, rows, r);
}

bool is_dense(const hal_tensor_t& t, const int64_t* shape, int ndim) {
  if (t.data == nullptr || t.ndim != ndim) return false;
  for (int d = 0; d < ndim; ++d) {
    if (t.shape[d] != shape[d]) return false;
  }
  return is_contiguous(t);
}

}  // namespace

hal_status_t launch_attention_softmax(const OpCall& call) {
  if (call.num_inputs != 2 || call.num_outputs != 2 || !has_scalars(call, 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: unexpected operands");
  }
  const hal_tensor_t &scores = call.inputs[0], &bias = call.inputs[1], &probs = call.outputs[0], &lse = call.outputs[1];
  if (scores.ndim != 4) return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: scores must be [B, H, L, S]");
  const int64_t shape[4] = {scores.shape[0], scores.shape[1], scores.shape[2], scores.shape[3]};
  const DType dtype = dtype_of(scores.dtype);
  if (!is_dense(scores, shape, 4) || !is_dense(probs, shape, 4) || dtype_of(probs.dtype) != dtype ||
      !is_dense(lse, shape, 3) || dtype_of(lse.dtype) != DType::F32) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: scores, probs and lse must be dense and of one shape");
  }
  Rows r;
  r.H = shape[1];
  r.L = shape[2];
  r.S = shape[3];
  r.causal = scalar_as_int(op_scalar(call, 0)) != 0;
  if (!is_absent(bias)) {
    const DType bias_dtype = dtype_of(bias.dtype);
    if (bias.ndim != 4 || bias.data == nullptr || !is_floating(bias_dtype)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: the bias must be floating and [B, H, L, S]");
    }
    for (int d = 0; d < 4; ++d) {
      if (bias.shape[d] != shape[d]) return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: bias shape differs");
      r.bias_strides[d] = bias.strides[d];
    }
    r.bias = element0(bias);
    r.bias_dtype = bias_dtype;
    r.bias_size = dtype_size(bias_dtype);
  }
  const int64_t rows = shape[0] * shape[1] * shape[2];
  if (rows == 0) return HAL_STATUS_SUCCESS;
  if (r.S == 0) return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: no keys");
  switch (dtype) {
    case DType::F32: return run<float>(call, r, rows);
    case DType::F16: return run<__half>(call, r, rows);
    case DType::BF16: return run<__nv_bfloat16>(call, r, rows);
    default: return fail(HAL_STATUS_NOT_SUPPORTED, "attention softmax: scores must be f32, f16 or bf16");
  }
}

}  // namespace hal_gpu
