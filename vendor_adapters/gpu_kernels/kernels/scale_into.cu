#include <algorithm>
#include <type_traits>
#include <utility>

#include "kernels/kernel_launch.h"
#include "scale_into.h"
#include "tensor_access.cuh"

namespace hal_gpu {
namespace {

// One thread per output element, grid-stride, over the dimensions left after merge_contiguous_dims (a dense
// c of the output's layout is one dimension: no division per element). Narrow: fewer than 2^31 elements,
// 32-bit indexes divided by multiply-high. One argument struct (see Operand in tensor_access.cuh: as separate
// parameters, the operands were copied to each thread's local memory, and GPT-2's tied embedding gradient, a
// 103 MB copy, took 1.5 ms on the H100). T is the compute type: float for 16- and 32-bit floats, double for
// float64.
template <class T>
struct ScaleIntoArgs {
  Shape shape;
  Divisors div;     // of shape (the Narrow kernel's)
  Operand ops[2];   // out, src
  bool has_src;
  T scale;
  int64_t n;
};

template <class T, bool Narrow>
__global__ void scale_into_kernel(ScaleIntoArgs<T> a) {
  using Index = std::conditional_t<Narrow, uint32_t, int64_t>;
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < static_cast<Index>(a.n); i += stride) {
    int64_t offsets[2];
    if constexpr (Narrow) offsets_of32<2>(i, a.shape, a.div, a.ops, offsets);
    else offsets_of<2>(i, a.shape, a.ops, offsets);
    const Operand& out = a.ops[0];
    const Operand& src = a.ops[1];
    const T v = a.has_src ? a.scale * load_as<T>(src.base + offsets[1] * src.elem_size, src.dtype) : T(0);
    store_from<T>(out.base + offsets[0] * out.elem_size, out.dtype, v);
  }
}

template <class T>
hal_status_t launch_scale_into(const Shape& shape, const Operand& o, const Operand& s, bool has_src, T scale,
                               int64_t n, int32_t device, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535));
  ScaleIntoArgs<T> args{shape, Divisors(), {o, s}, has_src, scale, n};
  if (n < (int64_t{1} << 31)) {
    args.div = divisors_of(shape);
    return launch_kernel<scale_into_kernel<T, true>>("scale_into_kernel", device, grid, kThreads, 0, stream, args);
  }
  return launch_kernel<scale_into_kernel<T, false>>("scale_into_kernel", device, grid, kThreads, 0, stream, args);
}

// The last two dimensions of `src` transposed against `out`'s (in out's memory order): out is contiguous
// along its columns, src along its rows. One thread per element would read src a row stride apart, one memory transaction per
// element: a GEMM's c term of that layout (the tied embedding's gradient under torch.compile, 50257 x 512)
// took 2.2 ms on the H100 that way. A 32 x 32 tile through shared memory reads src along its rows and writes
// out along its columns, both coalesced. blockIdx.z is the batch (3-D operands: baddbmm).
struct TransposedPlan {
  int64_t rows = 0, cols = 0;
  int64_t out_batch = 0, out_row = 0;  // out's strides (its column stride is 1)
  int64_t src_batch = 0, src_col = 0;  // src's strides (its row stride is 1)
};
constexpr int kTile = 32;
constexpr int kTileRows = 8;  // threads per block: kTile x kTileRows, each moves kTile / kTileRows elements

template <class T>
__global__ void scale_into_transposed_kernel(TransposedPlan plan, Operand out, Operand src, T scale) {
  __shared__ T tile[kTile][kTile + 1];  // +1: the column reads below hit 32 different banks
  const int64_t row0 = int64_t(blockIdx.y) * kTile, col0 = int64_t(blockIdx.x) * kTile;
  const char* src_batch = src.base + int64_t(blockIdx.z) * plan.src_batch * src.elem_size;
  char* out_batch = out.base + int64_t(blockIdx.z) * plan.out_batch * out.elem_size;
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    const int64_t row = row0 + threadIdx.x, col = col0 + j;
    if (row < plan.rows && col < plan.cols) {
      tile[threadIdx.x][j] = scale * load_as<T>(src_batch + (row + col * plan.src_col) * src.elem_size, src.dtype);
    }
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    const int64_t row = row0 + j, col = col0 + threadIdx.x;
    if (row < plan.rows && col < plan.cols) {
      store_from<T>(out_batch + (row * plan.out_row + col) * out.elem_size, out.dtype, tile[j][threadIdx.x]);
    }
  }
}

// Puts the dimensions in the order of out's memory, largest stride first, in the shape and both operands:
// consecutive threads then write consecutive addresses whatever out's layout (a column-major out, which
// Inductor hands GEMMs, would otherwise be written a column stride apart). The element each index names is
// unchanged: only the order of the walk moves.
void walk_in_memory_order_of_out(Shape* shape, Operand* out, Operand* src) {
  for (int i = 1; i < shape->ndim; ++i) {  // insertion sort: at most HAL_MAX_DIMS dimensions
    for (int j = i; j > 0 && out->strides[j - 1] < out->strides[j]; --j) {
      std::swap(shape->sizes[j - 1], shape->sizes[j]);
      std::swap(out->strides[j - 1], out->strides[j]);
      std::swap(src->strides[j - 1], src->strides[j]);
    }
  }
}

// The tiled route's plan where it applies (after walk_in_memory_order_of_out): 2-D or 3-D, out contiguous
// along its last dimension and src along the one before (neither broadcast there), and big enough for tiles
// to matter.
bool transposed_plan(const Shape& shape, const Operand& out, const Operand& src, TransposedPlan* plan) {
  const int nd = shape.ndim;
  if (nd != 2 && nd != 3) return false;
  const int64_t rows = shape.sizes[nd - 2], cols = shape.sizes[nd - 1];
  if (rows < kTile || cols < kTile || (nd == 3 && shape.sizes[0] > 65535) || (rows + kTile - 1) / kTile > 65535) {
    return false;
  }
  if (out.strides[nd - 1] != 1 || src.strides[nd - 2] != 1 || src.strides[nd - 1] < rows) return false;
  *plan = {rows, cols, nd == 3 ? out.strides[0] : 0, out.strides[nd - 2], nd == 3 ? src.strides[0] : 0,
           src.strides[nd - 1]};
  return true;
}

template <class T>
hal_status_t launch_scale_into_transposed(const TransposedPlan& plan, int64_t batch, const Operand& o, const Operand& s,
                                          T scale, int32_t device, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((plan.cols + kTile - 1) / kTile),
                  static_cast<unsigned>((plan.rows + kTile - 1) / kTile), static_cast<unsigned>(batch));
  return launch_kernel<scale_into_transposed_kernel<T>>("scale_into_transposed_kernel", device, grid,
                                                        dim3(kTile, kTileRows), 0, stream, plan, o, s, scale);
}

}  // namespace

hal_status_t scale_into(const hal_tensor_t& out, const hal_tensor_t* src, double scale, int32_t device,
                        cudaStream_t stream) {
  const int64_t n = numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;
  Shape shape = shape_of(out);
  Operand o = operand_of(out);
  Operand s = src ? operand_of(*src) : Operand{};
  walk_in_memory_order_of_out(&shape, &o, &s);
  TransposedPlan transposed;
  if (src && transposed_plan(shape, o, s, &transposed)) {
    const int64_t batch = shape.ndim == 3 ? shape.sizes[0] : 1;
    if (o.dtype == DType::F64) return launch_scale_into_transposed<double>(transposed, batch, o, s, scale, device, stream);
    return launch_scale_into_transposed<float>(transposed, batch, o, s, static_cast<float>(scale), device, stream);
  }
  Operand ops[2] = {o, s};
  merge_contiguous_dims(shape, ops, src ? 2 : 1);
  if (o.dtype == DType::F64) return launch_scale_into<double>(shape, ops[0], ops[1], src != nullptr, scale, n, device, stream);
  return launch_scale_into<float>(shape, ops[0], ops[1], src != nullptr, static_cast<float>(scale), n, device, stream);
}

}  // namespace hal_gpu
