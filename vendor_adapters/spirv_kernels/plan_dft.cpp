// Plans of the DFT module (kernels/dft.cl): the kernel library's transform, with the operand checks dft.cu makes
// (dft_geometry.h), a work-item per output element.
#include "kernels/dft_geometry.h"
#include "plan_support.h"

namespace hal_spirv::detail {

hal_status_t plan_dft(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                      int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                      std::vector<Launch>* launches) {
  hal_gpu::DftProblem p;
  if (op != HAL_OP_DFT ||
      !hal_gpu::dft_problem_of(inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &p)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (p.outputs == 0) return HAL_STATUS_SUCCESS;
  // Arguments: (in, out, outputs, n_out, inner, n_in, n, sign, scale, complex_in, complex_out).
  Launch l = launch_of(Module::Dft, "dft_f32");
  add_pointer(&l, inputs[0], nullptr);
  add_pointer(&l, outputs[0], nullptr);
  l.args.push_back(KernelArg::of_value(static_cast<uint32_t>(p.outputs)));
  l.args.push_back(KernelArg::of_value(static_cast<uint32_t>(p.n_out)));
  l.args.push_back(KernelArg::of_value(static_cast<uint32_t>(p.inner)));
  l.args.push_back(KernelArg::of_value(static_cast<uint32_t>(p.n_in)));
  l.args.push_back(KernelArg::of_value(p.n));
  l.args.push_back(KernelArg::of_value(p.sign));
  l.args.push_back(KernelArg::of_value(p.scale));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(p.complex_in)));
  l.args.push_back(KernelArg::of_value(static_cast<int32_t>(p.complex_out)));
  l.global[0] = static_cast<size_t>(p.outputs);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
