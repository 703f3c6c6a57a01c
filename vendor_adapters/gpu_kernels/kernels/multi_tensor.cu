// The multi-tensor family: HAL_OP_FOREACH runs one elementwise op over many groups of tensors in a single
// launch (adapter.h, MULTI-TENSOR), as an optimizer step needs: one launch per step-op instead of one per
// parameter. Every tensor of a launch is contiguous and of one floating dtype, computed in float (double
// for f64) with the elementwise family's math (elementwise_ops.cuh) and scalar handling
// (elementwise_scalars.cuh).
//
// A tensor operand may also be ONE element broadcast over its group (every stride 0, adapter.h), such as the
// 0-dim coefficient by which clip_grad_norm_ multiplies every gradient: each block reads it once, as a value.
//
// Each group of n elements takes ceil(n / kChunk) blocks; a kernel argument holds up to kMaxGroups
// groups and the index of each group's first block, and a block finds its group by a binary search over
// those. More groups take several launches on the same stream. The ops of a training step (add, sub, mul,
// div, sqrt, lerp, addcmul, addcdiv, and copy for zeroing) are compiled per op with 16-byte accesses and
// several elements in flight per thread; every other elementwise op takes one runtime-dispatched loop.

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/elementwise_ops.cuh"
#include "kernels/elementwise_scalars.cuh"
#include "kernels/family_support.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/multi_tensor_batches.h"
#include "kernels/multi_tensor_groups.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunk = 4096;                  // elements per block (a multiple of every vector width)
constexpr int kMaxGroups = 32;                    // groups per launch: keeps the kernel argument under 4 KiB
constexpr int64_t kMaxBlocks = int64_t{1} << 30;  // blocks per launch, so block indices fit int32

// One group as the kernel reads it: element-0 pointers, the scalar operands' values in the compute type T,
// and the op's own scalars.
template <class T>
struct Group {
  void* out;
  const void* in[3];  // nullptr: a scalar operand, whose value is value[k]
  int64_t numel;
  T value[3];
  ew::Params<T> params;
  DType device_value[3];  // not Unsupported: in[k] is one element of this dtype, broadcast over the group
  bool aligned;  // every tensor pointer of the group is 16-byte aligned: vector accesses
};

template <class T>
struct LaunchArgs {
  Group<T> groups[kMaxGroups];
  int32_t first_block[kMaxGroups];  // ascending; group g owns blocks [first_block[g], first_block[g + 1])
  int32_t num_groups;
  int32_t op;
};
static_assert(sizeof(LaunchArgs<double>) <= 4096, "the multi-tensor kernel argument must stay under 4 KiB");

// Elements [begin, end) of group g with the op's math fixed at compile time: each thread keeps
// Pack<S>::kSize elements in flight, loaded as one 16-byte Pack (family_support.cuh) when the group is
// aligned (begin is a multiple of kChunk, so packs stay aligned), else as that many coalesced scalar loads.
// In place is safe: every element is read and written by the same thread.
template <class S, class T, int ARITY, int OP>
__device__ __forceinline__ void run_chunk(const Group<T>& g, int64_t begin, int64_t end) {
  constexpr int V = Pack<S>::kSize;
  constexpr int64_t kStep = static_cast<int64_t>(kThreads) * V;
  const ew::Params<T> p = g.params;
  S* out = static_cast<S*>(g.out);
  const S* in[ARITY];
  T value[ARITY];
#pragma unroll
  for (int k = 0; k < ARITY; ++k) {
    in[k] = static_cast<const S*>(g.in[k]);
    value[k] = g.value[k];
  }
  if (g.aligned) {
    const int64_t packed_end = begin + (end - begin) / V * V;
    for (int64_t i = begin + static_cast<int64_t>(threadIdx.x) * V; i < packed_end; i += kStep) {
      T x[ARITY][V];
#pragma unroll
      for (int k = 0; k < ARITY; ++k) {
        if (in[k] != nullptr) {
          const Pack<S> a = *reinterpret_cast<const Pack<S>*>(in[k] + i);
#pragma unroll
          for (int j = 0; j < V; ++j) x[k][j] = to_acc<T>(a.v[j]);
        } else {
#pragma unroll
          for (int j = 0; j < V; ++j) x[k][j] = value[k];
        }
      }
      Pack<S> r;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        T v[ARITY];
#pragma unroll
        for (int k = 0; k < ARITY; ++k) v[k] = x[k][j];
        r.v[j] = from_acc<S>(ew::apply_op<OP, T>(v, p));
      }
      *reinterpret_cast<Pack<S>*>(out + i) = r;
    }
    begin = packed_end;  // the last (end - begin) % V elements, below
    if (begin == end) return;
  }
  for (int64_t base = begin; base < end; base += kStep) {
    T x[ARITY][V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const int64_t i = base + threadIdx.x + static_cast<int64_t>(j) * kThreads;
#pragma unroll
      for (int k = 0; k < ARITY; ++k) x[k][j] = (in[k] == nullptr || i >= end) ? value[k] : to_acc<T>(in[k][i]);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const int64_t i = base + threadIdx.x + static_cast<int64_t>(j) * kThreads;
      if (i >= end) continue;
      T v[ARITY];
#pragma unroll
      for (int k = 0; k < ARITY; ++k) v[k] = x[k][j];
      out[i] = from_acc<S>(ew::apply_op<OP, T>(v, p));
    }
  }
}

// The same for any other elementwise op, chosen at run time: one element per thread and step.
template <class S, class T, int ARITY>
__device__ __forceinline__ void run_chunk_runtime(int32_t op, const Group<T>& g, int64_t begin, int64_t end) {
  const ew::Params<T> p = g.params;
  S* out = static_cast<S*>(g.out);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    T v[ARITY];
#pragma unroll
    for (int k = 0; k < ARITY; ++k) v[k] = g.in[k] == nullptr ? g.value[k] : to_acc<T>(static_cast<const S*>(g.in[k])[i]);
    out[i] = from_acc<S>(ew::apply_runtime<ARITY, T>(op, v, p));
  }
}

// The ops of an optimizer step and of zeroing gradients, compiled per op.
#define HAL_MULTI_TENSOR_COMPILED_OPS(X)                                                                   \
  X(HAL_OP_COPY) X(HAL_OP_SQRT) X(HAL_OP_ADD) X(HAL_OP_SUB) X(HAL_OP_MUL) X(HAL_OP_DIV) X(HAL_OP_LERP) \
  X(HAL_OP_ADDCMUL) X(HAL_OP_ADDCDIV)

template <class S, class T, int ARITY>
__global__ void __launch_bounds__(kThreads) multi_tensor_kernel(const __grid_constant__ LaunchArgs<T> a) {
  const int32_t block = static_cast<int32_t>(blockIdx.x);
  const int gi = group_of_block(a, block);  // this block's group
  // The group, with its broadcast elements read into values (then they are scalar operands to the loops).
  Group<T> g = a.groups[gi];
#pragma unroll
  for (int k = 0; k < ARITY; ++k) {
    if (g.device_value[k] != DType::Unsupported) {
      g.value[k] = load_as<T>(g.in[k], g.device_value[k]);
      g.in[k] = nullptr;
    }
  }
  const int64_t begin = static_cast<int64_t>(block - a.first_block[gi]) * kChunk;
  const int64_t end = begin + kChunk < g.numel ? begin + kChunk : g.numel;
#define HAL_MULTI_TENSOR_CASE(id)                                                                  \
  case id:                                                                                         \
    if constexpr (ew::op_info(id).arity == ARITY) return run_chunk<S, T, ARITY, id>(g, begin, end); \
    else break;
  switch (a.op) {
    HAL_MULTI_TENSOR_COMPILED_OPS(HAL_MULTI_TENSOR_CASE)
    default: break;
  }
#undef HAL_MULTI_TENSOR_CASE
  run_chunk_runtime<S, T, ARITY>(a.op, g, begin, end);
}

// A tensor operand the kernel reads as a flat array: the launch's dtype, the output's shape, and, where
// there are elements, data laid out contiguously. (An empty group is skipped whatever its strides: PyTorch
// gives a contiguous (2, 0, 3) tensor strides (3, 3, 1).)
bool flat_operand(const hal_tensor_t& t, const hal_tensor_t& out, DType dtype) {
  if (t.ndim < 0 || t.ndim > HAL_MAX_DIMS || t.ndim != out.ndim || dtype_of(t.dtype) != dtype) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != out.shape[d]) return false;
  }
  return numel(out) == 0 || (t.data != nullptr && is_contiguous(t));
}

// A tensor operand that is one floating element broadcast over the output's shape (every stride 0).
bool broadcast_element(const hal_tensor_t& t, const hal_tensor_t& out) {
  if (t.data == nullptr || t.ndim != out.ndim || !is_floating(dtype_of(t.dtype))) return false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] != out.shape[d] || t.strides[d] != 0) return false;
  }
  return true;
}

template <class S, class T, int ARITY>
hal_status_t launch_groups(const OpCall& call, LaunchArgs<T>& a, int64_t blocks) {
  return launch_kernel<multi_tensor_kernel<S, T, ARITY>>("foreach", call.device, static_cast<unsigned>(blocks),
                                                         kThreads, 0, call.stream, a);
}

// Reads and checks every group (refusing before anything runs), then launches them kMaxGroups at a time.
template <class S, class T, int ARITY>
hal_status_t run_typed(const OpCall& call, int32_t op, DType dtype) {
  const int own = ew::op_info(op).own_scalars;
  int next = 1;  // scalars[0] is the inner op
  std::vector<Group<T>> groups;
  groups.reserve(static_cast<size_t>(call.num_outputs));
  for (int gi = 0; gi < call.num_outputs; ++gi) {
    const hal_tensor_t& out = call.outputs[gi];
    if (!flat_operand(out, out, dtype)) return HAL_STATUS_NOT_SUPPORTED;
    Group<T> g{};
    for (int k = 0; k < 3; ++k) g.device_value[k] = DType::Unsupported;
    g.numel = numel(out);
    g.out = element0(out);
    g.aligned = aligned16(g.out);
    for (int k = 0; k < ARITY; ++k) {
      const hal_tensor_t& t = call.inputs[gi * ARITY + k];
      if (is_scalar_operand(t)) {
        if (dtype_of(t.dtype) == DType::Unsupported) return HAL_STATUS_NOT_SUPPORTED;
        if (next >= call.num_scalars) return fail(HAL_STATUS_INVALID_ARGUMENT, "FOREACH: fewer scalars than its groups need");
        g.value[k] = scalar_operand_as<T>(call.scalars[next++], dtype_of(t.dtype));
        g.in[k] = nullptr;
      } else if (broadcast_element(t, out) && (numel(out) > 1 || dtype_of(t.dtype) != dtype)) {
        g.in[k] = element0(t);
        g.device_value[k] = dtype_of(t.dtype);
      } else {
        if (!flat_operand(t, out, dtype)) return HAL_STATUS_NOT_SUPPORTED;
        g.in[k] = element0(t);
        g.aligned = g.aligned && aligned16(g.in[k]);
      }
    }
    if (next + own > call.num_scalars) return fail(HAL_STATUS_INVALID_ARGUMENT, "FOREACH: fewer scalars than its groups need");
    g.params = params_of<T>(op, call.scalars + next);
    next += own;
    if (g.numel > kChunk * kMaxBlocks) return HAL_STATUS_NOT_SUPPORTED;
    if (g.numel > 0) groups.push_back(g);
  }

  LaunchArgs<T> a{};
  a.op = op;
  return launch_in_batches(
      groups, a, kMaxBlocks, [](const Group<T>& g) { return (g.numel + kChunk - 1) / kChunk; },
      [&](LaunchArgs<T>& batch, int64_t blocks) { return launch_groups<S, T, ARITY>(call, batch, blocks); });
}

template <class S, class T>
hal_status_t run_arity(const OpCall& call, int32_t op, int arity, DType dtype) {
  switch (arity) {
    case 1: return run_typed<S, T, 1>(call, op, dtype);
    case 2: return run_typed<S, T, 2>(call, op, dtype);
    default: return run_typed<S, T, 3>(call, op, dtype);
  }
}

}  // namespace

hal_status_t launch_multi_tensor(const OpCall& call) {
  if (call.op != HAL_OP_FOREACH) return HAL_STATUS_NOT_SUPPORTED;
  if (call.scalars == nullptr || call.num_scalars < 1) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "FOREACH: missing the inner op id (scalars[0])");
  }
  const int64_t inner = scalar_as<int64_t>(call.scalars[0]);
  if (inner < 0 || inner > std::numeric_limits<int32_t>::max()) return HAL_STATUS_NOT_SUPPORTED;
  const int32_t op = static_cast<int32_t>(inner);
  const ew::OpInfo info = ew::op_info(op);
  // Elementwise ops only (FILL and ARANGE have no arity here), computed in a floating type.
  if (info.arity < 1 || info.arity > 3 || info.domain == ew::Domain::IntOnly) return HAL_STATUS_NOT_SUPPORTED;
  if (call.num_outputs < 0 || int64_t{call.num_inputs} != int64_t{call.num_outputs} * info.arity) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (call.num_outputs == 0) return HAL_STATUS_SUCCESS;
  const DType dtype = dtype_of(call.outputs[0].dtype);
  switch (dtype) {
    case DType::F32: return run_arity<float, float>(call, op, info.arity, dtype);
    case DType::F16: return run_arity<__half, float>(call, op, info.arity, dtype);
    case DType::BF16: return run_arity<__nv_bfloat16, float>(call, op, info.arity, dtype);
    case DType::F64: return run_arity<double, double>(call, op, info.arity, dtype);
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace hal_gpu
