#include "cudnn_context.h"

#include <string>

#include "cuda_status.h"

namespace hal_nvidia {

hal_status_t CudnnContext::handle(const CudnnApi& api, int32_t device, cudaStream_t stream, cudnnHandle_t* out) {
  if (!handle_) {
    cudnnHandle_t made = nullptr;
    const int status = api.create(&made);
    if (status != kCudnnSuccess) {
      return fail(HAL_STATUS_DEVICE_ERROR, cudnn_error(api, ("cudnnCreate on device " + std::to_string(device)).c_str(), status));
    }
    handle_ = hal_gpu::LibraryHandle<cudnnContext>(made, {api.destroy});
  }
  const int status = api.set_stream(handle_.get(), stream);
  if (status != kCudnnSuccess) return fail(HAL_STATUS_DEVICE_ERROR, cudnn_error(api, "cudnnSetStream", status));
  *out = handle_.get();
  return HAL_STATUS_SUCCESS;
}

const std::vector<ConvAlgorithm>* CudnnContext::algorithms(const std::vector<int64_t>& problem) const {
  const auto it = algorithms_.find(problem);
  return it == algorithms_.end() ? nullptr : &it->second;
}

void CudnnContext::remember(std::vector<int64_t> problem, std::vector<ConvAlgorithm> algorithms) {
  algorithms_[std::move(problem)] = std::move(algorithms);
}

const ConvPlan* CudnnContext::plan(const std::vector<int64_t>& problem, bool* known) const {
  const auto it = plans_.find(problem);
  *known = it != plans_.end();
  return *known ? it->second.get() : nullptr;
}

void CudnnContext::remember_plan(std::vector<int64_t> problem, std::unique_ptr<ConvPlan> plan) {
  plans_[std::move(problem)] = std::move(plan);
}

}  // namespace hal_nvidia
