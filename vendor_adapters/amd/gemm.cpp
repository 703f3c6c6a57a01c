// HAL_OP_MATMUL and HAL_OP_GEMM through rocBLAS (loaded with dlopen, rocblas_api.h): gemm_plan decides the
// call, as for cuBLAS on NVIDIA, and this file makes it. A bias vector (addmm, nn.Linear) goes to hipBLASLt's
// bias epilogue where hipBLASLt is installed (one kernel); otherwise, as rocBLAS has no epilogue, c is
// copied into the output first and added in place (beta), on the op's stream.
#include <string>

#include "adapter_context.h"
#include "kernels/gemm_plan.h"
#include "kernels/gemm_prologue.h"
#include "kernels/op_call.h"
#include "kernels/adapter_services.h"
#include "kernels/scale_into.h"
#include "kernels/stream_scratch_cache.h"
#include "rocblas_api.h"

namespace hal_amd {
namespace {

int rocblas_type(hal_gpu::GemmType type) {
  switch (type) {
    case hal_gpu::GemmType::F16: return kRocblasF16;
    case hal_gpu::GemmType::BF16: return kRocblasBF16;
    case hal_gpu::GemmType::F64: return kRocblasF64;
    case hal_gpu::GemmType::F32: break;
  }
  return kRocblasF32;
}

hal_status_t run_rocblas(const RocblasApi& api, rocblas_handle handle, const hal_gpu::GemmPlan& p) {
  // FP32 accumulation for every float type up to 32 bits, as torch.cuda's defaults; FP64 in FP64. alpha
  // and beta have the compute type.
  const bool f64 = p.type == hal_gpu::GemmType::F64;
  const float alpha_f = static_cast<float>(p.alpha), beta_f = static_cast<float>(p.beta);
  const void* alpha = f64 ? static_cast<const void*>(&p.alpha) : &alpha_f;
  const void* beta = f64 ? static_cast<const void*>(&p.beta) : &beta_f;
  const int type = rocblas_type(p.type);
  const int op_a = p.first.transpose ? kRocblasOpTranspose : kRocblasOpNone;
  const int op_b = p.second.transpose ? kRocblasOpTranspose : kRocblasOpNone;
  const rocblas_status status = api.gemm_strided_batched_ex(
      handle, op_a, op_b, static_cast<int32_t>(p.m), static_cast<int32_t>(p.n), static_cast<int32_t>(p.k), alpha,
      p.first.data, type, static_cast<int32_t>(p.first.ld), p.first.batch_stride, p.second.data, type,
      static_cast<int32_t>(p.second.ld), p.second.batch_stride, beta, p.out, type, static_cast<int32_t>(p.ld_out),
      p.batch_stride_out, p.out, type, static_cast<int32_t>(p.ld_out), p.batch_stride_out,
      static_cast<int32_t>(p.batch), f64 ? kRocblasF64 : kRocblasF32, kRocblasGemmStandard, 0, 0);
  if (status == kRocblasSuccess) return HAL_STATUS_SUCCESS;
  return fail(status == kRocblasMemoryError ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR,
              std::string("rocblas_gemm_strided_batched_ex: ") + api.status_to_string(status));
}

// The bias through hipBLASLt's epilogue, one kernel, with the stream's scratch as its workspace.
// NOT_SUPPORTED (nothing queued, no message) where hipBLASLt is missing or declines the problem.
hal_status_t try_lt_bias_gemm(DeviceState& device, const hal_gpu::OpCall& call, const hal_gpu::GemmPlan& plan) {
  const HipblasLtApi* lt = hipblaslt(nullptr);
  if (!lt) return HAL_STATUS_NOT_SUPPORTED;
  if (!device.blas_lt) {
    hipblasLtHandle_t made = nullptr;
    if (lt->create(&made) != kHipblasSuccess) return HAL_STATUS_NOT_SUPPORTED;
    device.blas_lt = hal_gpu::LibraryHandle<void>(made, {lt->destroy});
  }
  const hal_gpu::StreamScratch workspace(call.device, call.stream, hal_gpu::kRetainedScratchBytes);
  if (!workspace.ok()) return HAL_STATUS_NOT_SUPPORTED;
  return run_lt_bias_gemm(*lt, device.blas_lt.get(), device.lt_bias_gemms, plan, workspace.as<void>(),
                          hal_gpu::kRetainedScratchBytes, reinterpret_cast<hipStream_t>(call.stream));
}

}  // namespace
}  // namespace hal_amd

// The kernel library's GEMM entry point (kernels/op_call.h), which each adapter gives its vendor's BLAS.
namespace hal_gpu {

hal_status_t launch_gemm(const OpCall& call) {
  GemmPlan plan;
  bool done = false;
  if (hal_status_t s = plan_or_finish_gemm(call, "AMD", &plan, &done); s != HAL_STATUS_SUCCESS || done) return s;
  // rocBLAS's pointer-array call is not wired in yet: the caller makes such operands dense (attention_by_gemm).
  if (plan.group_size) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "AMD GEMM: 4-D operands whose batch dims do not merge into one stride");
  }
  const hal_tensor_t& out = call.outputs[0];
  std::string why;
  // What can refuse (NOT_SUPPORTED must leave no trace) comes before the first write to `out`.
  const hal_amd::RocblasApi* api = hal_amd::rocblas(&why);
  if (!api) return fail(HAL_STATUS_NOT_SUPPORTED, why);
  hal_amd::DeviceState& device = hal_amd::device_state(call.device);
  std::lock_guard<std::mutex> lock(device.blas_mutex);
  if (plan.bias) {
    if (hal_status_t s = hal_amd::try_lt_bias_gemm(device, call, plan); s != HAL_STATUS_NOT_SUPPORTED) return s;
  }
  hal_amd::rocblas_handle handle = device.blas.get(*api, &why);
  if (!handle) return fail(HAL_STATUS_NOT_SUPPORTED, why);
  if (api->set_stream(handle, reinterpret_cast<hal_amd::hipStream_t>(call.stream)) != hal_amd::kRocblasSuccess) {
    return fail(HAL_STATUS_DEVICE_ERROR, "rocblas_set_stream failed");
  }
  if (plan.c && !plan.c_is_out) {
    if (hal_status_t s = scale_into(out, plan.c, 1.0, call.device, call.stream); s != HAL_STATUS_SUCCESS) return s;
  }
  return hal_amd::run_rocblas(*api, handle, plan);
}

}  // namespace hal_gpu
