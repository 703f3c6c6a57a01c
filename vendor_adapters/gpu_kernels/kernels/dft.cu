// DFT (adapter_ops.def): a thread per output element of [outer, n_out, inner], summing its line by dft.cuh's
// definition. The line of output (o, k, r) is input (o, j, r) for every j, `inner` elements apart; consecutive
// threads differ in r (coalesced reads along inner) or, for inner 1, in k (every thread of a warp reads the same x_j).
// The sums accumulate in double (dft.cuh).

#include "kernels/dft.cuh"
#include "kernels/dft_geometry.h"
#include "kernels/gpu_runtime.h"
#include "kernels/kernel_launch.h"
#include "kernels/launch_config.cuh"
#include "kernels/op_call.h"
#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace {

constexpr int kThreads = 256;

struct DftArgs {
  const float* in;
  float* out;
  uint32_t outputs, n_out, inner, n_in;
  int32_t n, sign;
  float scale;
  bool complex_in, complex_out;
};

__global__ void __launch_bounds__(kThreads) dft_kernel(DftArgs a) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.outputs; i += stride) {
    const uint32_t line = i / a.inner, r = i - line * a.inner;
    const uint32_t o = line / a.n_out, k = line - o * a.n_out;
    const uint32_t c_in = a.complex_in ? 2u : 1u;
    const float* x = a.in + (o * a.n_in * a.inner + r) * c_in;
    const uint32_t step = a.inner * c_in;
    const bool complex_in = a.complex_in;
    auto load = [=](int32_t j) {
      const float* e = x + static_cast<uint32_t>(j) * step;
      return DftValue<float>{e[0], complex_in ? e[1] : 0.0f};
    };
    if (a.complex_out) {
      const DftValue<float> y = dft_complex_element<double>(load, static_cast<int32_t>(a.n_in), a.n,
                                                            static_cast<int32_t>(k), a.sign, a.scale);
      a.out[2 * i] = y.re;
      a.out[2 * i + 1] = y.im;
    } else {
      a.out[i] = dft_hermitian_real_element<double>(load, static_cast<int32_t>(a.n_in), a.n, static_cast<int32_t>(k),
                                                    a.sign, a.scale);
    }
  }
}

}  // namespace

hal_status_t launch_dft(const OpCall& call) {
  DftProblem p;
  if (call.op != HAL_OP_DFT ||
      !dft_problem_of(call.inputs, call.num_inputs, call.outputs, call.num_outputs, call.scalars, call.num_scalars,
                      &p)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (p.outputs == 0) return HAL_STATUS_SUCCESS;
  DftArgs a;
  a.in = reinterpret_cast<const float*>(element0(call.inputs[0]));
  a.out = reinterpret_cast<float*>(element0(call.outputs[0]));
  a.outputs = static_cast<uint32_t>(p.outputs);
  a.n_out = static_cast<uint32_t>(p.n_out);
  a.inner = static_cast<uint32_t>(p.inner);
  a.n_in = static_cast<uint32_t>(p.n_in);
  a.n = p.n;
  a.sign = p.sign;
  a.scale = p.scale;
  a.complex_in = p.complex_in;
  a.complex_out = p.complex_out;
  const unsigned grid = grid_for(p.outputs, kThreads, call.device);
  return launch_kernel<dft_kernel>("dft", call.device, grid, kThreads, 0, call.stream, a);
}

}  // namespace hal_gpu
