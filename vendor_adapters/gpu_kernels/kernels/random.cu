// UNIFORM, NORMAL, BERNOULLI and RANDPERM from a counter-based generator: Philox4x32-10 (philox.cuh, shared
// with the SPIR-V kernels).
//
// Element i of the output (row-major order of its shape) takes the four 32-bit words of Philox at counter
// offset + i with key = seed, so the values depend on (seed, offset, i) only: the same seed gives the
// same tensor on every run and every launch configuration. The core advances its offset by the element
// count after each launch, so consecutive draws never reuse a counter.
//
// UNIFORM into an integer (or bool) output draws integers uniformly from [from, to), both taken as int64
// with `to` modulo 2^64 (so to - from == 0 means the full 64-bit range): what random_ needs. Floating
// outputs get from + u * (to - from), u in [0, 1) with 24 random bits (53 for float64); a value that
// rounds up to `to` in the output's precision becomes `from`, as in ATen, so `to` is never returned.
//
// DROPOUT draws its mask and scales its input in one pass, four elements per thread from one Philox call
// (dropout_math.cuh); DROPOUT_BACKWARD scales the gradient by the mask in one pass.
//
// RANDPERM gives every position a 64-bit key: random high bits above the position itself in the low
// ceil(log2 n) bits, so keys are distinct and sorting them (a bitonic sort, shared-memory stages for the
// small strides) yields an exact permutation; ties between the random parts (rare: ~n^2 / 2^(65 - log2 n))
// keep index order.
#include <cstdint>
#include <type_traits>

#include "kernels/adapter_services.h"
#include "kernels/dropout_math.cuh"
#include "kernels/family_support.cuh"
#include "kernels/kernel_launch.h"
#include "kernels/philox.cuh"

namespace hal_gpu {
namespace {

__device__ __forceinline__ double unit_double(uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }

struct Counter {
  uint64_t seed, offset;
};

// Every elementwise random kernel's arguments, one struct (see Operand in tensor_access.cuh: separate by-value
// Shape and Operand parameters cost each thread a local copy of them, hundreds of bytes).
struct RandomArgs {
  Operand out;
  Operand p;  // BERNOULLI's probabilities (base == nullptr: the value `a`)
  Shape shape;
  bool contiguous = false;
  int64_t n = 0;
  Counter ctr{};
  double a = 0, b = 0;    // UNIFORM into floats: [a, b); NORMAL: mean a, standard deviation b; BERNOULLI: p = a
  int64_t from = 0;       // UNIFORM into integers: from + [0, range)
  uint64_t range = 0;
};

// The output position of element i: contiguous outputs skip the division walk.
__device__ __forceinline__ char* position(const Operand& out, const Shape& shape, bool contiguous, int64_t i) {
  if (contiguous) return out.base + i * out.elem_size;
  int64_t off;
  offsets_of<1>(i, shape, &out, &off);
  return out.base + off * out.elem_size;
}

// The Philox words of element i: a counter of its own, so each element draws the same values whatever the
// launch's shape.
__device__ __forceinline__ Words philox_of(const Counter& ctr, int64_t i) {
  return philox4x32_10(ctr.offset + static_cast<uint64_t>(i), ctr.seed);
}
// Where element i of the output is stored.
__device__ __forceinline__ char* out_at(const RandomArgs& args, int64_t i) {
  return position(args.out, args.shape, args.contiguous, i);
}

#define HAL_FOR_EACH_ELEMENT(i, n)                                                                \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// The floating distributions: one value of storage type T from an element's Philox words and the op's two
// parameters (args.a, args.b), written by floating_kernel.
// UNIFORM in [from, to): a value that rounds up to `to` becomes `from`.
struct Uniform {
  template <class T>
  __device__ static __forceinline__ T value(const Words& r, double from, double to) {
    T v;
    if (std::is_same<T, double>::value) {
      const double d = from + unit_double(join(r.x, r.y)) * (to - from);
      v = from_acc<T>(d >= to ? from : d);
    } else {
      const float f = static_cast<float>(from) + unit_float(r.x) * static_cast<float>(to - from);
      v = from_acc<T>(f);
      if (to_acc<double>(v) >= to) v = from_acc<T>(from);
    }
    return v;
  }
};

// NORMAL (mean, stddev) by Box-Muller: z = sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1] so the logarithm stays
// finite.
struct Normal {
  template <class T>
  __device__ static __forceinline__ T value(const Words& r, double mean, double stddev) {
    T v;
    if (std::is_same<T, double>::value) {
      const double u1 = static_cast<double>((join(r.x, r.y) >> 11) + 1) * 0x1.0p-53;
      const double u2 = unit_double(join(r.z, r.w));
      v = from_acc<T>(mean + stddev * (sqrt(-2.0 * log(u1)) * cospi(2.0 * u2)));
    } else {
      v = from_acc<T>(static_cast<float>(mean) + static_cast<float>(stddev) * normal_float(r));
    }
    return v;
  }
};

template <class T, class Distribution>
__global__ void floating_kernel(RandomArgs args) {
  const double a = args.a, b = args.b;
  HAL_FOR_EACH_ELEMENT(i, args.n) {
    *reinterpret_cast<T*>(out_at(args, i)) = Distribution::template value<T>(philox_of(args.ctr, i), a, b);
  }
}

__global__ void uniform_integer(RandomArgs args) {
  const uint64_t range = args.range;
  HAL_FOR_EACH_ELEMENT(i, args.n) {
    const Words r = philox_of(args.ctr, i);
    uint64_t draw;
    if (range == 0) draw = join(r.x, r.y);                       // the full 64-bit range
    else if (range <= (1ull << 32)) draw = r.x % range;
    else draw = join(r.x, r.y) % range;
    const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(args.from) + draw);
    store_from<int64_t>(out_at(args, i), args.out.dtype, v);
  }
}

// out = u < p, p a tensor of out's shape (p.base set) or the value `a`.
__global__ void bernoulli_kernel(RandomArgs args) {
  const Operand& p = args.p;
  HAL_FOR_EACH_ELEMENT(i, args.n) {
    const Words r = philox_of(args.ctr, i);
    double prob = args.a;
    if (p.base) {
      int64_t off;
      offsets_of<1>(i, args.shape, &p, &off);
      prob = load_as<double>(p.base + off * p.elem_size, p.dtype);
    }
    store_from<int64_t>(out_at(args, i), args.out.dtype,
                        unit_double(join(r.x, r.y)) < prob ? 1 : 0);
  }
}

// ---- dropout and its backward: a thread per four consecutive elements ----------------------------------------

// Four elements of storage type S in one access.
template <class S>
struct alignas(4 * sizeof(S)) Quad {
  S v[4];
};

template <class S> using Compute = typename std::conditional<std::is_same<S, double>::value, double, float>::type;

__device__ __forceinline__ bool quads_aligned(const void* a, const void* b, const void* mask, size_t quad_bytes) {
  return reinterpret_cast<uintptr_t>(a) % quad_bytes == 0 && reinterpret_cast<uintptr_t>(b) % quad_bytes == 0 &&
         reinterpret_cast<uintptr_t>(mask) % 4 == 0;
}

template <class S>
__global__ void dropout_kernel(const S* x, S* y, bool* mask, int64_t n, float p_keep, double scale, Counter ctr) {
  using T = Compute<S>;
  const T s = static_cast<T>(scale);
  const bool aligned = quads_aligned(x, y, mask, sizeof(Quad<S>));
  HAL_FOR_EACH_ELEMENT(q, (n + 3) / 4) {
    const KeepQuad k = dropout_keep(ctr.seed, ctr.offset, q, p_keep);
    const int64_t i = q * 4;
    if (aligned && i + 4 <= n) {
      const Quad<S> in = *reinterpret_cast<const Quad<S>*>(x + i);
      Quad<S> out;
      uint32_t bits = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        out.v[j] = from_acc<S>(dropout_value(to_acc<T>(in.v[j]), k.keep[j], s));
        bits |= static_cast<uint32_t>(k.keep[j]) << (8 * j);
      }
      *reinterpret_cast<Quad<S>*>(y + i) = out;
      *reinterpret_cast<uint32_t*>(mask + i) = bits;
    } else {
      for (int j = 0; j < 4 && i + j < n; ++j) {
        y[i + j] = from_acc<S>(dropout_value(to_acc<T>(x[i + j]), k.keep[j], s));
        mask[i + j] = k.keep[j];
      }
    }
  }
}

template <class S>
__global__ void dropout_backward_kernel(const S* dy, const bool* mask, S* dx, int64_t n, double scale) {
  using T = Compute<S>;
  const T s = static_cast<T>(scale);
  const bool aligned = quads_aligned(dy, dx, mask, sizeof(Quad<S>));
  HAL_FOR_EACH_ELEMENT(q, (n + 3) / 4) {
    const int64_t i = q * 4;
    if (aligned && i + 4 <= n) {
      const Quad<S> in = *reinterpret_cast<const Quad<S>*>(dy + i);
      const uint32_t bits = *reinterpret_cast<const uint32_t*>(mask + i);
      Quad<S> out;
#pragma unroll
      for (int j = 0; j < 4; ++j) out.v[j] = from_acc<S>(dropout_value(to_acc<T>(in.v[j]), (bits >> (8 * j)) & 0xFFu, s));
      *reinterpret_cast<Quad<S>*>(dx + i) = out;
    } else {
      for (int j = 0; j < 4 && i + j < n; ++j) dx[i + j] = from_acc<S>(dropout_value(to_acc<T>(dy[i + j]), mask[i + j], s));
    }
  }
}

// ---- randperm: keys, bitonic sort, positions ------------------------------------------------------------

__global__ void randperm_keys(uint64_t* keys, int64_t n, int64_t padded, int index_bits, Counter ctr) {
  HAL_FOR_EACH_ELEMENT(i, padded) {
    if (i >= n) {
      keys[i] = ~0ull;  // padding sorts last (real keys are smaller: see the file comment)
      continue;
    }
    const Words r = philox_of(ctr, i);
    const uint64_t random_bits = index_bits == 0 ? 0 : (join(r.x, r.y) >> index_bits) << index_bits;
    keys[i] = index_bits == 64 ? static_cast<uint64_t>(i) : (random_bits | static_cast<uint64_t>(i));
  }
}

// One compare-exchange of the bitonic network: positions lo and lo + j, ascending where (lo & k) == 0.
__device__ __forceinline__ void compare_exchange(uint64_t* a, int64_t lo, int64_t j, int64_t k) {
  const int64_t hi = lo + j;
  const uint64_t x = a[lo], y = a[hi];
  const bool ascending = (lo & k) == 0;
  if ((x > y) == ascending) {
    a[lo] = y;
    a[hi] = x;
  }
}
__device__ __forceinline__ int64_t pair_low(int64_t t, int64_t j) { return 2 * j * (t / j) + (t % j); }

// A stride j too large for one block: a thread per pair, over the whole array.
__global__ void bitonic_global(uint64_t* keys, int64_t padded, int64_t k, int64_t j) {
  HAL_FOR_EACH_ELEMENT(t, padded / 2) compare_exchange(keys, pair_low(t, j), j, k);
}

// Strides below the tile size, in shared memory: a block owns a tile of `tile` keys (tile / 2 threads).
// With full_sort it runs every stage k <= tile (sorting each tile's bitonic runs from scratch); otherwise
// the strides j < tile of stage k.
constexpr int kTile = 2048;
__global__ void bitonic_shared(uint64_t* keys, int64_t tile, int64_t k_stage, bool full_sort) {
  __shared__ uint64_t s[kTile];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * tile;
  for (int64_t e = threadIdx.x; e < tile; e += blockDim.x) s[e] = keys[base + e];
  __syncthreads();
  const int64_t k_first = full_sort ? 2 : k_stage, k_last = full_sort ? tile : k_stage;
  for (int64_t k = k_first; k <= k_last; k <<= 1) {
    for (int64_t j = (full_sort ? k : tile) >> 1; j > 0; j >>= 1) {
      const int64_t t = threadIdx.x;
      const int64_t lo = pair_low(t, j);
      const int64_t hi = lo + j;
      const uint64_t x = s[lo], y = s[hi];
      const bool ascending = ((base + lo) & k) == 0;  // direction from the global position
      if ((x > y) == ascending) {
        s[lo] = y;
        s[hi] = x;
      }
      __syncthreads();
    }
  }
  for (int64_t e = threadIdx.x; e < tile; e += blockDim.x) keys[base + e] = s[e];
}

__global__ void randperm_positions(const uint64_t* keys, Operand out, int64_t stride, int64_t n, int index_bits) {
  const uint64_t mask = index_bits >= 64 ? ~0ull : ((1ull << index_bits) - 1);
  HAL_FOR_EACH_ELEMENT(i, n) {
    store_from<int64_t>(out.base + i * stride * out.elem_size, out.dtype, static_cast<int64_t>(keys[i] & mask));
  }
}

constexpr int kThreads = 256;

Counter counter_of(const OpCall& call, int first) {
  return Counter{static_cast<uint64_t>(scalar_as_int(op_scalar(call, first))),
                 static_cast<uint64_t>(scalar_as_int(op_scalar(call, first + 1)))};
}

hal_status_t randperm(const OpCall& call) {
  if (call.num_outputs != 1 || !has_scalars(call, 2)) return fail(HAL_STATUS_NOT_SUPPORTED, "randperm: operands");
  const hal_tensor_t& out = call.outputs[0];
  const DType dt = dtype_of(out.dtype);
  if (out.ndim != 1 || (dt != DType::I64 && dt != DType::I32)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "randperm: out must be [n] int64 or int32");
  }
  const int64_t n = out.shape[0];
  if (n == 0) return HAL_STATUS_SUCCESS;
  int index_bits = 0;
  while ((int64_t{1} << index_bits) < n) ++index_bits;
  if (index_bits > 40) return fail(HAL_STATUS_NOT_SUPPORTED, "randperm: n too large");
  const int64_t padded = int64_t{1} << index_bits;
  const Counter ctr = counter_of(call, 0);
  StreamScratch scratch(call.device, call.stream, static_cast<size_t>(padded) * sizeof(uint64_t));
  if (!scratch.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "randperm: no scratch memory");
  uint64_t* keys = scratch.as<uint64_t>();
  if (hal_status_t s = launch_kernel<randperm_keys>("randperm_keys", call.device, grid_for(padded, kThreads), kThreads,
                                                    0, call.stream, keys, n, padded, index_bits, ctr);
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (padded > 1) {
    const int64_t tile = padded < kTile ? padded : kTile;
    const unsigned tiles = static_cast<unsigned>(padded / tile);
    const unsigned tile_threads = static_cast<unsigned>(tile / 2);
    if (hal_status_t s = launch_kernel<bitonic_shared>("bitonic_shared", call.device, tiles, tile_threads, 0,
                                                       call.stream, keys, tile, 0, true);
        s != HAL_STATUS_SUCCESS) {
      return s;
    }
    for (int64_t k = 2 * tile; k <= padded; k <<= 1) {
      for (int64_t j = k >> 1; j >= tile; j >>= 1) {
        if (hal_status_t s =
                launch_kernel<bitonic_global>("bitonic_global", call.device, grid_for(padded / 2, kThreads), kThreads,
                                              0, call.stream, keys, padded, k, j);
            s != HAL_STATUS_SUCCESS) {
          return s;
        }
      }
      if (hal_status_t s = launch_kernel<bitonic_shared>("bitonic_shared", call.device, tiles, tile_threads, 0,
                                                         call.stream, keys, tile, k, false);
          s != HAL_STATUS_SUCCESS) {
        return s;
      }
    }
  }
  return launch_kernel<randperm_positions>("randperm_positions", call.device, grid_for(n, kThreads), kThreads, 0,
                                           call.stream, keys, operand_of(out), out.strides[0], n, index_bits);
}

template <class T>
hal_status_t launch_typed(const OpCall& call, RandomArgs args) {
  args.a = scalar_as_double(op_scalar(call, 0));
  args.b = scalar_as_double(op_scalar(call, 1));
  const unsigned grid = grid_for(args.n, kThreads);
  if (call.op == HAL_OP_UNIFORM) {
    return launch_kernel<floating_kernel<T, Uniform>>("uniform", call.device, grid, kThreads, 0, call.stream, args);
  }
  return launch_kernel<floating_kernel<T, Normal>>("normal", call.device, grid, kThreads, 0, call.stream, args);
}

// One flat dense operand of `n` elements (DROPOUT's: adapter_ops.def).
bool flat(const hal_tensor_t& t, int64_t n) {
  return t.ndim == 1 && t.shape[0] == n && (n <= 1 || t.strides[0] == 1) && t.data != nullptr;
}

hal_status_t dropout(const OpCall& call) {
  const bool forward = call.op == HAL_OP_DROPOUT;
  if (!has_operands(call, forward ? 1 : 2, forward ? 2 : 1, forward ? 3 : 1)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& in = call.inputs[0];
  if (in.ndim != 1) return HAL_STATUS_NOT_SUPPORTED;
  const int64_t n = in.shape[0];
  const hal_tensor_t& out = call.outputs[0];
  const hal_tensor_t& mask = forward ? call.outputs[1] : call.inputs[1];
  const DType dt = dtype_of(in.dtype);
  if (!flat(in, n) || !flat(out, n) || !flat(mask, n) || dtype_of(out.dtype) != dt ||
      dtype_of(mask.dtype) != DType::Bool) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (n == 0) return HAL_STATUS_SUCCESS;
  const unsigned grid = grid_for((n + 3) / 4, kThreads);
  auto run = [&](auto zero) -> hal_status_t {
    using S = decltype(zero);
    const S* x = reinterpret_cast<const S*>(element0(in));
    S* y = reinterpret_cast<S*>(element0(out));
    bool* m = reinterpret_cast<bool*>(element0(mask));
    if (forward) {
      const double p_keep = scalar_as_double(op_scalar(call, 0));
      return launch_kernel<dropout_kernel<S>>("dropout", call.device, grid, kThreads, 0, call.stream, x, y, m, n,
                                              static_cast<float>(p_keep), 1.0 / p_keep, counter_of(call, 1));
    }
    return launch_kernel<dropout_backward_kernel<S>>("dropout_backward", call.device, grid, kThreads, 0, call.stream,
                                                     x, m, y, n, scalar_as_double(op_scalar(call, 0)));
  };
  switch (dt) {
    case DType::F32: return run(float{});
    case DType::F16: return run(__half{});
    case DType::BF16: return run(__nv_bfloat16{});
    case DType::F64: return run(double{});
    default: return HAL_STATUS_NOT_SUPPORTED;
  }
}

}  // namespace

hal_status_t launch_random(const OpCall& call) {
  if (call.op == HAL_OP_RANDPERM) return randperm(call);
  if (call.op == HAL_OP_DROPOUT || call.op == HAL_OP_DROPOUT_BACKWARD) return dropout(call);
  if (call.op != HAL_OP_UNIFORM && call.op != HAL_OP_NORMAL && call.op != HAL_OP_BERNOULLI) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "random: unknown op");
  }
  if (call.num_outputs != 1) return fail(HAL_STATUS_NOT_SUPPORTED, "random: one output expected");
  const hal_tensor_t& out = call.outputs[0];
  const DType dt = dtype_of(out.dtype);
  if (out.ndim < 0 || dt == DType::Unsupported) return fail(HAL_STATUS_NOT_SUPPORTED, "random: unsupported output");
  const int64_t n = numel(out);
  RandomArgs args;
  args.out = operand_of(out);
  args.shape = shape_of(out);
  args.contiguous = is_contiguous(out);
  args.n = n;

  if (call.op == HAL_OP_BERNOULLI) {
    if (call.num_inputs != 1) return fail(HAL_STATUS_NOT_SUPPORTED, "bernoulli: p expected");
    const hal_tensor_t& p = call.inputs[0];
    const bool scalar_p = is_scalar_operand(p);
    const int first = scalar_p ? 1 : 0;
    if (!has_scalars(call, first + 2)) return fail(HAL_STATUS_NOT_SUPPORTED, "bernoulli: missing scalars");
    if (!scalar_p) {
      if (p.ndim != out.ndim || dtype_of(p.dtype) == DType::Unsupported) {
        return fail(HAL_STATUS_NOT_SUPPORTED, "bernoulli: p must have out's shape");
      }
      for (int d = 0; d < out.ndim; ++d) {
        if (p.shape[d] != out.shape[d]) return fail(HAL_STATUS_NOT_SUPPORTED, "bernoulli: p must have out's shape");
      }
    }
    if (n == 0) return HAL_STATUS_SUCCESS;
    args.a = scalar_p ? scalar_as_double(call.scalars[0]) : 0.0;
    if (!scalar_p) args.p = operand_of(p);
    args.ctr = counter_of(call, first);
    return launch_kernel<bernoulli_kernel>("bernoulli", call.device, grid_for(n, kThreads), kThreads, 0, call.stream,
                                           args);
  }

  if (call.num_inputs != 0 || !has_scalars(call, 4)) return fail(HAL_STATUS_NOT_SUPPORTED, "random: operands");
  if (n == 0) return HAL_STATUS_SUCCESS;
  args.ctr = counter_of(call, 2);
  switch (dt) {
    case DType::F32: return launch_typed<float>(call, args);
    case DType::F16: return launch_typed<__half>(call, args);
    case DType::BF16: return launch_typed<__nv_bfloat16>(call, args);
    case DType::F64: return launch_typed<double>(call, args);
    default: break;
  }
  if (call.op == HAL_OP_NORMAL) return fail(HAL_STATUS_NOT_SUPPORTED, "normal: floating outputs only");
  args.from = scalar_as_int(op_scalar(call, 0));
  args.range = static_cast<uint64_t>(scalar_as_int(op_scalar(call, 1))) - static_cast<uint64_t>(args.from);
  return launch_kernel<uniform_integer>("uniform_integer", call.device, grid_for(n, kThreads), kThreads, 0, call.stream,
                                        args);
}

}  // namespace hal_gpu
