// The Work a hal collective returns: it wraps the engine's own Work (gloo's, or an adapter's) and adds
// what hal needs once the engine is done (AVG's division, staged outputs copied back), so that wait(),
// the future and result() all describe the hal tensors, as torch.cuda's NCCL Work does for CUDA tensors.
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <memory>
#include <mutex>

#include "distributed/host_staging.h"

namespace torch_hal::distributed {

class HalWork : public c10d::Work {
 public:
  HalWork(c10::intrusive_ptr<c10d::Work> engine_work, std::shared_ptr<HostStaging> staging, c10d::OpType type,
          const char* profiling_title);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  std::vector<at::Tensor> result() override;
  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
  void synchronize() override {}
  void abort() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  // Runs staging_->finish() once and completes future_ (with the hal tensors, or the error).
  void complete(std::exception_ptr engine_error);

  c10::intrusive_ptr<c10d::Work> engine_work_;
  std::shared_ptr<HostStaging> staging_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  bool engine_has_future_ = false;  // gloo's send/recv Work has none: completion then happens in wait()
  std::once_flag completed_once_;
};

}  // namespace torch_hal::distributed
