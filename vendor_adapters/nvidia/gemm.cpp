// HAL_OP_MATMUL and HAL_OP_GEMM through cuBLAS (and cuBLASLt for a GEMM plus bias vector): gemm_plan
// decides the call, this file makes it.
#include <cstdint>
#include <string>

#include "adapter_state.h"
#include "blas_context.h"
#include "blas_types.h"
#include "cublas_library.h"
#include "cublaslt_library.h"
#include "cuda_status.h"
#include "kernels/adapter_services.h"
#include "kernels/gemm_plan.h"
#include "kernels/gemm_pointers.h"
#include "kernels/gemm_prologue.h"
#include "kernels/op_call.h"
#include "kernels/scale_into.h"
#include "lt_bias_gemm.h"

namespace hal_nvidia {
namespace {

// Scratch memory per stream for cuBLAS's kernels, the sizes PyTorch gives cuBLAS by default: Hopper and
// newer GEMM kernels use more than earlier ones.
uint64_t workspace_bytes(const DeviceState& d) { return d.cc_major >= 9 ? (uint64_t{32} << 20) : (uint64_t{8} << 20); }

// Accumulation in FP32 for every float type up to 32 bits, without TF32 (cuBLAS's default math mode), which
// matches torch.cuda's defaults; FP64 in FP64. alpha and beta have the compute type. Not copyable: alpha and
// beta may point into it.
struct ComputeScalars {
  explicit ComputeScalars(const GemmPlan& p)
      : f64(p.type == GemmType::F64),
        alpha_f(static_cast<float>(p.alpha)),
        beta_f(static_cast<float>(p.beta)),
        alpha(f64 ? static_cast<const void*>(&p.alpha) : &alpha_f),
        beta(f64 ? static_cast<const void*>(&p.beta) : &beta_f),
        compute_type(f64 ? kCublasCompute64F : kCublasCompute32F) {}
  ComputeScalars(const ComputeScalars&) = delete;
  ComputeScalars& operator=(const ComputeScalars&) = delete;
  const bool f64;
  const float alpha_f, beta_f;
  const void* const alpha;
  const void* const beta;
  const int compute_type;
};

hal_status_t run_cublas(const CublasApi& api, cublasHandle_t handle, const GemmPlan& p) {
  const ComputeScalars scalars(p);
  const cudaDataType_t type = cuda_type(p.type);
  const int status = api.gemm_strided_batched_ex(
      handle, p.first.transpose ? kCublasOpT : kCublasOpN, p.second.transpose ? kCublasOpT : kCublasOpN,
      static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), scalars.alpha, p.first.data, type,
      static_cast<int>(p.first.ld), p.first.batch_stride, p.second.data, type, static_cast<int>(p.second.ld),
      p.second.batch_stride, scalars.beta, p.out, type, static_cast<int>(p.ld_out), p.batch_stride_out,
      static_cast<int>(p.batch), scalars.compute_type, kCublasGemmDefault);
  if (status == kCublasSuccess) return HAL_STATUS_SUCCESS;
  return fail(status_of_cublas(status), cublas_error(api, "cublasGemmStridedBatchedEx", status));
}

// A grouped plan (4-D operands whose batch dims do not merge into one stride) through cuBLAS's pointer-array
// call: the matrix pointers written on the device first, into stream scratch, by the kernel library.
hal_status_t run_cublas_grouped(const CublasApi& api, cublasHandle_t handle, const GemmPlan& p, int32_t device,
                                cudaStream_t stream) {
  hal_gpu::StreamScratch pointers(device, stream, 3 * static_cast<size_t>(p.batch) * sizeof(void*));
  if (!pointers.ok()) return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "GEMM: no device memory for the matrix pointers");
  void** array = pointers.as<void*>();
  const hal_status_t written = hal_gpu::write_gemm_pointers(p, array, device, stream);
  if (written != HAL_STATUS_SUCCESS) return written;
  const ComputeScalars scalars(p);
  const cudaDataType_t type = cuda_type(p.type);
  const int status = api.gemm_batched_ex(
      handle, p.first.transpose ? kCublasOpT : kCublasOpN, p.second.transpose ? kCublasOpT : kCublasOpN,
      static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), scalars.alpha, array, type,
      static_cast<int>(p.first.ld), array + p.batch, type, static_cast<int>(p.second.ld), scalars.beta,
      array + 2 * p.batch, type, static_cast<int>(p.ld_out), static_cast<int>(p.batch), scalars.compute_type,
      kCublasGemmDefault);
  if (status == kCublasSuccess) return HAL_STATUS_SUCCESS;
  return fail(status_of_cublas(status), cublas_error(api, "cublasGemmBatchedEx", status));
}

// The bias through cuBLASLt's epilogue, one kernel. NOT_SUPPORTED (nothing queued, no message) where
// cuBLASLt is missing or declines the problem.
hal_status_t try_lt_bias_gemm(BlasContext::Lease& lease, const GemmPlan& plan, cudaStream_t stream) {
  const CublasLtApi* lt = cublas_lt(nullptr);
  if (!lt) return HAL_STATUS_NOT_SUPPORTED;
  cublasLtHandle_t handle = lease.cublas_lt(*lt);
  if (!handle) return HAL_STATUS_NOT_SUPPORTED;
  return run_lt_bias_gemm(*lt, handle, lease.lt_bias_gemms(), plan, lease.workspace(), lease.workspace_bytes(),
                          stream);
}

}  // namespace

}  // namespace hal_nvidia

// The kernel library's GEMM entry point (kernels/op_call.h), which each adapter gives its vendor's BLAS.
namespace hal_gpu {

using namespace hal_nvidia;

hal_status_t launch_gemm(const OpCall& call) {
  GemmPlan plan;
  bool done = false;
  if (hal_status_t s = plan_or_finish_gemm(call, "NVIDIA", &plan, &done); s != HAL_STATUS_SUCCESS || done) return s;
  const hal_tensor_t& out = call.outputs[0];
  std::string why;
  // What can refuse (NOT_SUPPORTED must leave no trace) comes before the first write to `out`; only
  // cuBLAS itself refusing the call, which the plan's checks make unexpected, would come after it.
  const CublasApi* api = cublas(&why);
  if (!api) return fail(HAL_STATUS_NOT_SUPPORTED, why);
  DeviceState& device = device_state(call.device);
  BlasContext::Lease lease;
  device.blas.acquire(call.device, workspace_bytes(device), call.stream, &lease);
  if (plan.bias) {
    if (hal_status_t s = try_lt_bias_gemm(lease, plan, call.stream); s != HAL_STATUS_NOT_SUPPORTED) return s;
  }
  cublasHandle_t handle = nullptr;
  if (hal_status_t s = lease.cublas(*api, &handle); s != HAL_STATUS_SUCCESS) return s;
  // cuBLAS adds beta * C in place, so a c that is not the output is first copied into it (with its
  // broadcast strides: an addmm bias) on the same stream.
  if (plan.c && !plan.c_is_out) {
    if (hal_status_t s = scale_into(out, plan.c, 1.0, call.device, call.stream); s != HAL_STATUS_SUCCESS) return s;
  }
  if (plan.group_size) return run_cublas_grouped(*api, handle, plan, call.device, call.stream);
  return run_cublas(*api, handle, plan);
}

}  // namespace hal_gpu
