// DFT for the runtimes that take SPIR-V: the kernel library's transform (gpu_kernels/kernels/dft.cuh, the same
// source the CUDA and HIP kernels compile), a work-item per output element of [outer, n_out, inner], as dft.cu
// walks them, accumulating in float (devices that run SPIR-V may lack float64). plan_dft.cpp checks the operands
// (dft_geometry.h).
#include "kernels/dft.cuh"

kernel void dft_f32(global const float* in, global float* out, uint outputs, uint n_out, uint inner, uint n_in, int n,
                    int sign, float scale, int complex_in, int complex_out) {
  const uint i = get_global_id(0);
  if (i >= outputs) return;
  const uint line = i / inner;
  const uint r = i - line * inner;
  const uint o = line / n_out;
  const uint k = line - o * n_out;
  const uint c_in = complex_in != 0 ? 2u : 1u;
  global const float* x = in + (o * n_in * inner + r) * c_in;
  const uint step = inner * c_in;
  auto load = [=](int32_t j) {
    global const float* e = x + static_cast<uint>(j) * step;
    return hal_gpu::DftValue<float>{e[0], complex_in != 0 ? e[1] : 0.0f};
  };
  if (complex_out != 0) {
    const hal_gpu::DftValue<float> y =
        hal_gpu::dft_complex_element<float>(load, static_cast<int32_t>(n_in), n, static_cast<int32_t>(k), sign, scale);
    out[2 * i] = y.re;
    out[2 * i + 1] = y.im;
  } else {
    out[i] = hal_gpu::dft_hermitian_real_element<float>(load, static_cast<int32_t>(n_in), n, static_cast<int32_t>(k),
                                                        sign, scale);
  }
}
