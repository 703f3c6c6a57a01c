// SEARCHSORTED for the runtimes that take SPIR-V: a work-item per value, the kernel library's binary search
// (gpu_kernels/kernels/search_rules.cuh, the same source search.cu compiles). plan_search.cpp's layout walks
// the lines (every dim but the last) with operands 0..3 the strides of sorted, sorter (sorted's again without
// one), values and out; the *_step arguments are the strides along the last dim.
#include "kernels/search_rules.cuh"
#include "strided_walk.h"

template <class T>
inline void search_one(global const T* sorted, global const long* sorter, global const T* values, global char* out,
                       StridedLayout l, ulong lines, long length, long count, long sorted_step, long sorter_step,
                       long value_step, long out_step, int right, int has_sorter, int out_int32) {
  const size_t e = get_global_id(0);
  if (e >= lines * count) return;
  const ulong m = e / count;
  const long j = e % count;
  int64_t at[4];
  offsets_of<4>(m, lines, l, at);
  const T value = values[at[2] + j * value_step];
  const auto element = [&](int64_t i) {
    const int64_t k = has_sorter != 0 ? sorter[at[1] + i * sorter_step] : i;
    return sorted[at[0] + k * sorted_step];
  };
  const int64_t position = hal_gpu::sorted_position<T>(value, length, right != 0, element);
  if (out_int32 != 0) reinterpret_cast<global int*>(out)[at[3] + j * out_step] = static_cast<int>(position);
  else reinterpret_cast<global long*>(out)[at[3] + j * out_step] = position;
}

// float32 sorted lines and values.
kernel void search_f32(global const float* sorted, global const long* sorter, global const float* values,
                       global char* out, StridedLayout l, ulong lines, long length, long count, long sorted_step,
                       long sorter_step, long value_step, long out_step, int right, int has_sorter, int out_int32) {
  search_one<float>(sorted, sorter, values, out, l, lines, length, count, sorted_step, sorter_step, value_step,
                    out_step, right, has_sorter, out_int32);
}

// int64 sorted lines and values.
kernel void search_i64(global const long* sorted, global const long* sorter, global const long* values,
                       global char* out, StridedLayout l, ulong lines, long length, long count, long sorted_step,
                       long sorter_step, long value_step, long out_step, int right, int has_sorter, int out_int32) {
  search_one<long>(sorted, sorter, values, out, l, lines, length, count, sorted_step, sorter_step, value_step,
                   out_step, right, has_sorter, out_int32);
}
