// The walk of the strided SPIR-V kernels (elementwise.cl, random.cl) from a work-item's element index to each
// operand's offset through a StridedLayout (kernel_layouts.h). C++ for OpenCL only.
#pragma once

#include "kernel_layouts.h"

using hal_spirv::StridedLayout;

// The offsets (in elements) of element i, row-major over the layout's shape, in operands 0..N-1, from one
// decomposition of i. One merged dim (dense operands, broadcast scalars) needs no division; otherwise 32-bit
// divisions where the index fits (64-bit ones cost several times more on CPUs). The remainder is computed from
// the quotient: LLVM's div/rem pairing would otherwise emit `freeze`, which llvm-spirv-15 cannot translate.
template <int N, class Index>
inline void walk(Index i, const StridedLayout& l, int64_t* offset) {
  for (int k = 0; k < N; ++k) offset[k] = 0;
  for (int d = l.ndim - 1; d >= 0; --d) {
    const Index size = static_cast<Index>(l.size[d]), q = i / size, r = i - q * size;
    for (int k = 0; k < N; ++k) offset[k] += static_cast<int64_t>(r) * l.stride[k][d];
    i = q;
  }
}

template <int N>
inline void offsets_of(uint64_t i, uint64_t n, const StridedLayout& l, int64_t* offset) {
  if (l.ndim == 1) {
    for (int k = 0; k < N; ++k) offset[k] = static_cast<int64_t>(i) * l.stride[k][0];
  } else if (n <= 0xffffffffu) {
    walk<N>(static_cast<uint32_t>(i), l, offset);
  } else {
    walk<N>(i, l, offset);
  }
}
