#include "distributed/hal_work.h"

namespace torch_hal::distributed {

HalWork::HalWork(c10::intrusive_ptr<c10d::Work> engine_work, std::shared_ptr<HostStaging> staging,
                 c10d::OpType type, const char* profiling_title)
    : c10d::Work(-1, type, profiling_title),
      engine_work_(std::move(engine_work)),
      staging_(std::move(staging)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors())) {
  c10::intrusive_ptr<c10::ivalue::Future> engine_future;
  try {
    engine_future = engine_work_->getFuture();
  } catch (const c10::Error&) {
    // Work without a future (gloo's point-to-point ops): wait() completes it.
  }
  if (engine_future) {
    engine_has_future_ = true;
    // The callback holds the staging and the future, not this Work: a Work dropped before completion (an
    // async_op whose handle is discarded) still finishes its staging.
    auto staging = staging_;
    auto future = future_;
    engine_future->addCallback([staging, future](c10::ivalue::Future& done) {
      if (done.hasError()) {
        future->setError(done.exception_ptr());
        return;
      }
      try {
        staging->finish();
        future->markCompleted(c10::IValue(staging->results));
      } catch (...) {
        future->setError(std::current_exception());
      }
    });
  }
}

void HalWork::complete(std::exception_ptr engine_error) {
  std::call_once(completed_once_, [&] {
    if (engine_error) {
      future_->setError(engine_error);
      return;
    }
    try {
      staging_->finish();
      future_->markCompleted(c10::IValue(staging_->results));
    } catch (...) {
      future_->setError(std::current_exception());
    }
  });
}

bool HalWork::isCompleted() { return future_->completed(); }

bool HalWork::isSuccess() const { return future_->completed() && !future_->hasError(); }

std::exception_ptr HalWork::exception() const {
  return future_->completed() && future_->hasError() ? future_->exception_ptr() : nullptr;
}

std::vector<at::Tensor> HalWork::result() { return staging_->results; }

bool HalWork::wait(std::chrono::milliseconds timeout) {
  if (!engine_has_future_) {
    try {
      engine_work_->wait(timeout);
    } catch (...) {
      complete(std::current_exception());
      throw;
    }
    complete(nullptr);
  } else {
    engine_work_->wait(timeout);  // raises the engine's error (a peer that died, a timeout) with its message
    future_->wait();              // the staging callback, which runs on the engine's thread, is done too
  }
  if (future_->hasError()) std::rethrow_exception(future_->exception_ptr());
  return true;
}

void HalWork::abort() { engine_work_->abort(); }

c10::intrusive_ptr<c10::ivalue::Future> HalWork::getFuture() {
  TORCH_CHECK(engine_has_future_, "this hal collective (", c10d::opTypeToString(opType_),
              ") has no future, as gloo's point-to-point operations have none; use wait()");
  return future_;
}

}  // namespace torch_hal::distributed
