// The fused optimizers (FUSED_ADAM, FUSED_SGD; adapter_ops.def): what `torch.optim.Adam/AdamW/SGD(fused=True)`
// ask for, one launch over every parameter of a step, each element read and written once (a foreach step
// runs about ten passes over the same tensors). The per-element math is optimizer_math.cuh's.
//
// Each group (a parameter and its state) takes ceil(n / kChunk) blocks, found by a binary search over the
// launch's groups as in multi_tensor.cu (multi_tensor_batches.h splits long lists). The step count, the
// device learning rate, the GradScaler's scale and found_inf are read on the device: a step needs no host
// round trip. Tensors are read and written as 16-byte packs where the group is aligned.
#include <cstdint>
#include <vector>

#include "kernels/family_support.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/multi_tensor_batches.h"
#include "kernels/multi_tensor_groups.cuh"
#include "kernels/op_call.h"
#include "kernels/optimizer_math.cuh"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunk = 4096;                  // elements per block (a multiple of every pack size)
constexpr int kMaxGroups = 32;                    // groups per launch: keeps the kernel argument under 4 KiB
constexpr int64_t kMaxBlocks = int64_t{1} << 30;  // blocks per launch, so block indices fit int32

// Adam's tensors per group (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq) and SGD's (param, grad,
// momentum_buffer): the most is 5.
constexpr int kMaxTensors = 5;

struct Group {
  void* tensor[kMaxTensors];  // nullptr: absent (max_exp_avg_sq without amsgrad, momentum_buffer without momentum)
  const void* step;           // Adam's step count (0-dim), or nullptr
  int64_t numel;
  bool aligned;               // every tensor 16-byte aligned: pack accesses
};

// What every group of a launch shares.
struct Common {
  const void* lr;        // a device learning rate (0-dim), or nullptr: the scalar one
  const float* grad_scale;
  const float* found_inf;
  DType lr_dtype, step_dtype;
  AdamHyper<double> adam;
  SgdHyper<double> sgd;
};

struct LaunchArgs {
  Group groups[kMaxGroups];
  int32_t first_block[kMaxGroups];
  int32_t num_groups;
  Common common;
};
static_assert(sizeof(LaunchArgs) <= 4096, "the fused optimizer's kernel argument must stay under 4 KiB");

// The two rules over the element values of a group: how many tensors they take, which they write, and the
// step itself. `values[k]` is tensor k's element in the compute type.
struct AdamRule {
  static constexpr int kTensors = 5;
  template <class T>
  struct State {
    double lr;
    float scale;
    AdamCorrections<T> corrections;
  };
  template <class T>
  __device__ static State<T> prepare(const Common& c, const Group& g, double lr, float scale) {
    return {lr, scale, adam_corrections<T, double>(c.adam, load_as<double>(g.step, c.step_dtype))};
  }
  // Written: param, exp_avg, exp_avg_sq always; grad when it was unscaled; max_exp_avg_sq with amsgrad.
  __device__ static bool writes(const Common& c, int k) {
    return k != 1 ? (k != 4 || c.adam.amsgrad) : c.grad_scale != nullptr;
  }
  // max_exp_avg_sq exactly with amsgrad.
  static bool accepts(const Common& c, const Group& g) { return c.adam.amsgrad == (g.tensor[4] != nullptr); }
  template <class T>
  __device__ static void apply(T (&v)[kMaxTensors], const Common& c, const State<T>& s) {
    AdamElement<T> e{v[0], v[1], v[2], v[3], v[4]};
    adam_step(e, c.adam, s.lr, s.scale, s.corrections);
    v[0] = e.param;
    v[1] = e.grad;
    v[2] = e.exp_avg;
    v[3] = e.exp_avg_sq;
    v[4] = e.max_exp_avg_sq;
  }
};

struct SgdRule {
  static constexpr int kTensors = 3;
  template <class T>
  struct State {
    double lr;
    float scale;
    bool momentum;
  };
  template <class T>
  __device__ static State<T> prepare(const Common&, const Group& g, double lr, float scale) {
    return {lr, scale, g.tensor[2] != nullptr};
  }
  __device__ static bool writes(const Common& c, int k) { return k != 1 || c.grad_scale != nullptr; }
  static bool accepts(const Common&, const Group&) { return true; }
  template <class T>
  __device__ static void apply(T (&v)[kMaxTensors], const Common& c, const State<T>& s) {
    SgdElement<T> e{v[0], v[1], v[2]};
    sgd_step(e, c.sgd, s.lr, s.scale, s.momentum);
    v[0] = e.param;
    v[1] = e.grad;
    v[2] = e.momentum_buffer;
  }
};

// Elements [begin, end) of group g. An absent tensor reads 0 and is never written. In place is safe: each
// element is read and written by the same thread.
template <class Rule, class S, class T>
__device__ __forceinline__ void run_chunk(const Group& g, const Common& c, const typename Rule::template State<T>& st,
                                          int64_t begin, int64_t end) {
  constexpr int V = Pack<S>::kSize;
  constexpr int N = Rule::kTensors;
  constexpr int64_t kStep = static_cast<int64_t>(kThreads) * V;
  bool write[N];
#pragma unroll
  for (int k = 0; k < N; ++k) write[k] = g.tensor[k] != nullptr && Rule::writes(c, k);
  const int64_t packed_end = g.aligned ? begin + (end - begin) / V * V : begin;
  for (int64_t i = begin + static_cast<int64_t>(threadIdx.x) * V; i < packed_end; i += kStep) {
    Pack<S> pack[N];
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (g.tensor[k] != nullptr) pack[k] = *reinterpret_cast<const Pack<S>*>(static_cast<const S*>(g.tensor[k]) + i);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      T v[kMaxTensors] = {};
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = g.tensor[k] != nullptr ? to_acc<T>(pack[k].v[j]) : T(0);
      Rule::apply(v, c, st);
#pragma unroll
      for (int k = 0; k < N; ++k) pack[k].v[j] = from_acc<S>(v[k]);
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (write[k]) *reinterpret_cast<Pack<S>*>(static_cast<S*>(g.tensor[k]) + i) = pack[k];
    }
  }
  for (int64_t i = packed_end + threadIdx.x; i < end; i += kThreads) {
    T v[kMaxTensors] = {};
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = g.tensor[k] != nullptr ? to_acc<T>(static_cast<const S*>(g.tensor[k])[i]) : T(0);
    Rule::apply(v, c, st);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (write[k]) static_cast<S*>(g.tensor[k])[i] = from_acc<S>(v[k]);
    }
  }
}

template <class Rule, class S, class T>
__global__ void __launch_bounds__(kThreads) fused_optimizer_kernel(const __grid_constant__ LaunchArgs a) {
  const Common& c = a.common;
  // A step the GradScaler found inf or NaN in is skipped whole, as in ATen.
  if (c.found_inf != nullptr && *c.found_inf == 1.f) return;
  const int32_t block = static_cast<int32_t>(blockIdx.x);
  const int gi = group_of_block(a, block);  // this block's group
  const Group& g = a.groups[gi];
  const double lr = c.lr != nullptr ? load_as<double>(c.lr, c.lr_dtype) : (Rule::kTensors == 5 ? c.adam.lr : c.sgd.lr);
  const float scale = c.grad_scale != nullptr ? *c.grad_scale : 1.f;
  const auto st = Rule::template prepare<T>(c, g, lr, scale);
  const int64_t begin = static_cast<int64_t>(block - a.first_block[gi]) * kChunk;
  const int64_t end = begin + kChunk < g.numel ? begin + kChunk : g.numel;
  run_chunk<Rule, S, T>(g, c, st, begin, end);
}

// A tensor of a group: of the launch's dtype and of the group's parameter's shape, and dense (contiguous) where
// it has elements (an empty tensor may have no storage, and strides that are not contiguous ones).
bool group_tensor(const hal_tensor_t& t, const hal_tensor_t& param, DType dtype) {
  if (t.ndim != param.ndim || dtype_of(t.dtype) != dtype) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != param.shape[d]) return false;
  }
  return numel(t) == 0 || (t.data != nullptr && is_contiguous(t));
}

// One element of a floating dtype (the learning rate, the step count), or absent where `optional`.
bool one_value(const hal_tensor_t& t, bool optional) {
  if (is_absent(t)) return optional;
  return t.data != nullptr && numel(t) == 1 && is_floating(dtype_of(t.dtype));
}
bool one_f32(const hal_tensor_t& t) {
  return is_absent(t) || (t.data != nullptr && numel(t) == 1 && dtype_of(t.dtype) == DType::F32);
}

template <class Rule, class S, class T>
hal_status_t run_typed(const OpCall& call, const Common& common, DType dtype) {
  constexpr int N = Rule::kTensors;
  const int G = call.num_outputs / N;
  std::vector<Group> groups;
  groups.reserve(static_cast<size_t>(G));
  for (int gi = 0; gi < G; ++gi) {
    const hal_tensor_t* t = call.outputs + gi * N;
    Group g{};
    g.numel = numel(t[0]);
    g.aligned = true;
    for (int k = 0; k < N; ++k) {
      const bool optional = k == N - 1;  // max_exp_avg_sq, momentum_buffer
      if (optional && is_absent(t[k])) continue;
      if (!group_tensor(t[k], t[0], dtype)) return HAL_STATUS_NOT_SUPPORTED;
      g.tensor[k] = element0(t[k]);
      g.aligned = g.aligned && aligned16(g.tensor[k]);
    }
    if (N == 5) {
      const hal_tensor_t& step = call.inputs[3 + gi];
      if (!one_value(step, false)) return HAL_STATUS_NOT_SUPPORTED;
      if (dtype_of(step.dtype) != common.step_dtype) return HAL_STATUS_NOT_SUPPORTED;
      g.step = element0(step);
    }
    if (g.numel == 0) continue;  // (an empty tensor may have no storage: its pointer says nothing)
    if (!Rule::accepts(common, g) || g.numel > kChunk * kMaxBlocks) return HAL_STATUS_NOT_SUPPORTED;
    groups.push_back(g);
  }
  LaunchArgs a{};
  a.common = common;
  return launch_in_batches(
      groups, a, kMaxBlocks, [](const Group& g) { return (g.numel + kChunk - 1) / kChunk; },
      [&](LaunchArgs& batch, int64_t blocks) {
        return launch_kernel<fused_optimizer_kernel<Rule, S, T>>("fused_optimizer", call.device,
                                                                 static_cast<unsigned>(blocks), kThreads, 0,
                                                                 call.stream, batch);
      });
}

template <class Rule>
hal_status_t run_rule(const OpCall& call, Common& common) {
  constexpr int N = Rule::kTensors;
  const int steps = N == 5 ? call.num_outputs / N : 0;
  if (call.num_outputs % N != 0 || call.num_inputs != 3 + steps) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& lr = call.inputs[0];
  if (!one_value(lr, true) || !one_f32(call.inputs[1]) || !one_f32(call.inputs[2])) return HAL_STATUS_NOT_SUPPORTED;
  if (call.num_outputs == 0) return HAL_STATUS_SUCCESS;
  common.lr = is_absent(lr) ? nullptr : element0(lr);
  common.lr_dtype = is_absent(lr) ? DType::F32 : dtype_of(lr.dtype);
  common.grad_scale = is_absent(call.inputs[1]) ? nullptr : reinterpret_cast<const float*>(element0(call.inputs[1]));
  common.found_inf = is_absent(call.inputs[2]) ? nullptr : reinterpret_cast<const float*>(element0(call.inputs[2]));
  common.step_dtype = steps > 0 ? dtype_of(call.inputs[3].dtype) : DType::F32;
  const DType dtype = dtype_of(call.outputs[0].dtype);
  switch (dtype) {
    case DType::F32: return run_typed<Rule, float, float>(call, common, dtype);
    case DType::F16: return run_typed<Rule, __half, float>(call, common, dtype);
    case DType::BF16: return run_typed<Rule, __nv_bfloat16, float>(call, common, dtype);
    case DType::F64: return run_typed<Rule, double, double>(call, common, dtype);
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace

hal_status_t launch_fused_optimizer(const OpCall& call) {
  Common common{};
  switch (call.op) {
    case HAL_OP_FUSED_ADAM: {
      if (!has_scalars(call, 8)) return HAL_STATUS_NOT_SUPPORTED;
      const hal_scalar_t* s = call.scalars;
      common.adam = {scalar_as_double(s[0]), scalar_as_double(s[1]), scalar_as_double(s[2]), scalar_as_double(s[3]),
                     scalar_as_double(s[4]), scalar_as_int(s[5]) != 0, scalar_as_int(s[6]) != 0,
                     scalar_as_int(s[7]) != 0};
      return run_rule<AdamRule>(call, common);
    }
    case HAL_OP_FUSED_SGD: {
      if (!has_scalars(call, 7)) return HAL_STATUS_NOT_SUPPORTED;
      const hal_scalar_t* s = call.scalars;
      common.sgd = {scalar_as_double(s[0]), scalar_as_double(s[1]), scalar_as_double(s[2]), scalar_as_double(s[3]),
                    scalar_as_int(s[4]) != 0, scalar_as_int(s[5]) != 0, scalar_as_int(s[6]) != 0};
      return run_rule<SgdRule>(call, common);
    }
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace hal_gpu
