// float16 and bfloat16 as bits, converted to and from float32 by integer arithmetic, for the compilers that have
// no half type of their own here: C++ for OpenCL (the SPIR-V kernels: half arithmetic, cl_khr_fp16, is optional)
// and host C++ (the SPIR-V launch plans convert FILL's value). Rounding is to nearest, ties to even, as c10::Half
// and c10::BFloat16 round; a NaN stays a quiet NaN and values past the largest finite one become infinities.
#pragma once

#if !defined(__OPENCL_CPP_VERSION__)
#include <cstdint>
#include <cstring>
#endif

namespace hal_gpu {

#if defined(__OPENCL_CPP_VERSION__)
inline uint32_t bits_of_float(float v) { return as_uint(v); }
inline float float_of_bits(uint32_t bits) { return as_float(bits); }
#else
inline uint32_t bits_of_float(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}
inline float float_of_bits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}
#endif

// bfloat16 is float32's high half.
inline float float_of_bfloat16(uint16_t bits) { return float_of_bits(static_cast<uint32_t>(bits) << 16); }
inline uint16_t bfloat16_of_float(float v) {
  if (v != v) return 0x7fc0;
  const uint32_t bits = bits_of_float(v);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// Every case computed, then selected: branches on the exponent become a switch that LLVM narrows to an i15, which
// llvm-spirv-15 rejects.
inline float float_of_float16(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t magnitude = bits & 0x7fffu, exponent_bits = bits & 0x7c00u;
  // zero or subnormal: mantissa * 2^-24, exact in float32
  const uint32_t subnormal = bits_of_float(static_cast<float>(magnitude) * 5.9604644775390625e-8f);
  const uint32_t special = 0x7f800000u | ((bits & 0x3ffu) << 13);  // infinity, NaN
  const uint32_t normal = (magnitude << 13) + 0x38000000u;          // the exponent rebiased by 127 - 15
  return float_of_bits(sign | (exponent_bits == 0 ? subnormal : exponent_bits == 0x7c00u ? special : normal));
}

inline uint16_t float16_of_float(float v) {
  uint32_t bits = bits_of_float(v);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  bits &= 0x7fffffffu;
  if (bits > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (bits >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65536, infinity: infinity
  if (bits < 0x38800000u) {
    // Below float16's smallest normal (2^-14): adding 0.5 lines the subnormal's bits up at the bottom of the
    // float32 mantissa, and the float32 addition rounds them to nearest even.
    const uint32_t aligned = bits_of_float(float_of_bits(bits) + 0.5f) - 0x3f000000u;
    return static_cast<uint16_t>(sign | aligned);
  }
  // Rebias the exponent and round the 13 dropped mantissa bits to nearest even; a carry out of the mantissa
  // steps the exponent (65520 and up become infinity).
  const uint32_t odd = (bits >> 13) & 1u;
  bits += 0xc8000fffu + odd;  // (15 - 127) << 23, plus the rounding
  return static_cast<uint16_t>(sign | (bits >> 13));
}

}  // namespace hal_gpu
