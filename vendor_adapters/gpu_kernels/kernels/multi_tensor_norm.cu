// Multi-tensor ops that read every element of a list of tensors: FOREACH_NORM (clip_grad_norm_'s norm of
// each gradient) and AMP_UNSCALE (GradScaler's unscale and non-finite check), each one launch over up to
// kMaxGroups tensors, as CUDA's multi-tensor kernels do, instead of a reduction or two per tensor.
//
// A tensor of n elements takes ceil(n / kChunk) blocks; a block finds its tensor by a binary search over the
// launch's first-block table (as multi_tensor.cu). For the norm, each block reduces its chunk with a fixed
// tree and writes the partial result; the block that finishes a tensor's last chunk (an atomic ticket per
// tensor) combines that tensor's partials in chunk order and writes the norm. The order of every operation
// is fixed, whichever block finishes last, so the norms are the same on every run.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/adapter_services.h"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/multi_tensor_batches.h"
#include "kernels/multi_tensor_groups.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"
#include "kernels/op_call.h"
#include "kernels/vector_norm.cuh"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunk = 16384;                 // elements per block: 64 per thread
constexpr int kMaxGroups = 96;                    // tensors per launch: keeps the kernel argument under 4 KiB
constexpr int64_t kMaxBlocks = int64_t{1} << 30;  // blocks per launch, so block indices fit int32

struct Group {
  char* data;       // the tensor's element 0 (read; AMP_UNSCALE also writes it)
  char* out;        // FOREACH_NORM: the 0-dim result
  int64_t numel;
  int32_t index;    // the tensor's position in the whole op (its ticket and first partial)
  DType dtype;
  DType out_dtype;
};

struct LaunchArgs {
  Group groups[kMaxGroups];
  int32_t first_block[kMaxGroups];  // ascending; group g owns blocks [first_block[g], first_block[g + 1])
  int32_t num_groups;
  int64_t partial_base;             // FOREACH_NORM: this launch's first block's slot in `partials`
  double ord;
};
static_assert(sizeof(LaunchArgs) <= 4096, "the multi-tensor kernel argument must stay under 4 KiB");

template <class T, NormOrder O>
__global__ void __launch_bounds__(kThreads) norm_kernel(const __grid_constant__ LaunchArgs a, T* partials,
                                                        int32_t* tickets) {
  using N = VectorNorm<T, O>;
  const int32_t block = static_cast<int32_t>(blockIdx.x);
  const int gi = group_of_block(a, block);
  const Group& g = a.groups[gi];
  const int32_t chunk = block - a.first_block[gi];
  const int64_t begin = static_cast<int64_t>(chunk) * kChunk;
  const int64_t end = begin + kChunk < g.numel ? begin + kChunk : g.numel;
  const T ord = static_cast<T>(a.ord);
  const int size = dtype_size(g.dtype);
  T acc = N::identity();
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) acc = N::push(acc, load_as<T>(g.data + i * size, g.dtype), ord);

  __shared__ T shared[kThreads];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (static_cast<int>(threadIdx.x) < h) shared[threadIdx.x] = N::combine(shared[threadIdx.x], shared[threadIdx.x + h]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  // This tensor's partials sit at slots [base, base + chunks): the launch's slots follow its blocks.
  const int64_t base = a.partial_base + a.first_block[gi];
  partials[base + chunk] = shared[0];
  __threadfence();  // the partial is visible to every block before the ticket says so
  const int32_t chunks = g.numel > 0 ? static_cast<int32_t>((g.numel + kChunk - 1) / kChunk) : 1;
  if (atomicAdd(&tickets[g.index], 1) != chunks - 1) return;
  __threadfence();
  const volatile T* p = partials + base;
  T total = N::identity();
  for (int32_t c = 0; c < chunks; ++c) total = N::combine(total, p[c]);
  store_from<T>(g.out, g.out_dtype, N::finish(total, ord));
}

// x *= inv_scale for every element (as CUDA's kernel: always, in the compute type), and found_inf = 1 when
// some element was inf or NaN before.
template <class T>
__global__ void __launch_bounds__(kThreads) unscale_kernel(const __grid_constant__ LaunchArgs a, float* found_inf,
                                                           const float* inv_scale) {
  const int32_t block = static_cast<int32_t>(blockIdx.x);
  const int gi = group_of_block(a, block);
  const Group& g = a.groups[gi];
  const int64_t begin = static_cast<int64_t>(block - a.first_block[gi]) * kChunk;
  const int64_t end = begin + kChunk < g.numel ? begin + kChunk : g.numel;
  const T inv = static_cast<T>(*inv_scale);
  const int size = dtype_size(g.dtype);
  bool non_finite = false;
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    const T v = load_as<T>(g.data + i * size, g.dtype);
    non_finite = non_finite || !isfinite(v);
    store_from<T>(g.data + i * size, g.dtype, v * inv);
  }
  if (non_finite) *found_inf = 1.f;  // every writer writes the same value
}

// The tensors of the op, in order, each checked (NOT_SUPPORTED before anything runs).
bool read_groups(const hal_tensor_t* tensors, int32_t count, const hal_tensor_t* outs, std::vector<Group>& groups) {
  groups.clear();
  for (int32_t i = 0; i < count; ++i) {
    const hal_tensor_t& t = tensors[i];
    Group g{};
    g.dtype = dtype_of(t.dtype);
    if (is_scalar_operand(t) || t.ndim < 0 || t.ndim > HAL_MAX_DIMS || !is_floating(g.dtype)) return false;
    g.numel = numel(t);
    if (g.numel > 0 && !is_contiguous(t)) return false;
    if (g.numel > kChunk * kMaxBlocks) return false;
    g.data = element0(t);
    g.index = i;
    if (outs != nullptr) {
      const hal_tensor_t& o = outs[i];
      g.out_dtype = dtype_of(o.dtype);
      if (is_absent(o) || numel(o) != 1 || !is_floating(g.out_dtype)) return false;
      g.out = element0(o);
    }
    groups.push_back(g);
  }
  return true;
}

// Calls launch(args, blocks) for batches of up to kMaxGroups tensors (empty ones included: their norm still
// needs writing, by one block that reads nothing).
// (Each batch's partials follow the previous batch's: partial_base counts the blocks launched before.)
template <class Launch>
hal_status_t for_each_batch(const std::vector<Group>& groups, LaunchArgs& a, Launch&& launch) {
  return launch_in_batches(
      groups, a, kMaxBlocks, [](const Group& g) { return std::max<int64_t>(1, (g.numel + kChunk - 1) / kChunk); },
      [&](LaunchArgs& batch, int64_t blocks) {
        const hal_status_t st = launch(batch, blocks);
        batch.partial_base += blocks;
        return st;
      });
}

template <class T, NormOrder O>
hal_status_t run_norm(const OpCall& call, const std::vector<Group>& groups, double ord) {
  int64_t total_blocks = 0;
  for (const Group& g : groups) total_blocks += std::max<int64_t>(1, (g.numel + kChunk - 1) / kChunk);
  const size_t partial_bytes = static_cast<size_t>(total_blocks) * sizeof(T);
  const size_t ticket_offset = (partial_bytes + 15) / 16 * 16;
  const size_t ticket_bytes = groups.size() * sizeof(int32_t);
  StreamScratch scratch(call.device, call.stream, ticket_offset + ticket_bytes);
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "FOREACH_NORM: no scratch memory for the partial norms");
  T* partials = scratch.as<T>();
  int32_t* tickets = reinterpret_cast<int32_t*>(scratch.as<char>() + ticket_offset);
  if (hal_status_t st = memset_async(tickets, 0, ticket_bytes, call.stream, "FOREACH_NORM (tickets)");
      st != HAL_STATUS_SUCCESS) {
    return st;
  }
  LaunchArgs a{};
  a.ord = ord;
  return for_each_batch(groups, a, [&](const LaunchArgs& batch, int64_t blocks) {
    return launch_kernel<norm_kernel<T, O>>("foreach norm", call.device, static_cast<unsigned>(blocks), kThreads, 0,
                                            call.stream, batch, partials, tickets);
  });
}

template <class T>
hal_status_t dispatch_norm(const OpCall& call, const std::vector<Group>& groups, double ord) {
  switch (norm_order_of(ord)) {
    case NormOrder::Inf: return run_norm<T, NormOrder::Inf>(call, groups, ord);
    case NormOrder::NegInf: return run_norm<T, NormOrder::NegInf>(call, groups, ord);
    case NormOrder::Zero: return run_norm<T, NormOrder::Zero>(call, groups, ord);
    case NormOrder::One: return run_norm<T, NormOrder::One>(call, groups, ord);
    case NormOrder::Two: return run_norm<T, NormOrder::Two>(call, groups, ord);
    case NormOrder::General: return run_norm<T, NormOrder::General>(call, groups, ord);
  }
  return HAL_STATUS_NOT_SUPPORTED;
}

hal_status_t foreach_norm(const OpCall& call) {
  if (call.num_inputs != call.num_outputs || call.scalars == nullptr || call.num_scalars < 1) return HAL_STATUS_NOT_SUPPORTED;
  std::vector<Group> groups;
  if (!read_groups(call.inputs, call.num_inputs, call.outputs, groups)) return HAL_STATUS_NOT_SUPPORTED;
  if (groups.empty()) return HAL_STATUS_SUCCESS;
  const hal_scalar_t& s = call.scalars[0];
  const double ord = s.kind == 0 ? s.value.f : s.kind == 1 ? static_cast<double>(s.value.i) : (s.value.b ? 1.0 : 0.0);
  // Computed in float64 where any tensor or result is f64 (one compute type per launch), else float32.
  bool any_double = false;
  for (const Group& g : groups) any_double = any_double || g.dtype == DType::F64 || g.out_dtype == DType::F64;
  return any_double ? dispatch_norm<double>(call, groups, ord) : dispatch_norm<float>(call, groups, ord);
}

hal_status_t amp_unscale(const OpCall& call) {
  if (call.num_inputs != 1 || call.num_outputs < 1) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& inv_scale = call.inputs[0];
  const hal_tensor_t& found_inf = call.outputs[0];
  if (dtype_of(inv_scale.dtype) != DType::F32 || dtype_of(found_inf.dtype) != DType::F32 || is_absent(inv_scale) ||
      is_scalar_operand(inv_scale) || numel(inv_scale) != 1 || numel(found_inf) != 1) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  std::vector<Group> groups;
  if (!read_groups(call.outputs + 1, call.num_outputs - 1, nullptr, groups)) return HAL_STATUS_NOT_SUPPORTED;
  bool any_double = false;
  std::vector<Group> nonempty;
  for (const Group& g : groups) {
    any_double = any_double || g.dtype == DType::F64;
    if (g.numel > 0) nonempty.push_back(g);
  }
  if (nonempty.empty()) return HAL_STATUS_SUCCESS;
  float* found = reinterpret_cast<float*>(element0(found_inf));
  const float* inv = reinterpret_cast<const float*>(element0(inv_scale));
  LaunchArgs a{};
  return for_each_batch(nonempty, a, [&](const LaunchArgs& batch, int64_t blocks) {
    return any_double ? launch_kernel<unscale_kernel<double>>("AMP unscale", call.device, static_cast<unsigned>(blocks),
                                                              kThreads, 0, call.stream, batch, found, inv)
                      : launch_kernel<unscale_kernel<float>>("AMP unscale", call.device, static_cast<unsigned>(blocks),
                                                             kThreads, 0, call.stream, batch, found, inv);
  });
}

}  // namespace

hal_status_t launch_multi_tensor_norm(const OpCall& call) {
  if (call.op == HAL_OP_FOREACH_NORM) return foreach_norm(call);
  if (call.op == HAL_OP_AMP_UNSCALE) return amp_unscale(call);
  return HAL_STATUS_NOT_SUPPORTED;
}

}  // namespace hal_gpu
