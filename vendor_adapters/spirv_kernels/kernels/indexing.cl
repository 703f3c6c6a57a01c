// INDEX_SELECT, GATHER, SCATTER (set) and INDEX_PUT (without accumulate) of any dtype for the runtimes that take
// SPIR-V: the entry points around the kernel library's indexing rules and row selection
// (gpu_kernels/kernels/indexing_elements.cuh, the same source the CUDA and HIP kernels compile). plan_indexing.cpp
// launches the row kernels for INDEX_SELECT along dim 0 of contiguous tensors (an embedding's lookup: rows copied
// in the widest unit their size and alignment allow), select_strided for the selections (INDEX_SELECT, GATHER) and
// put_strided for the writes (SCATTER, INDEX_PUT). Indices are int64 or int32 (index_is_64), any stride; `wrap`
// says whether negative ones count from the end (INDEX_SELECT, INDEX_PUT) or are out of range (GATHER, SCATTER).
// The accumulating forms (scatter add, index_put accumulate) need atomics these kernels do not have: the planner
// refuses them.
#include "kernels/indexing_elements.cuh"
#include "index_operand.h"
#include "kernel_layouts.h"
#include "strided_walk.h"

#define HAL_INDEX_SELECT_ROWS(name, Unit)                                                                     \
  kernel void name(global Unit* out, global const Unit* self, global const char* index, long index_stride,    \
                   int index_is_64, long rows, long units_per_row, long self_rows) {                          \
    hal_gpu::index_select_rows_body<Unit>(out, self, IndexAt{index, index_stride, index_is_64}, rows,          \
                                          units_per_row, self_rows);                                          \
  }
HAL_INDEX_SELECT_ROWS(index_select_rows_b1, uchar)
HAL_INDEX_SELECT_ROWS(index_select_rows_b2, ushort)
HAL_INDEX_SELECT_ROWS(index_select_rows_b4, uint)
HAL_INDEX_SELECT_ROWS(index_select_rows_b8, ulong)
HAL_INDEX_SELECT_ROWS(index_select_rows_b16, uint4)

// Selections along one dim, any strides: the layout walks out's shape with operand 0 out's strides, operand 1
// self's (0 along dim) and operand 2 the index's (INDEX_SELECT: its stride along dim, 0 elsewhere; GATHER: its
// own strides), so element i reads index[at[2]] and copies self's element at[1] + index * self_dim_stride, of
// `elem_size` bytes; an index out of range selects zeros.
kernel void select_strided(global char* out, global const char* self, global const char* index, int index_is_64,
                           StridedLayout l, ulong n, long self_dim_stride, long self_dim_size, int elem_size,
                           int wrap) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[3];
  offsets_of<3>(i, n, l, at);
  const int64_t k = hal_gpu::checked_index(IndexAt{index, 1, index_is_64}(at[2]), self_dim_size, wrap != 0);
  global char* dst = out + at[0] * elem_size;
  if (k < 0) hal_gpu::zero_element(dst, elem_size);
  else hal_gpu::copy_element(dst, self + (at[1] + k * self_dim_stride) * elem_size, elem_size);
}

// Writes along one dim, any strides: the layout walks the source's shape (SCATTER: the index's; INDEX_PUT: the
// values' [K, R...]) with operand 0 out's strides (0 along dim), operand 1 the index's and operand 2 the source's,
// so element i writes source element at[2] (or `value_bits`, the scalar's bytes, when src_is_value) to out's
// element at[0] + index * out_dim_stride; an index out of range writes nothing. Repeated indices keep one of the
// written values, unspecified which, as on CUDA.
kernel void put_strided(global char* out, global const char* index, global const char* src, int index_is_64,
                        StridedLayout l, ulong n, long out_dim_stride, long out_dim_size, int elem_size, int wrap,
                        int src_is_value, ulong value_bits) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[3];
  offsets_of<3>(i, n, l, at);
  const int64_t k = hal_gpu::checked_index(IndexAt{index, 1, index_is_64}(at[1]), out_dim_size, wrap != 0);
  if (k < 0) return;
  global char* dst = out + (at[0] + k * out_dim_stride) * elem_size;
  if (src_is_value == 0) {
    hal_gpu::copy_element(dst, src + at[2] * elem_size, elem_size);
  } else if (elem_size == 1) {
    *reinterpret_cast<global uchar*>(dst) = static_cast<uchar>(value_bits);
  } else if (elem_size == 2) {
    *reinterpret_cast<global ushort*>(dst) = static_cast<ushort>(value_bits);
  } else if (elem_size == 4) {
    *reinterpret_cast<global uint*>(dst) = static_cast<uint>(value_bits);
  } else {
    *reinterpret_cast<global ulong*>(dst) = value_bits;
  }
}
