// Elements of kernel_layouts.h's ElementType loaded into the compute type and stored back, for the typed kernels
// (elementwise.cl, reduce.cl, scan.cl): float32 where some operand is floating (the others bool or integers),
// int64 where every operand is bool or an integer (the kernel library's compute types, adapter_ops.h). The
// conversions are the kernel library's (tensor_access.cuh's load_as / store_from): bool is 0 or 1 and stores
// "not zero", floats become integers by truncation through int64, float16 and bfloat16 round to nearest even
// (../../gpu_kernels/kernels/half_bits.h). C++ for OpenCL only.
#pragma once

#include "kernels/half_bits.h"
#include "kernel_layouts.h"

// The type of operand k in a packed int of types (kernel_layouts.h).
inline int type_of(uint32_t types, int k) { return static_cast<int>((types >> (8 * k)) & 0xffu); }

// Out of line: inlined into the typed kernels, its branches end up after the blocks of the op that uses the value,
// an order llvm-spirv-15 writes as it is and spirv-val rejects ("ID has not been defined").
inline __attribute__((noinline)) float load_float(const global char* p, int type, int64_t i) {
  switch (type) {
    case hal_spirv::kBool:
    case hal_spirv::kU8: return static_cast<float>(reinterpret_cast<const global uchar*>(p)[i]);
    case hal_spirv::kI8: return static_cast<float>(reinterpret_cast<const global char*>(p)[i]);
    case hal_spirv::kI16: return static_cast<float>(reinterpret_cast<const global short*>(p)[i]);
    case hal_spirv::kI32: return static_cast<float>(reinterpret_cast<const global int*>(p)[i]);
    case hal_spirv::kI64: return static_cast<float>(reinterpret_cast<const global long*>(p)[i]);
    case hal_spirv::kF16: return hal_gpu::float_of_float16(reinterpret_cast<const global ushort*>(p)[i]);
    case hal_spirv::kBF16: return hal_gpu::float_of_bfloat16(reinterpret_cast<const global ushort*>(p)[i]);
    default: return reinterpret_cast<const global float*>(p)[i];
  }
}

__forceinline__ void store_float(global char* p, int type, int64_t i, float v) {
  const long whole = static_cast<long>(v);
  switch (type) {
    case hal_spirv::kBool: reinterpret_cast<global uchar*>(p)[i] = v != 0.0f ? 1 : 0; break;
    case hal_spirv::kU8: reinterpret_cast<global uchar*>(p)[i] = static_cast<uchar>(whole); break;
    case hal_spirv::kI8: reinterpret_cast<global char*>(p)[i] = static_cast<char>(whole); break;
    case hal_spirv::kI16: reinterpret_cast<global short*>(p)[i] = static_cast<short>(whole); break;
    case hal_spirv::kI32: reinterpret_cast<global int*>(p)[i] = static_cast<int>(whole); break;
    case hal_spirv::kI64: reinterpret_cast<global long*>(p)[i] = whole; break;
    case hal_spirv::kF16: reinterpret_cast<global ushort*>(p)[i] = hal_gpu::float16_of_float(v); break;
    case hal_spirv::kBF16: reinterpret_cast<global ushort*>(p)[i] = hal_gpu::bfloat16_of_float(v); break;
    default: reinterpret_cast<global float*>(p)[i] = v; break;
  }
}

// An element of an integer or bool type as int64.
inline __attribute__((noinline)) long load_long(const global char* p, int type, int64_t i) {
  switch (type) {
    case hal_spirv::kBool:
    case hal_spirv::kU8: return static_cast<long>(reinterpret_cast<const global uchar*>(p)[i]);
    case hal_spirv::kI8: return static_cast<long>(reinterpret_cast<const global char*>(p)[i]);
    case hal_spirv::kI16: return static_cast<long>(reinterpret_cast<const global short*>(p)[i]);
    case hal_spirv::kI32: return static_cast<long>(reinterpret_cast<const global int*>(p)[i]);
    default: return reinterpret_cast<const global long*>(p)[i];
  }
}

// int64 stored into an integer or bool type: two's complement truncation, bool "not zero".
__forceinline__ void store_long(global char* p, int type, int64_t i, long v) {
  switch (type) {
    case hal_spirv::kBool: reinterpret_cast<global uchar*>(p)[i] = v != 0 ? 1 : 0; break;
    case hal_spirv::kU8: reinterpret_cast<global uchar*>(p)[i] = static_cast<uchar>(v); break;
    case hal_spirv::kI8: reinterpret_cast<global char*>(p)[i] = static_cast<char>(v); break;
    case hal_spirv::kI16: reinterpret_cast<global short*>(p)[i] = static_cast<short>(v); break;
    case hal_spirv::kI32: reinterpret_cast<global int*>(p)[i] = static_cast<int>(v); break;
    default: reinterpret_cast<global long*>(p)[i] = v; break;
  }
}

// float64 loads and stores, for float64.cl's kernels alone (a module that uses double needs a device with fp64).
// Other types convert as the CUDA kernels' load_as/store_from do: float16 and bfloat16 through float32, integers
// through int64.
inline __attribute__((noinline)) double load_double(const global char* p, int type, int64_t i) {
  if (type == hal_spirv::kF64) return reinterpret_cast<const global double*>(p)[i];
  if (type == hal_spirv::kF32 || type == hal_spirv::kF16 || type == hal_spirv::kBF16) {
    return static_cast<double>(load_float(p, type, i));
  }
  return static_cast<double>(load_long(p, type, i));  // integers exactly (int32 does not fit float32)
}

__forceinline__ void store_double(global char* p, int type, int64_t i, double v) {
  switch (type) {
    case hal_spirv::kF64: reinterpret_cast<global double*>(p)[i] = v; break;
    case hal_spirv::kF32:
    case hal_spirv::kF16:
    case hal_spirv::kBF16: store_float(p, type, i, static_cast<float>(v)); break;
    case hal_spirv::kBool: reinterpret_cast<global uchar*>(p)[i] = v != 0.0 ? 1 : 0; break;
    default: store_long(p, type, i, static_cast<long>(v)); break;
  }
}

// The loads and stores by compute type, for the kernels templated on it.
template <class T>
inline T load_as(const global char* p, int type, int64_t i);
template <>
inline float load_as<float>(const global char* p, int type, int64_t i) { return load_float(p, type, i); }
template <>
inline long load_as<long>(const global char* p, int type, int64_t i) { return load_long(p, type, i); }
template <>
inline double load_as<double>(const global char* p, int type, int64_t i) { return load_double(p, type, i); }
inline void store_as(global char* p, int type, int64_t i, float v) { store_float(p, type, i, v); }
inline void store_as(global char* p, int type, int64_t i, long v) { store_long(p, type, i, v); }
inline void store_as(global char* p, int type, int64_t i, double v) { store_double(p, type, i, v); }
