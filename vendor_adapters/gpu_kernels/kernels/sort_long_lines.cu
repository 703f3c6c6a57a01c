// SORT and TOPK of lines longer than one block sorts (sort_lines.cuh's kMaxLine): a vocabulary's logits
// (50,257 for GPT-2) in top-k sampling, argsort of a long vector. Three steps, each a launch:
//   1. every run of kMaxLine elements of every line sorted by a block (sort_network.cuh's bitonic network, the
//      order of sort.cu: stable, NaN largest) into scratch as (key, position) pairs;
//   2. passes that merge runs pairwise, doubling their width: each element finds its place in the merged run
//      as its rank in its own run plus the number of the partner run's elements ordered before it (a binary
//      search; the order is total, so no two elements land in one place);
//   3. the first `written` pairs of each line written out as values and int64 indices (TOPK: k of them).

#include <cstdint>

#include "kernels/adapter_services.h"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/sort_lines.cuh"
#include "kernels/sort_network.cuh"

namespace hal_gpu {
namespace {

template <class K>
__global__ void __launch_bounds__(kSortThreads)
    sort_runs_kernel(SortArgs a, K* keys_out, int32_t* pos_out, int32_t runs_per_line) {
  __shared__ K keys[kMaxLine<K>];
  __shared__ int32_t pos[kMaxLine<K>];
  const int32_t length = static_cast<int32_t>(a.lines.length[0]);
  for (int64_t b = blockIdx.x; b < a.lines.count * runs_per_line; b += gridDim.x) {
    const int64_t m = b / runs_per_line;
    const int32_t start = static_cast<int32_t>(b - m * runs_per_line) * kMaxLine<K>;
    const int32_t run_length = length - start < kMaxLine<K> ? length - start : kMaxLine<K>;
    int32_t n = 1;
    while (n < run_length) n <<= 1;
    int64_t off[3];
    line_offsets(m, a.lines, off);
    for (int32_t i = threadIdx.x; i < n; i += kSortThreads) {
      // Positions past the line's length are padding, which `before` orders last.
      keys[i] = i < run_length ? load_as<K>(a.in + (off[0] + (start + i) * a.lines.step[0]) * a.size, a.dtype) : K(0);
      pos[i] = start + i;
    }
    __syncthreads();
    bitonic_sort(keys, pos, n, length, a.descending, kSortThreads);
    for (int32_t i = threadIdx.x; i < run_length; i += kSortThreads) {
      keys_out[m * length + start + i] = keys[i];
      pos_out[m * length + start + i] = pos[i];
    }
    __syncthreads();  // the next run reuses keys and pos
  }
}

template <class K>
__global__ void merge_runs_kernel(const K* keys_in, const int32_t* pos_in, K* keys_out, int32_t* pos_out,
                                  int64_t total, int32_t length, int32_t width, bool descending) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t line = e / length;
    const int32_t i = static_cast<int32_t>(e - line * length);
    const int32_t run = i / width, partner = run ^ 1, partner_start = partner * width;
    const int64_t base = line * length;
    const K key = keys_in[e];
    const int32_t p = pos_in[e];
    int32_t place = i;  // a run without a partner (the line's last) stays where it is
    if (partner_start < length) {
      const int32_t partner_length = length - partner_start < width ? length - partner_start : width;
      int32_t lo = 0, hi = partner_length;
      while (lo < hi) {
        const int32_t mid = (lo + hi) / 2;
        const int64_t q = base + partner_start + mid;
        if (before(keys_in[q], pos_in[q], key, p, descending, length)) lo = mid + 1;
        else hi = mid;
      }
      place = (run < partner ? run : partner) * width + (i - run * width) + lo;
    }
    keys_out[base + place] = key;
    pos_out[base + place] = p;
  }
}

template <class K>
__global__ void write_sorted_kernel(SortArgs a, const K* keys, const int32_t* pos) {
  const int64_t total = a.lines.count * a.written, length = a.lines.length[0];
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t m = e / a.written, i = e - m * a.written;
    int64_t off[3];
    line_offsets(m, a.lines, off);
    store_from<K>(a.values + (off[1] + i * a.lines.step[1]) * a.size, a.dtype, keys[m * length + i]);
    *reinterpret_cast<int64_t*>(a.indices + (off[2] + i * a.lines.step[2]) * 8) = pos[m * length + i];
  }
}

}  // namespace

template <class K>
hal_status_t sort_long_lines(const OpCall& call, const SortArgs& a) {
  const int64_t length = a.lines.length[0], total = a.lines.count * length;
  if (length >= (int64_t{1} << 31)) return HAL_STATUS_NOT_SUPPORTED;  // positions are int32
  // Two (keys, positions) buffers, keys first (their alignment is the larger).
  const size_t key_bytes = static_cast<size_t>(total) * sizeof(K), pos_bytes = static_cast<size_t>(total) * 4;
  StreamScratch scratch(call.device, call.stream, 2 * (key_bytes + pos_bytes));
  if (!scratch.ok()) {
    return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "sort: no scratch memory for the merge of long lines");
  }
  K* keys[2] = {scratch.as<K>(), scratch.as<K>() + total};
  int32_t* pos[2] = {reinterpret_cast<int32_t*>(keys[1] + total), reinterpret_cast<int32_t*>(keys[1] + total) + total};
  const int32_t runs_per_line = static_cast<int32_t>((length + kMaxLine<K> - 1) / kMaxLine<K>);
  const int64_t runs = a.lines.count * runs_per_line;
  const unsigned run_blocks = static_cast<unsigned>(runs < (int64_t{1} << 20) ? runs : int64_t{1} << 20);
  const char* name = call.op == HAL_OP_TOPK ? "topk (long lines)" : "sort (long lines)";
  hal_status_t st = launch_kernel<sort_runs_kernel<K>>(name, call.device, run_blocks, kSortThreads, 0, call.stream, a,
                                                        keys[0], pos[0], runs_per_line);
  constexpr int kMergeThreads = 256;
  int from = 0;
  for (int64_t width = kMaxLine<K>; st == HAL_STATUS_SUCCESS && width < length; width *= 2, from ^= 1) {
    st = launch_kernel<merge_runs_kernel<K>>(name, call.device, grid_for(total, kMergeThreads, call.device),
                                             kMergeThreads, 0, call.stream, keys[from], pos[from], keys[from ^ 1],
                                             pos[from ^ 1], total, static_cast<int32_t>(length),
                                             static_cast<int32_t>(width), a.descending);
  }
  if (st != HAL_STATUS_SUCCESS) return st;
  return launch_kernel<write_sorted_kernel<K>>(name, call.device,
                                               grid_for(a.lines.count * a.written, kMergeThreads, call.device),
                                               kMergeThreads, 0, call.stream, a, keys[from], pos[from]);
}

template hal_status_t sort_long_lines<float>(const OpCall&, const SortArgs&);
template hal_status_t sort_long_lines<double>(const OpCall&, const SortArgs&);
template hal_status_t sort_long_lines<int32_t>(const OpCall&, const SortArgs&);
template hal_status_t sort_long_lines<int64_t>(const OpCall&, const SortArgs&);

}  // namespace hal_gpu
