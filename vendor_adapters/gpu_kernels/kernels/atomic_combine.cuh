// Atomic read-combine-write of one element of any dtype, for the reductions that have no hardware atomic
// (SCATTER's multiply, amax and amin, and its add of the dtypes without an atomic add: int8, uint8, int16, bool): a compare-and-swap loop on the element itself (4 and 8 bytes) or on the
// aligned 32-bit word that holds it (1 and 2 bytes, the rest of the word kept). CUDA and HIP.
#pragma once

#include <cstdint>

#include "kernels/elementwise_ops.cuh"
#include "kernels/gpu_runtime.h"
#include "kernels/tensor_access.cuh"

namespace hal_gpu {

// SCATTER's reduce scalar (adapter_ops.def).
enum ScatterReduce : int64_t {
  kScatterSet = 0,
  kScatterAdd = 1,
  kScatterMultiply = 2,
  kScatterMax = 3,
  kScatterMin = 4,
};

// current (x) incoming under `reduce`: the sum, the product, or the maximum / minimum with NaN winning (as ATen's
// scatter_reduce); computed in T (double for floating dtypes: exact for their products before the one rounding
// to the dtype; int64 for integers and bool, whose 0/1 values multiply and compare as logical and/or).
template <class T>
__device__ __forceinline__ T combine_reduce(int64_t reduce, T current, T incoming) {
  if (reduce == kScatterAdd) return current + incoming;
  if (reduce == kScatterMultiply) return current * incoming;
  return reduce == kScatterMax ? ew::max_nan(current, incoming) : ew::min_nan(current, incoming);
}

// The bits of an element of `size` bytes at p, replaced by new_bits where they still equal old_bits; returns
// the bits found (old_bits on success).
__device__ __forceinline__ uint64_t compare_and_swap(char* p, int size, uint64_t old_bits, uint64_t new_bits) {
  if (size == 8) {
    return atomicCAS(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(old_bits),
                     static_cast<unsigned long long>(new_bits));
  }
  if (size == 4) {
    return atomicCAS(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(old_bits),
                     static_cast<unsigned int>(new_bits));
  }
  // 1 or 2 bytes: the aligned word holding them, its other bytes as they are.
  auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{3});
  const unsigned int shift = static_cast<unsigned int>(reinterpret_cast<uintptr_t>(p) & 3) * 8u;
  const unsigned int mask = (size == 1 ? 0xFFu : 0xFFFFu) << shift;
  unsigned int seen = *word;
  for (;;) {
    if (((seen & mask) >> shift) != static_cast<unsigned int>(old_bits)) return (seen & mask) >> shift;
    const unsigned int wanted = (seen & ~mask) | (static_cast<unsigned int>(new_bits) << shift);
    const unsigned int found = atomicCAS(word, seen, wanted);
    if (found == seen) return old_bits;
    seen = found;  // another byte of the word changed, or ours did: look again
  }
}

__device__ __forceinline__ uint64_t load_bits(const char* p, int size) {
  uint64_t bits = 0;
  for (int b = 0; b < size; ++b) bits |= static_cast<uint64_t>(static_cast<unsigned char>(p[b])) << (8 * b);
  return bits;
}

// *p = combine_reduce(reduce, *p, incoming) atomically, for an element of dtype d computed in T.
template <class T>
__device__ __forceinline__ void atomic_combine(char* p, DType d, int size, int64_t reduce, T incoming) {
  uint64_t old_bits = load_bits(p, size);
  for (;;) {
    char value[8] = {};
    for (int b = 0; b < size; ++b) value[b] = static_cast<char>(old_bits >> (8 * b));
    store_from<T>(value, d, combine_reduce<T>(reduce, load_as<T>(value, d), incoming));
    const uint64_t new_bits = load_bits(value, size);
    if (new_bits == old_bits) return;  // nothing to change (e.g. the maximum is already there)
    const uint64_t found = compare_and_swap(p, size, old_bits, new_bits);
    if (found == old_bits) return;
    old_bits = found;
  }
}

}  // namespace hal_gpu
