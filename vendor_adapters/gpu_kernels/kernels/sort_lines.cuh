// What sort.cu (lines a block holds) and sort_long_lines.cu (longer lines) share: a SORT/TOPK launch's
// description and the longest line one block sorts. CUDA and HIP.
#pragma once

#include <cstdint>

#include "kernels/lines.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

constexpr int kSortThreads = 512;
// Longest line per key type a block sorts: keys and int32 positions in 48 KiB of static shared memory.
template <class K>
constexpr int kMaxLine = sizeof(K) == 4 ? 4096 : 2048;

struct SortArgs {
  Lines<3> lines;  // [0] input, [1] values, [2] indices
  const char* in = nullptr;
  char* values = nullptr;
  char* indices = nullptr;
  DType dtype = DType::Unsupported;  // of input and values
  int32_t size = 0;
  int32_t padded = 0;   // the line's length rounded up to a power of two
  int64_t written = 0;  // elements written per line: the length (SORT) or k (TOPK)
  bool descending = false;
};

// Lines longer than kMaxLine<K>, keys compared as K (float, double, int32_t, int64_t): runs of kMaxLine<K> sorted
// by blocks, then merged pairwise in passes, through stream scratch.
template <class K>
hal_status_t sort_long_lines(const OpCall& call, const SortArgs& a);

}  // namespace hal_gpu
