// What the cuBLAS and cuBLASLt paths of the GEMM share: the CUDA data type of a plan's operands and the
// hal status a cublasStatus_t stands for (cuBLASLt reports cuBLAS's statuses).
#pragma once

#include <library_types.h>  // cudaDataType_t

#include "cublas_library.h"
#include "kernels/gemm_plan.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

// The plan is the kernel library's (shared with the AMD adapter's rocBLAS path).
using hal_gpu::BlasOperand;
using hal_gpu::GemmPlan;
using hal_gpu::GemmType;
using hal_gpu::plan_gemm;

inline cudaDataType_t cuda_type(GemmType t) {
  switch (t) {
    case GemmType::F16: return CUDA_R_16F;
    case GemmType::BF16: return CUDA_R_16BF;
    case GemmType::F64: return CUDA_R_64F;
    default: return CUDA_R_32F;
  }
}

inline hal_status_t status_of_cublas(int status) {
  switch (status) {
    case kCublasAllocFailed: return HAL_STATUS_OUT_OF_DEVICE_MEMORY;
    case kCublasNotSupported:
    case kCublasArchMismatch: return HAL_STATUS_NOT_SUPPORTED;
    case kCublasInvalidValue: return HAL_STATUS_INVALID_ARGUMENT;
    default: return HAL_STATUS_DEVICE_ERROR;
  }
}

}  // namespace hal_nvidia
