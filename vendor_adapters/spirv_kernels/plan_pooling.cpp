// Plans of the pooling module (kernels/pooling.cl): MAX_POOL2D, AVG_POOL2D, ADAPTIVE_AVG_POOL2D, ADAPTIVE_MAX_POOL2D
// and their backward ops in float32, contiguous or channels-last; the problem is read by the kernel library's
// read_pooling(), as the CUDA and HIP launch reads it. A work-item per element: y's forward, x's backward.
#include "kernels/pooling_geometry.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

using hal_gpu::pooling::Kind;

static_assert(sizeof(hal_gpu::spatial::Geometry) == 56 && sizeof(hal_gpu::pooling::Window) == 80,
              "the pooling geometry must have the size the kernels see (kernels/pooling.cl, spir64)");

const char* kernel_of(Kind kind, bool backward) {
  switch (kind) {
    case Kind::Max: return backward ? "max_pool2d_backward_f32" : "max_pool2d_f32";
    case Kind::Avg: return backward ? "avg_pool2d_backward_f32" : "avg_pool2d_f32";
    case Kind::AdaptiveAvg: return backward ? "adaptive_avg_pool2d_backward_f32" : "adaptive_avg_pool2d_f32";
    case Kind::AdaptiveMax: return backward ? "adaptive_max_pool2d_backward_f32" : "adaptive_max_pool2d_f32";
  }
  return nullptr;
}

}  // namespace

hal_status_t plan_pooling(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                          int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                          std::vector<Launch>* launches) {
  hal_gpu::pooling::Launch p;
  const char* why = nullptr;
  if (!hal_gpu::pooling::read_pooling(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &p, &why)) {
    return HAL_STATUS_NOT_SUPPORTED;
  }
  if (p.total == 0) return HAL_STATUS_SUCCESS;
  if (!is_float32(inputs[0])) return HAL_STATUS_NOT_SUPPORTED;
  // Arguments: the kernel's tensors in the op's order (inputs, then outputs), the geometry, the window where the
  // pooling has one, the element count.
  Launch l = launch_of(Module::Pooling, kernel_of(p.kind, p.backward));
  for (int32_t i = 0; i < num_inputs; ++i) add_pointer(&l, inputs[i], nullptr);
  for (int32_t i = 0; i < num_outputs; ++i) add_pointer(&l, outputs[i], nullptr);
  l.args.push_back(KernelArg::of_value(p.geometry));
  if (p.kind == Kind::Max || p.kind == Kind::Avg) l.args.push_back(KernelArg::of_value(p.window));
  l.args.push_back(KernelArg::of_value(static_cast<uint64_t>(p.total)));
  l.global[0] = static_cast<size_t>(p.total);
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
