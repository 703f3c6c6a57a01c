// BATCH_NORM and BATCH_NORM_BACKWARD in float32 for the runtimes that take SPIR-V, over x [N, C, S] channels-first
// or channels-last: kernels composed of the kernel library's batch norm math (gpu_kernels/kernels/batch_norm.cuh,
// the same source the CUDA and HIP kernels compile). A work-group per channel does the whole channel: its
// work-items' shares of the channel's sums (Welford triples forward, the two gradient sums backward), combined
// with OpenCL's work-group collectives (CUDA and HIP use warp shuffles and a second stage over chunks, which needs
// scratch memory that a SPIR-V plan does not have), then the per-channel step, then the elementwise pass over the
// channel. plan_batch_norm.cpp launches them.
#include "kernels/accumulate.cuh"  // the storage <-> accumulation conversions the shared bodies expect
#include "kernels/batch_norm.cuh"
#include "kernel_layouts.h"

using hal_gpu::Welford;
using hal_spirv::BatchNormShape;

namespace {

// A channel's parameter as batch_norm.cuh's per-channel step reads and writes it. Every work-item of the group
// runs that step; only the group's first writes (`writes`).
struct ChannelParam {
  global float* at;
  bool is_present, writes;
  bool present() const { return is_present; }
  float load(float absent_value) const { return is_present ? *at : absent_value; }
  void store(float value) const {
    if (is_present && writes) *at = value;
  }
};

ChannelParam param(global float* base, const BatchNormShape& s, int k, int64_t c, bool writes) {
  return ChannelParam{base + c * s.param_stride[k], (s.flags & (hal_spirv::kBatchNormParam0 << k)) != 0, writes};
}

// Row j of channel c (j = n * S + s) in x's layout.
int64_t element_of(int64_t j, int64_t c, const BatchNormShape& s, bool channels_last) {
  if (channels_last) return j * s.c + c;
  const int64_t n = j / s.s;
  return (n * s.c + c) * s.s + (j - n * s.s);
}

// The Welford totals of the group's work-items, each holding its share: Chan's formula over all of them at once
// (mean = sum(count_i * mean_i) / count, m2 = sum(m2_i + count_i * (mean_i - mean)^2)), two work-group sums.
Welford<float> group_welford(const Welford<float>& w, float count) {
  const float mean = work_group_reduce_add(w.count * w.mean) / count;
  const float d = w.mean - mean;
  const float m2 = work_group_reduce_add(w.m2 + w.count * d * d);
  return Welford<float>{mean, m2, count};
}

}  // namespace

// Forward, a work-group per channel: y, save_mean and save_invstd; in training the running statistics updated.
kernel void batch_norm_f32(global const float* x, global float* y, global float* weight, global float* bias,
                           global float* running_mean, global float* running_var, global float* save_mean,
                           global float* save_invstd, BatchNormShape s) {
  const int64_t c = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);
  const int64_t rows = s.n * s.s;
  const bool training = (s.flags & hal_spirv::kBatchNormTraining) != 0;
  const bool channels_last = (s.flags & hal_spirv::kBatchNormChannelsLast) != 0;
  const float count = static_cast<float>(rows);
  Welford<float> w{0.0f, 0.0f, 0.0f};
  if (training) {  // uniform across the group, as the collectives need
    if (channels_last) hal_gpu::welford_channels_last<float, float>(w, x, c, s.c, lane, rows, lanes);
    else hal_gpu::welford_channels_first<float, float>(w, x, c, s.c, s.s, lane, rows, lanes);
    w = group_welford(w, count);
  }
  // The running statistics: read by every work-item in evaluation; in training updated by the group's first, and
  // left alone by the others.
  ChannelParam rm = param(running_mean, s, 2, c, lane == 0), rv = param(running_var, s, 3, c, lane == 0);
  rm.is_present = rm.is_present && (!training || lane == 0);
  rv.is_present = rv.is_present && (!training || lane == 0);
  float mean, invstd;
  hal_gpu::bn_statistics<float>(training, w, count, s.momentum, s.eps, rm, rv, mean, invstd);
  if (lane == 0) {
    save_mean[c] = mean;
    save_invstd[c] = invstd;
  }
  const float scale = invstd * param(weight, s, 0, c, false).load(1.0f);
  const float shift = param(bias, s, 1, c, false).load(0.0f);
  for (int64_t j = lane; j < rows; j += lanes) {
    const int64_t at = element_of(j, c, s, channels_last);
    y[at] = hal_gpu::bn_output<float>(x[at], mean, scale, shift);
  }
}

// Backward, a work-group per channel: dweight and dbias where wanted, dx where wanted (flags).
kernel void batch_norm_backward_f32(global const float* dy, global const float* x, global float* weight,
                                    global const float* mean, global const float* invstd, global float* dx,
                                    global float* dweight, global float* dbias, BatchNormShape s) {
  const int64_t c = get_group_id(0), lane = get_local_id(0), lanes = get_local_size(0);
  const int64_t rows = s.n * s.s;
  const bool training = (s.flags & hal_spirv::kBatchNormTraining) != 0;
  const bool channels_last = (s.flags & hal_spirv::kBatchNormChannelsLast) != 0;
  const bool want_dx = (s.flags & hal_spirv::kBatchNormDx) != 0;
  const ChannelParam dw = param(dweight, s, 1, c, lane == 0), db = param(dbias, s, 2, c, lane == 0);
  const float mu = mean[c], is = invstd[c];
  float s_dy = 0.0f, s_dyx = 0.0f;
  if ((want_dx && training) || dw.present() || db.present()) {  // uniform across the group
    if (channels_last) hal_gpu::grad_sums_channels_last<float, float>(s_dy, s_dyx, dy, x, mu, c, s.c, lane, rows, lanes);
    else hal_gpu::grad_sums_channels_first<float, float>(s_dy, s_dyx, dy, x, mu, c, s.c, s.s, lane, rows, lanes);
    s_dy = work_group_reduce_add(s_dy);
    s_dyx = work_group_reduce_add(s_dyx);
  }
  dw.store(s_dyx * is);
  db.store(s_dy);
  if (!want_dx) return;
  float k[4];
  hal_gpu::bn_grad_coefficients<float>(s_dy, s_dyx, mu, is, param(weight, s, 0, c, false), static_cast<float>(rows),
                                       training, k);
  for (int64_t j = lane; j < rows; j += lanes) {
    const int64_t at = element_of(j, c, s, channels_last);
    dx[at] = hal_gpu::bn_input_grad<float>(dy[at], x[at], k);
  }
}
