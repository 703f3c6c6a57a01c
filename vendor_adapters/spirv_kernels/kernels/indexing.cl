// INDEX_SELECT of any dtype for the runtimes that take SPIR-V: the entry points around the kernel library's
// indexing rules and row selection (gpu_kernels/kernels/indexing_elements.cuh, the same source the CUDA and HIP
// kernels compile). plan_indexing.cpp launches the row kernels for dim 0 of contiguous tensors (an embedding's
// lookup: rows copied in the widest unit their size and alignment allow) and the strided kernel otherwise.
// Indices are int64 or int32 (index_is_64), any stride.
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

// Any dim, any strides: the layout walks out's shape with operand 0 out's strides, operand 1 self's (0 along dim)
// and operand 2 the index's (its stride along dim, 0 elsewhere), so element i reads index[at[2]] and copies self's
// element at[1] + index * self_dim_stride, of `elem_size` bytes.
kernel void index_select_strided(global char* out, global const char* self, global const char* index,
                                 int index_is_64, StridedLayout l, ulong n, long self_dim_stride, long self_dim_size,
                                 int elem_size) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  int64_t at[3];
  offsets_of<3>(i, n, l, at);
  const int64_t k = hal_gpu::checked_index(IndexAt{index, 1, index_is_64}(at[2]), self_dim_size, true);
  global char* dst = out + at[0] * elem_size;
  if (k < 0) hal_gpu::zero_element(dst, elem_size);
  else hal_gpu::copy_element(dst, self + (at[1] + k * self_dim_stride) * elem_size, elem_size);
}
