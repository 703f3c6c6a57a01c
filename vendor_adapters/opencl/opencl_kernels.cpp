#include "opencl_kernels.h"

#include <cstdint>

#include "kernels/elementwise_params.h"
#include "kernels/tensor_operands.h"
#include "spirv_modules.h"

namespace hal_opencl {
namespace {

constexpr const char* kElementwiseKernels[3] = {"unary_f32", "binary_f32", "ternary_f32"};

bool is_float32(const hal_tensor_t& t) { return hal_gpu::dtype_of(t.dtype) == hal_gpu::DType::F32; }

// A float32 tensor in memory (not a scalar operand, not absent), dense in row-major order.
bool is_dense_float32(const hal_tensor_t& t) {
  return t.data != nullptr && t.ndim >= 0 && is_float32(t) && hal_gpu::is_contiguous(t);
}

bool same_shape(const hal_tensor_t& a, const hal_tensor_t& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

// An elementwise op of the library's math on float32 (integer-only ops aside).
bool is_elementwise_float_op(hal_op_t op) {
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  return info.arity > 0 && info.domain != hal_gpu::ew::Domain::IntOnly;
}

}  // namespace

DeviceKernels::DeviceKernels(const OpenClApi& cl, cl_context context, cl_device_id device)
    : cl_(cl), context_(context), device_(device) {}

DeviceKernels::~DeviceKernels() {
  for (cl_kernel k : elementwise_) {
    if (k != nullptr) cl_.ReleaseKernel(k);
  }
  if (program_ != nullptr) cl_.ReleaseProgram(program_);
}

bool DeviceKernels::supports(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors) {
  if (!is_elementwise_float_op(op) || elementwise_module().size == 0) return false;
  if (tensors == nullptr) return true;
  for (int32_t i = 0; i < num_tensors; ++i) {
    if (!is_float32(tensors[i])) return false;
  }
  return true;
}

bool DeviceKernels::built(std::string* error) {
  if (tried_) {
    *error = build_error_;
    return build_error_.empty();
  }
  tried_ = true;
  const SpirvModule module = elementwise_module();
  if (module.size == 0) {
    build_error_ = spirv_missing_reason();
  } else {
    cl_int status = CL_SUCCESS;
    program_ = cl_.CreateProgramWithIL(context_, module.bytes, module.size, &status);
    if (status != CL_SUCCESS) {
      build_error_ = "clCreateProgramWithIL of the elementwise module failed: " + cl_error_name(status);
    } else if ((status = cl_.BuildProgram(program_, 1, &device_, "", nullptr, nullptr)) != CL_SUCCESS) {
      std::string log(4096, '\0');
      size_t size = 0;
      cl_.GetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), &size);
      log.resize(size > 0 ? size - 1 : 0);
      build_error_ = "clBuildProgram of the elementwise module failed: " + cl_error_name(status) + ": " + log;
    } else {
      for (int arity = 0; arity < 3 && build_error_.empty(); ++arity) {
        elementwise_[arity] = cl_.CreateKernel(program_, kElementwiseKernels[arity], &status);
        if (status != CL_SUCCESS) {
          build_error_ = std::string("clCreateKernel ") + kElementwiseKernels[arity] + ": " + cl_error_name(status);
        }
      }
    }
  }
  *error = build_error_;
  return build_error_.empty();
}

hal_status_t DeviceKernels::launch(cl_command_queue queue, hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs,
                                   const hal_tensor_t* outputs, int32_t num_outputs, const hal_scalar_t* scalars,
                                   int32_t num_scalars, std::string* error) {
  if (!is_elementwise_float_op(op)) return HAL_STATUS_NOT_SUPPORTED;
  const hal_gpu::ew::OpInfo info = hal_gpu::ew::op_info(op);
  if (num_inputs != info.arity || num_outputs != 1 || num_scalars < info.own_scalars) return HAL_STATUS_NOT_SUPPORTED;
  const hal_tensor_t& out = outputs[0];
  if (!is_dense_float32(out)) return HAL_STATUS_NOT_SUPPORTED;
  for (int32_t i = 0; i < num_inputs; ++i) {
    // Scalar operands (data == NULL) and broadcast inputs are for later kernels: the fallback takes them.
    if (!is_dense_float32(inputs[i]) || !same_shape(inputs[i], out)) {
      return HAL_STATUS_NOT_SUPPORTED;
    }
  }
  const int64_t n = hal_gpu::numel(out);
  if (n == 0) return HAL_STATUS_SUCCESS;

  std::lock_guard<std::mutex> lock(mutex_);
  if (!built(error)) return HAL_STATUS_NOT_SUPPORTED;  // said once by the adapter; the fallback runs the op
  const hal_gpu::ew::Params<float> params = hal_gpu::params_of<float>(op, scalars);
  cl_kernel kernel = elementwise_[info.arity - 1];
  cl_uint arg = 0;
  cl_int status = CL_SUCCESS;
  for (int32_t i = 0; i < num_inputs && status == CL_SUCCESS; ++i) {
    status = cl_.SetKernelArgSVMPointer(kernel, arg++, hal_gpu::element0(inputs[i]));
  }
  const cl_ulong count = static_cast<cl_ulong>(n);
  const cl_int op_id = op;
  if (status == CL_SUCCESS) status = cl_.SetKernelArgSVMPointer(kernel, arg++, hal_gpu::element0(out));
  if (status == CL_SUCCESS) status = cl_.SetKernelArg(kernel, arg++, sizeof(count), &count);
  if (status == CL_SUCCESS) status = cl_.SetKernelArg(kernel, arg++, sizeof(op_id), &op_id);
  if (status == CL_SUCCESS) status = cl_.SetKernelArg(kernel, arg++, sizeof(params.s0), &params.s0);
  if (status == CL_SUCCESS) status = cl_.SetKernelArg(kernel, arg++, sizeof(params.mode), &params.mode);
  if (status != CL_SUCCESS) {
    *error = "clSetKernelArg for " + std::string(kElementwiseKernels[info.arity - 1]) + ": " + cl_error_name(status);
    return HAL_STATUS_DEVICE_ERROR;
  }
  const size_t global = static_cast<size_t>(n);
  status = cl_.EnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    *error =
        std::string("clEnqueueNDRangeKernel ") + kElementwiseKernels[info.arity - 1] + ": " + cl_error_name(status);
    return status == CL_OUT_OF_RESOURCES ? HAL_STATUS_OUT_OF_DEVICE_MEMORY : HAL_STATUS_DEVICE_ERROR;
  }
  cl_.Flush(queue);
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_opencl
