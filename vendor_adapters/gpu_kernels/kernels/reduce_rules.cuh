// The rules of the reductions that carry more than one value, written once for every compiler of the kernel library
// (nvcc and hipcc for reduce.cu, clang as C++ for OpenCL for the SPIR-V reduce modules): ARGMAX and ARGMIN (a value
// and its index: the first index on ties, NaN wins, as ATen), VAR and STD (Welford's running mean and sum of
// squared deviations, merged with Chan's formula; divided by max(0, N - correction) as PyTorch: 0/0 is NaN, x/0
// is inf).
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu {

template <class T>
struct ValueIndex {
  T value;
  int64_t index;  // -1: no element yet
};

template <class T, bool Max>
struct ArgRule {
  __device__ static ValueIndex<T> identity() { return ValueIndex<T>{T(0), -1}; }
  __device__ static ValueIndex<T> combine(ValueIndex<T> a, ValueIndex<T> b) {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value != b.value) return (Max ? a.value > b.value : a.value < b.value) ? a : b;
    return a.index < b.index ? a : b;
  }
  // The index stored for the result: 0 where there was no element (the callers refuse empty reductions).
  __device__ static int64_t result(ValueIndex<T> a) { return a.index < 0 ? 0 : a.index; }
};

template <class T>
struct Moments {
  T mean;
  T m2;
  int64_t count;
};

template <class T>
struct WelfordRule {
  __device__ static Moments<T> identity() { return Moments<T>{T(0), T(0), 0}; }
  __device__ static Moments<T> push(Moments<T> a, T v) {
    a.count += 1;
    const T delta = v - a.mean;
    a.mean += delta / static_cast<T>(a.count);
    a.m2 += delta * (v - a.mean);
    return a;
  }
  __device__ static Moments<T> combine(Moments<T> a, Moments<T> b) {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    const int64_t n = a.count + b.count;
    const T delta = b.mean - a.mean;
    const T nb_over_n = static_cast<T>(b.count) / static_cast<T>(n);
    Moments<T> r;
    r.mean = a.mean + delta * nb_over_n;
    r.m2 = a.m2 + b.m2 + delta * delta * static_cast<T>(a.count) * nb_over_n;
    r.count = n;
    return r;
  }
  // The variance (std: its square root) with `correction`.
  __device__ static T result(Moments<T> a, T correction, bool is_std) {
    const T n_minus = static_cast<T>(a.count) - correction;
    const T divisor = n_minus > T(0) ? n_minus : T(0);
    const T var = a.m2 / divisor;
    return is_std ? sqrt(var) : var;
  }
};

}  // namespace hal_gpu
