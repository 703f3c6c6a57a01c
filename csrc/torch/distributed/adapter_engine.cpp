#include "distributed/adapter_engine.h"

#include <c10/core/DeviceGuard.h>
#include <c10/core/StreamGuard.h>
#include <torch/csrc/distributed/c10d/exception.h>

#include <cstdio>
#include <cstdlib>

#include "hal/environment.h"
#include "runtime/hal_context.h"

namespace torch_hal::distributed {
namespace {

// TORCH_HAL_BLOCKING_WAIT is read when a process group starts; a bad value raises at import too (an import
// check of runtime/hal_context.h), after the op paths' switches (10), before attention's limits (30).
void validate_blocking_wait() { hal::env_flag("TORCH_HAL_BLOCKING_WAIT", false); }
const ImportCheck kValidateBlockingWait(20, &validate_blocking_wait);

c10::Stream c10_stream(int device_index, hal::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(kHal, static_cast<c10::DeviceIndex>(device_index)), id);
}

// The Work of one adapter operation. wait() blocks the calling thread until the operation completed, failed
// or timed out (the watchdog decides the last two), so an error is raised where the caller waits.
class AdapterWork : public c10d::Work {
 public:
  AdapterWork(std::shared_ptr<AdapterEngine::Pending> pending, std::vector<at::Tensor> results,
              c10::intrusive_ptr<c10::ivalue::Future> future, c10d::OpType type)
      : c10d::Work(-1, type), pending_(std::move(pending)), results_(std::move(results)), future_(std::move(future)) {}

  bool isCompleted() override {
    {
      std::lock_guard<std::mutex> lock(pending_->mutex);
      if (pending_->finished) return true;
    }
    // The device can be done before the watchdog's next round has seen it; wait() returns then too, and a
    // Work that wait() returned from must say it is completed (as torch.cuda's, which queries its event).
    return call_core([&] { return pending_->done->query(); });
  }
  bool isSuccess() const override {
    std::lock_guard<std::mutex> lock(pending_->mutex);
    return pending_->finished && pending_->error.empty();
  }
  std::exception_ptr exception() const override {
    std::lock_guard<std::mutex> lock(pending_->mutex);
    if (pending_->error.empty()) return nullptr;
    return std::make_exception_ptr(c10::DistBackendError(pending_->error, nullptr));
  }
  std::vector<at::Tensor> result() override { return results_; }
  bool wait(std::chrono::milliseconds /*timeout: the group's, applied by the watchdog*/) override {
    if (!pending_->blocking_wait) {
      // As torch.cuda's NCCL Work: the caller's current stream waits for the operation, the host does not, so
      // collectives queue back to back. An error already known is raised; one found later ends the process
      // (AdapterEngine::watch), since work queued after it would read what the collective never wrote.
      {
        std::lock_guard<std::mutex> lock(pending_->mutex);
        if (!pending_->error.empty()) TORCH_CHECK_WITH(DistBackendError, false, pending_->error);
      }
      call_core([&] { pending_->done->block(pending_->device, hal::current_stream(pending_->device)); });
      return true;
    }
    // TORCH_HAL_BLOCKING_WAIT=1: the host waits, polling the event itself (it returns microseconds after the
    // device finished, not at the watchdog's next round); the watchdog decides errors and timeouts, and wakes
    // this wait for them, which then raises them here.
    for (int round = 0;; ++round) {
      {
        std::unique_lock<std::mutex> lock(pending_->mutex);
        if (pending_->finished) {
          if (!pending_->error.empty()) TORCH_CHECK_WITH(DistBackendError, false, pending_->error);
          return true;
        }
        if (round >= 1000) pending_->changed.wait_for(lock, std::chrono::microseconds(200));
      }
      if (call_core([&] { return pending_->done->query(); })) return true;
      if (round < 1000) std::this_thread::yield();
    }
  }
  void synchronize() override { wait(kNoTimeout); }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  std::shared_ptr<AdapterEngine::Pending> pending_;
  std::vector<at::Tensor> results_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

}  // namespace

AdapterEngine::AdapterEngine(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                             std::chrono::milliseconds timeout)
    : store_(std::move(store)),
      rank_(rank),
      size_(size),
      timeout_(timeout),
      blocking_wait_(hal::env_flag("TORCH_HAL_BLOCKING_WAIT", false)),
      watchdog_([this] { watch(); }) {}

AdapterEngine::~AdapterEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

bool AdapterEngine::serves(int device_index, std::string* why) {
  return hal::collectives_of(device(checked_device_index(device_index)), why) != nullptr;
}

std::string AdapterEngine::engine_name(int device_index) {
  const auto* ops = hal::collectives_of(device(checked_device_index(device_index)));
  return ops && ops->engine_name ? ops->engine_name() : "adapter collectives";
}

AdapterEngine::DeviceComm& AdapterEngine::device_comm(int device_index) {
  auto found = comms_.find(device_index);
  if (found != comms_.end()) return found->second;
  const hal::Device& d = device(checked_device_index(device_index));
  // Every rank reaches here in the same collective: rank 0 publishes the id, the others wait for it (the
  // store's own timeout bounds the wait).
  const std::string key = "torch_hal/comm_id/" + std::to_string(comms_.size());
  hal_comm_unique_id_t id{};
  if (rank_ == 0) {
    id = call_core([&] { return hal::Communicator::unique_id(d); });
    store_->set(key, std::vector<uint8_t>(id.bytes, id.bytes + sizeof(id.bytes)));
  } else {
    const std::vector<uint8_t> bytes = store_->get(key);
    TORCH_CHECK(bytes.size() == sizeof(id.bytes), "torch_hal: the communicator id in the store has ", bytes.size(),
                " bytes, not ", sizeof(id.bytes), ": do all ranks run the same torch_hal?");
    std::copy(bytes.begin(), bytes.end(), id.bytes);
  }
  DeviceComm dc;
  dc.comm = call_core([&] { return std::make_shared<hal::Communicator>(d, id, size_, rank_); });
  dc.stream = call_core([&] { return hal::stream_from_pool(device_index, /*priority=*/0); });
  return comms_.emplace(device_index, std::move(dc)).first->second;
}

void AdapterEngine::throw_if_failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_.empty()) {
    TORCH_CHECK_WITH(DistBackendError, false, "torch_hal: this process group failed earlier and was aborted: ",
                     error_);
  }
}

c10::intrusive_ptr<c10d::Work> AdapterEngine::run(const std::vector<at::Tensor>& tensors,
                                                  const std::vector<at::Tensor>& results, c10d::OpType type,
                                                  const Launch& launch) {
  throw_if_failed();
  TORCH_CHECK(!tensors.empty(), "torch_hal: a collective without tensors");
  const int index = tensors[0].device().index();
  for (const auto& t : tensors) {
    TORCH_CHECK(t.device() == tensors[0].device(), "torch_hal: one collective's tensors must be on one device, got ",
                tensors[0].device(), " and ", t.device());
  }
  c10::DeviceGuard device_guard(tensors[0].device());
  DeviceComm& dc = device_comm(index);
  const hal::StreamId current = call_core([&] { return hal::current_stream(index); });
  // The communication stream waits for what the caller's stream has queued (the inputs' producers).
  call_core([&] {
    hal::Event ready;
    ready.record(index, current);
    ready.block(index, dc.stream);
  });
  // The caching allocator must not hand these tensors' memory to the caller's stream before the
  // communication stream is done with it.
  for (const auto& t : tensors) t.record_stream(c10_stream(index, dc.stream));
  auto pending = std::make_shared<Pending>();
  pending->comm = dc.comm;
  pending->device = index;
  pending->blocking_wait = blocking_wait_;
  pending->what = c10d::opTypeToString(type);
  pending->done = std::make_unique<hal::Event>();
  {
    // Any ATen op a launch adds (copies out of a gathered buffer) runs on the communication stream too.
    c10::StreamGuard stream_guard(c10_stream(index, dc.stream));
    call_core([&] { launch(*dc.comm, hal::native_stream(index, dc.stream)); });
  }
  call_core([&] { pending->done->record(index, dc.stream); });
  pending->start = std::chrono::steady_clock::now();

  // The future completes now, with events on the communication stream: waiting on it makes the waiter's
  // stream wait (as torch.cuda's NCCL futures), and DDP's callbacks run in stream order.
  auto future = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors(),
                                                         std::vector<c10::Device>{tensors[0].device()});
  {
    c10::StreamGuard stream_guard(c10_stream(index, dc.stream));
    future->markCompleted(c10::IValue(results));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(pending);
  }
  wake_.notify_all();
  return c10::make_intrusive<AdapterWork>(pending, results, future, type);
}

void AdapterEngine::abort() {
  for (auto& [index, dc] : comms_) dc.comm->abort();
}

void AdapterEngine::end_process(const std::string& error) {
  // Stream-ordered waits have let the caller queue work after the failed collective, and that work reads what
  // the collective never wrote: going on would give wrong results silently, and a synchronize would wait for
  // peers that never come. So the process ends here with the error, as torch.cuda's NCCL watchdog ends it.
  std::fprintf(stderr,
               "%s\ntorch_hal: this process ends now so that no rank goes on with wrong values (as torch.cuda's NCCL "
               "watchdog does); set TORCH_HAL_BLOCKING_WAIT=1 for Work.wait() to block and raise this error "
               "instead.\n",
               error.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void AdapterEngine::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(pending_.empty() ? 200 : 1));
    std::vector<std::shared_ptr<Pending>> still;
    for (auto& p : pending_) {
      std::string error;
      bool done = false;
      try {
        done = p->done->query();
        if (!done) {
          error = p->comm->async_error();
          if (error.empty() && std::chrono::steady_clock::now() - p->start > timeout_) {
            error = "timed out after " + std::to_string(timeout_.count()) +
                    " ms waiting for the other ranks (a rank that died, hangs, or skipped this collective)";
          }
        }
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!done && error.empty()) {
        still.push_back(p);
        continue;
      }
      if (!error.empty()) {
        error = "torch_hal: rank " + std::to_string(rank_) + ": " + p->comm->engine_name() + " " + p->what +
                " on hal:" + std::to_string(p->device) + " failed: " + error;
        if (error_.empty()) error_ = error;
      }
      {
        std::lock_guard<std::mutex> plock(p->mutex);
        p->finished = true;
        p->error = error;
      }
      p->changed.notify_all();
      if (error.empty()) continue;
      // Stream-ordered waits: the process ends before the communicator is aborted, since the abort lets the
      // caller's stream move on, and what it queued after the collective would read what it never wrote.
      if (!blocking_wait_) end_process(error);
      // Blocking waits: the Work knows its error first, then aborting lets the device's stream move on instead
      // of waiting for peers forever, and the waiter raises the error instead of taking that for success.
      p->comm->abort();
    }
    pending_.swap(still);
  }
}

}  // namespace torch_hal::distributed
