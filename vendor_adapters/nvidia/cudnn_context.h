// A device's cuDNN state: one handle (made at first use), the execution plan made per convolution problem
// (convolution_plan.h) and, for problems the graph API declines, the legacy algorithms chosen for them.
//
// A cuDNN handle is not safe to use from two threads at once (its stream is a setting of the handle), so a
// convolution holds the device's lock from its first cuDNN call until its launch has been queued. Plans and
// algorithms come from cuDNN's heuristics (as torch.cuda without torch.backends.cudnn.benchmark), made once
// per problem: a training step repeats the same shapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "convolution_plan.h"
#include "cudnn_library.h"
#include "kernels/library_handle.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

// One algorithm cuDNN offers for a problem, with the math type to run it in and its workspace.
struct ConvAlgorithm {
  int algo = 0;
  int math_type = 0;
  size_t workspace_bytes = 0;
};

class CudnnContext {
 public:
  CudnnContext() = default;
  CudnnContext(const CudnnContext&) = delete;
  CudnnContext& operator=(const CudnnContext&) = delete;

  // The device's lock, held by one convolution from its first cuDNN call until its launch is queued.
  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mutex_); }
  // The handle bound to `stream` (made at first use); on failure the message is recorded. Call locked.
  hal_status_t handle(const CudnnApi& api, int32_t device, cudaStream_t stream, cudnnHandle_t* out);
  // The algorithms chosen for a problem (keyed by its geometry), best first; nullptr when not yet asked.
  // Call locked.
  const std::vector<ConvAlgorithm>* algorithms(const std::vector<int64_t>& problem) const;
  void remember(std::vector<int64_t> problem, std::vector<ConvAlgorithm> algorithms);
  // The plan of a problem; `*known` says whether one was tried (a tried problem without a plan takes the
  // legacy route). Call locked.
  const ConvPlan* plan(const std::vector<int64_t>& problem, bool* known) const;
  void remember_plan(std::vector<int64_t> problem, std::unique_ptr<ConvPlan> plan);

 private:
  std::mutex mutex_;
  // Declared before the plans and algorithms so that it is destroyed after them (plans were made on it).
  hal_gpu::LibraryHandle<cudnnContext> handle_;
  std::map<std::vector<int64_t>, std::unique_ptr<ConvPlan>> plans_;
  std::map<std::vector<int64_t>, std::vector<ConvAlgorithm>> algorithms_;
};

}  // namespace hal_nvidia
