// NLL_LOSS and NLL_LOSS_BACKWARD: logp [N, C] or [C] (any strides), target [N] or [] (int64, int32 or
// uint8), optional class weights [C].
//
// The forward with reduction sum/mean is one block: the per-sample terms are summed in a fixed order
// (deterministic, as ATen's CUDA kernel), and the block also writes total_weight. With reduction none
// each sample writes its own loss (total_weight is 0, as in ATen).
//
// A target outside [0, C) that is not ignore_index has no valid element to read. PyTorch raises there
// (a device-side assert on CUDA); a kernel here cannot raise without synchronizing, so the sample's loss
// becomes NaN (visible in the result, for every reduction) and its gradient row stays zero. Nothing is
// ever read or written out of bounds.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/nll_rules.cuh"

namespace hal_gpu {
namespace {

using nll::kMean;
using nll::kNone;
using nll::kSum;

struct Problem {
  Operand logp, target, weight, out;  // weight.base == nullptr when absent
  int64_t N = 0, C = 0;
  int64_t logp_row_stride = 0, logp_class_stride = 0, target_stride = 0, weight_stride = 0;
  int64_t ignore_index = -100;
};

template <class Acc>
__device__ __forceinline__ Acc class_weight(const Problem& p, int64_t c) {
  return p.weight.base ? load_as<Acc>(p.weight.base + c * p.weight_stride * p.weight.elem_size, p.weight.dtype)
                       : Acc(1);
}

// The term of sample i (nll_rules.cuh): -w[t] * logp[i, t] with its weight w[t]; (0, 0) when ignored; NaN for a
// bad target.
template <class Acc>
__device__ __forceinline__ void sample_term(const Problem& p, int64_t i, Acc& loss, Acc& weight) {
  const int64_t t = load_as<int64_t>(p.target.base + i * p.target_stride * p.target.elem_size, p.target.dtype);
  nll::sample_term<Acc>(
      t, p.C, p.ignore_index, [&](int64_t c) { return class_weight<Acc>(p, c); },
      [&](int64_t c) {
        const int64_t offset = i * p.logp_row_stride + c * p.logp_class_stride;
        return load_as<Acc>(p.logp.base + offset * p.logp.elem_size, p.logp.dtype);
      },
      loss, weight);
}

template <class Acc>
__global__ void nll_loss_none(Problem p, int64_t out_stride) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < p.N;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc loss, weight;
    sample_term<Acc>(p, i, loss, weight);
    store_from<Acc>(p.out.base + i * out_stride * p.out.elem_size, p.out.dtype, loss);
  }
}

// One block: loss = sum (or weighted mean) of the terms; total_weight = sum of the weights.
template <class Acc>
__global__ void nll_loss_reduce(Problem p, Operand total_weight, bool mean) {
  __shared__ Acc shared[32];
  Acc loss_sum = 0, weight_sum = 0;
  for (int64_t i = threadIdx.x; i < p.N; i += blockDim.x) {
    Acc loss, weight;
    sample_term<Acc>(p, i, loss, weight);
    loss_sum += loss;
    weight_sum += weight;
  }
  loss_sum = block_reduce<Acc, false>(loss_sum, shared);
  weight_sum = block_reduce<Acc, false>(weight_sum, shared);
  if (threadIdx.x == 0) {
    store_from<Acc>(p.out.base, p.out.dtype, nll::reduced_loss(loss_sum, weight_sum, mean));
    if (total_weight.base) store_from<Acc>(total_weight.base, total_weight.dtype, weight_sum);
  }
}

__global__ void store_zero(Operand t) {
  if (t.base) store_from<double>(t.base, t.dtype, 0.0);
}

// The upstream gradient's scale for reductions sum and mean (one value for every sample).
template <class Acc>
__device__ __forceinline__ Acc reduced_scale(Operand grad_loss, Operand total_weight, int64_t reduction) {
  if (reduction == kNone) return 0;
  const Acc total = reduction == kMean ? load_as<Acc>(total_weight.base, total_weight.dtype) : Acc(1);
  return nll::reduced_scale(load_as<Acc>(grad_loss.base, grad_loss.dtype), total, reduction);
}

// Sample i's target t (its gradient's one nonzero column) and that gradient, -w[t] * upstream; 0 for an
// ignored or invalid target.
template <class Acc>
__device__ __forceinline__ Acc row_gradient(const Problem& p, Operand grad_loss, int64_t grad_stride, Acc scale,
                                            int64_t reduction, int64_t i, int64_t* t) {
  *t = load_as<int64_t>(p.target.base + i * p.target_stride * p.target.elem_size, p.target.dtype);
  const Acc upstream = reduction == kNone
                           ? load_as<Acc>(grad_loss.base + i * grad_stride * grad_loss.elem_size, grad_loss.dtype)
                           : scale;
  return nll::target_gradient<Acc>(*t, p.C, p.ignore_index, [&](int64_t c) { return class_weight<Acc>(p, c); },
                                   upstream);
}

// grad_logp of any strides written in full: -w[t] * g at (i, t[i]), zero elsewhere. Rows step along the
// grid's y, classes along x, so that a row's target is read once per block and its writes are coalesced.
template <class Acc>
__global__ void nll_loss_backward_kernel(Problem p, Operand grad_loss, int64_t grad_stride, Operand total_weight,
                                         int64_t reduction, int64_t grad_row_stride, int64_t grad_class_stride) {
  const Acc scale = reduced_scale<Acc>(grad_loss, total_weight, reduction);
  const int64_t first_class = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t class_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.y; i < p.N; i += gridDim.y) {
    int64_t t;
    const Acc g = row_gradient<Acc>(p, grad_loss, grad_stride, scale, reduction, i, &t);
    char* row = p.out.base + i * grad_row_stride * p.out.elem_size;
    for (int64_t c = first_class; c < p.C; c += class_step) {
      store_from<Acc>(row + c * grad_class_stride * p.out.elem_size, p.out.dtype, c == t ? g : Acc(0));
    }
  }
}

// The nonzero of each row of a dense grad_logp that a memset has zeroed: a thread per sample.
template <class Acc>
__global__ void nll_loss_backward_scatter(Problem p, Operand grad_loss, int64_t grad_stride, Operand total_weight,
                                          int64_t reduction) {
  const Acc scale = reduced_scale<Acc>(grad_loss, total_weight, reduction);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < p.N;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t t;
    const Acc g = row_gradient<Acc>(p, grad_loss, grad_stride, scale, reduction, i, &t);
    if (t >= 0 && t < p.C) store_from<Acc>(p.out.base + (i * p.C + t) * p.out.elem_size, p.out.dtype, g);
  }
}

// Fills the shared part of Problem from logp (inputs[logp_at]), target and weight; false when unsupported.
bool describe(const OpCall& call, int logp_at, Problem& p, const char** why) {
  const hal_tensor_t& logp = call.inputs[logp_at];
  const hal_tensor_t& target = call.inputs[logp_at + 1];
  const hal_tensor_t& weight = call.inputs[logp_at + 2];
  if (logp.ndim != 1 && logp.ndim != 2) return *why = "nll_loss: logp must be [N, C] or [C]", false;
  if (!is_floating(dtype_of(logp.dtype))) return *why = "nll_loss: logp must be floating", false;
  const DType td = dtype_of(target.dtype);
  if (td != DType::I64 && td != DType::I32 && td != DType::U8) return *why = "nll_loss: unsupported target dtype", false;
  p.N = logp.ndim == 2 ? logp.shape[0] : 1;
  p.C = logp.shape[logp.ndim - 1];
  if (target.ndim != logp.ndim - 1 || (logp.ndim == 2 && target.shape[0] != p.N)) {
    return *why = "nll_loss: target must be [N] (or [] for 1-D logp)", false;
  }
  if (!is_absent(weight) && (weight.ndim != 1 || weight.shape[0] != p.C || !is_floating(dtype_of(weight.dtype)))) {
    return *why = "nll_loss: weight must be [C] floating", false;
  }
  p.logp = operand_of(logp);
  p.target = operand_of(target);
  p.logp_row_stride = logp.ndim == 2 ? logp.strides[0] : 0;
  p.logp_class_stride = logp.strides[logp.ndim - 1];
  p.target_stride = target.ndim == 1 ? target.strides[0] : 0;
  if (!is_absent(weight)) {
    p.weight = operand_of(weight);
    p.weight_stride = weight.strides[0];
  }
  return true;
}

template <class Acc>
hal_status_t forward(const OpCall& call, Problem& p, int64_t reduction) {
  const hal_tensor_t& loss = call.outputs[0];
  Operand total_weight = call.num_outputs > 1 && !is_absent(call.outputs[1]) ? operand_of(call.outputs[1]) : Operand();
  p.out = operand_of(loss);
  if (reduction == kNone) {
    if (p.N > 0) {
      const int64_t out_stride = loss.ndim == 1 ? loss.strides[0] : 0;
      if (hal_status_t s = launch_kernel<nll_loss_none<Acc>>("nll_loss_none", call.device, grid_for(p.N, 256), 256, 0,
                                                             call.stream, p, out_stride);
          s != HAL_STATUS_SUCCESS) {
        return s;
      }
    }
    return launch_kernel<store_zero>("nll_loss total_weight", call.device, 1, 1, 0, call.stream, total_weight);
  }
  return launch_kernel<nll_loss_reduce<Acc>>("nll_loss_reduce", call.device, 1, 1024, 0, call.stream, p, total_weight,
                                             reduction == kMean);
}

template <class Acc>
hal_status_t backward(const OpCall& call, Problem& p, int64_t reduction) {
  const hal_tensor_t& grad_loss = call.inputs[0];
  const hal_tensor_t& total_weight = call.inputs[4];
  const hal_tensor_t& grad = call.outputs[0];
  if (p.N * p.C == 0) return HAL_STATUS_SUCCESS;
  if (reduction == kMean && (total_weight.data == nullptr || numel(total_weight) != 1)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss backward: total_weight must be one element");
  }
  const int64_t grad_stride = reduction == kNone && grad_loss.ndim == 1 ? grad_loss.strides[0] : 0;
  p.out = operand_of(grad);
  const Operand weight_total = reduction == kMean ? operand_of(total_weight) : Operand();
  if (is_contiguous(grad)) {
    // Zeros at memset speed, then one store per sample: a kernel writing every element (the path below) ran
    // GPT-2's 2048 x 50257 logits at a fifth of the H100's bandwidth.
    const size_t bytes = static_cast<size_t>(p.N * p.C) * dtype_size(dtype_of(grad.dtype));
    if (hal_status_t s = memset_async(p.out.base, 0, bytes, call.stream, "nll_loss backward (zeros)");
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
    return launch_kernel<nll_loss_backward_scatter<Acc>>("nll_loss_backward_scatter", call.device,
                                                         grid_for(p.N, 256), 256, 0, call.stream, p,
                                                         operand_of(grad_loss), grad_stride, weight_total, reduction);
  }
  const int64_t row_stride = grad.ndim == 2 ? grad.strides[0] : 0;
  const int64_t class_stride = grad.strides[grad.ndim - 1];
  constexpr int kThreads = 256;
  const unsigned class_blocks = static_cast<unsigned>(std::min<int64_t>((p.C + kThreads - 1) / kThreads, 1024));
  constexpr int64_t kBlocks = 4096;  // about: each block loops over rows
  const int64_t rows_at_once = std::max<int64_t>(1, kBlocks / class_blocks);
  const unsigned row_blocks = static_cast<unsigned>(std::min<int64_t>({std::max<int64_t>(p.N, 1), rows_at_once, 65535}));
  return launch_kernel<nll_loss_backward_kernel<Acc>>("nll_loss_backward", call.device, dim3(class_blocks, row_blocks),
                                                      kThreads, 0, call.stream, p, operand_of(grad_loss), grad_stride,
                                                      weight_total, reduction, row_stride, class_stride);
}

}  // namespace

hal_status_t launch_loss(const OpCall& call) {
  const bool is_backward = call.op == HAL_OP_NLL_LOSS_BACKWARD;
  if (call.op != HAL_OP_NLL_LOSS && !is_backward) return fail(HAL_STATUS_NOT_SUPPORTED, "loss: unknown op");
  if ((is_backward ? (call.num_inputs != 5 || call.num_outputs != 1) : (call.num_inputs != 3 || call.num_outputs < 1)) ||
      !has_scalars(call, 2)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss: unexpected operands");
  }
  const int64_t reduction = scalar_as_int(op_scalar(call, 0));
  if (reduction != kNone && reduction != kMean && reduction != kSum) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss: unknown reduction");
  }
  Problem p;
  p.ignore_index = scalar_as_int(op_scalar(call, 1));
  const char* why = nullptr;
  if (!describe(call, is_backward ? 1 : 0, p, &why)) return fail(HAL_STATUS_NOT_SUPPORTED, why);

  const hal_tensor_t& out = call.outputs[0];
  const DType out_dtype = dtype_of(out.dtype);
  if (!is_floating(out_dtype)) return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss: output must be floating");
  if (is_backward) {
    const hal_tensor_t& grad_loss = call.inputs[0];
    const int64_t expected = reduction == kNone ? p.N : 1;
    if (out.ndim != call.inputs[1].ndim || numel(out) != p.N * p.C || grad_loss.ndim < 0 ||
        numel(grad_loss) != expected || (p.N > 0 && grad_loss.data == nullptr)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss backward: unexpected shapes");
    }
  } else {
    const int64_t expected = reduction == kNone ? p.N : 1;
    if (out.ndim > 1 || numel(out) != expected || (expected > 0 && out.data == nullptr)) {
      return fail(HAL_STATUS_NOT_SUPPORTED, "nll_loss: unexpected loss shape");
    }
  }
  const bool f64 = dtype_of(call.inputs[is_backward ? 1 : 0].dtype) == DType::F64 || out_dtype == DType::F64;
  if (is_backward) return f64 ? backward<double>(call, p, reduction) : backward<float>(call, p, reduction);
  return f64 ? forward<double>(call, p, reduction) : forward<float>(call, p, reduction);
}

}  // namespace hal_gpu
