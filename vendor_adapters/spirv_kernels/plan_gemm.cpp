// Plans of the GEMM module (kernels/gemm.cl): HAL_OP_GEMM and HAL_OP_MATMUL in float32, float16 and bfloat16
// (accumulated in float32), and float64 (float64.cl's kernel). The op's rules (shapes,
// batch broadcast, alpha/beta, beta == 0 ignoring c) are the kernel library's GEMM planner (gemm_plan.h, which
// the CUDA and HIP adapters run); the kernel then reads every operand through its own strides.
#include <cstring>

#include "kernels/gemm_plan.h"
#include "kernels/tensor_operands.h"
#include "plan_support.h"

namespace hal_spirv::detail {
namespace {

static_assert(sizeof(GemmShape) == 152, "GemmShape must match kernels/kernel_layouts.h as the kernels see it");

constexpr size_t kThreads = 16;  // kernels/gemm.cl's work-group: kThreads x kThreads work-items
constexpr size_t kBlock = 64;    // the output block of a work-group (kThreads * kWork)

// An operand's (batch, row, column) strides in a product of `batch` matrices: 2-D, or a batch of one, is one
// matrix shared by the batch (batch stride 0).
void strides_of(const hal_tensor_t& t, int64_t batch, int64_t* s) {
  const int b = t.ndim - 2;
  s[0] = b == 1 && t.shape[0] == batch && batch != 1 ? t.strides[0] : 0;
  s[1] = t.strides[b];
  s[2] = t.strides[b + 1];
}

}  // namespace

hal_status_t plan_gemm(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                       int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars,
                       std::vector<Launch>* launches) {
  // 2-D and 3-D only (strides_of below); 4-D products (attention's) are made dense and 3-D by the caller.
  if (num_outputs == 1 && outputs[0].ndim > 3) return HAL_STATUS_NOT_SUPPORTED;
  hal_gpu::GemmPlan rules;
  std::string why;
  const hal_status_t st =
      hal_gpu::plan_gemm(op, inputs, num_inputs, outputs, num_outputs, scalars, num_scalars, &rules, &why);
  if (st != HAL_STATUS_SUCCESS) return st;
  const char* kernel = nullptr;
  switch (rules.type) {
    case hal_gpu::GemmType::F32: kernel = "gemm_f32"; break;
    case hal_gpu::GemmType::F16: kernel = "gemm_f16"; break;
    case hal_gpu::GemmType::BF16: kernel = "gemm_bf16"; break;
    case hal_gpu::GemmType::F64: kernel = "gemm_f64"; break;
  }
  if (rules.empty) return HAL_STATUS_SUCCESS;
  const hal_tensor_t& a = inputs[0];
  const hal_tensor_t& b = inputs[1];
  const hal_tensor_t& out = outputs[0];
  GemmShape g{};
  g.batch = rules.batch;
  g.m = out.shape[out.ndim - 2];
  g.n = out.shape[out.ndim - 1];
  g.k = rules.k;
  strides_of(a, g.batch, g.a);
  strides_of(b, g.batch, g.b);
  strides_of(out, g.batch, g.out);
  if (rules.c != nullptr) strides_of(*rules.c, g.batch, g.c);
  g.alpha = static_cast<float>(rules.alpha);
  g.beta = static_cast<float>(rules.beta);  // 0 where there is no c (rules.c == nullptr)
  std::memcpy(&g.alpha_f64_bits, &rules.alpha, sizeof(double));
  std::memcpy(&g.beta_f64_bits, &rules.beta, sizeof(double));

  const bool doubles = rules.type == hal_gpu::GemmType::F64;
  Launch l = launch_of(doubles ? Module::Float64 : Module::Gemm, kernel);
  const void* out0 = hal_gpu::element0(out);
  add_pointer(&l, a, out0);  // K == 0: a and b may have no memory; they are not read then
  add_pointer(&l, b, out0);
  l.args.push_back(KernelArg::of_pointer(rules.c != nullptr ? hal_gpu::element0(*rules.c) : out0));
  add_pointer(&l, out, out0);
  l.args.push_back(KernelArg::of_value(g));
  l.dims = 3;
  // A work-group per kBlock x kBlock block of the output.
  l.global[0] = round_up(static_cast<size_t>(g.n), kBlock) / kBlock * kThreads;
  l.global[1] = round_up(static_cast<size_t>(g.m), kBlock) / kBlock * kThreads;
  l.global[2] = static_cast<size_t>(g.batch);
  l.local[0] = kThreads;
  l.local[1] = kThreads;
  l.local[2] = 1;
  launches->push_back(l);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_spirv::detail
