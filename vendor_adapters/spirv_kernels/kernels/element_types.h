// Elements of kernel_layouts.h's ElementType loaded into float32 and stored back, for the typed kernels
// (elementwise.cl, reduce.cl) whose compute type is float32 while some operand is bool or an integer. The
// conversions are the kernel library's (tensor_access.cuh's load_as / store_from): bool is 0 or 1 and stores
// "not zero", floats become integers by truncation through int64. C++ for OpenCL only.
#pragma once

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
    default: reinterpret_cast<global float*>(p)[i] = v; break;
  }
}
