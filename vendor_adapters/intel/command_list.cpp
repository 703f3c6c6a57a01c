#include "command_list.h"

namespace hal_level_zero {
namespace {

// Waits queued without a marker after them: past this many, one is appended (without waiting for it) so that
// the events they name can be let go once it signals, even on a stream the host never synchronizes.
constexpr size_t kMaxUncoveredWaits = 256;

}  // namespace

hal_status_t Stream::open(ze_context_handle_t context, ze_device_handle_t device, uint32_t ordinal, int32_t priority,
                          std::string* error) {
  ze_command_queue_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.ordinal = ordinal;
  desc.index = 0;
  desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  desc.priority = priority < 0 ? ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH : ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  ze_command_list_handle_t list = nullptr;
  if (ze_result_t r = ze_.zeCommandListCreateImmediate(context, device, &desc, &list); r != ZE_RESULT_SUCCESS) {
    return failed("zeCommandListCreateImmediate", r, error);
  }
  list_ = CommandList(list, ze_.zeCommandListDestroy);
  return HAL_STATUS_SUCCESS;
}

hal_status_t Stream::record(const std::shared_ptr<Signal>& signal, bool timestamp, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  ze_result_t r = ZE_RESULT_SUCCESS;
  if (timestamp) {
    // After the barrier that follows every command, so the timestamp is taken when they have completed.
    r = ze_.zeCommandListAppendWriteGlobalTimestamp(list_.get(), signal->timestamp, signal->event, 0, nullptr);
    if (r != ZE_RESULT_SUCCESS) return failed("zeCommandListAppendWriteGlobalTimestamp", r, error);
    signal->appended = true;
    r = ze_.zeCommandListAppendBarrier(list_.get(), nullptr, 0, nullptr);
  } else {
    r = ze_.zeCommandListAppendBarrier(list_.get(), signal->event, 0, nullptr);
    if (r == ZE_RESULT_SUCCESS) signal->appended = true;
  }
  // A synchronize after this returns only once the record signaled, as CUDA's does.
  appended_since_marker_ = true;
  return r == ZE_RESULT_SUCCESS ? HAL_STATUS_SUCCESS : failed("zeCommandListAppendBarrier", r, error);
}

hal_status_t Stream::wait(std::shared_ptr<Signal> signal, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  ze_event_handle_t event = signal->event;
  // A barrier with a wait list: what follows waits for the event and for everything before.
  if (ze_result_t r = ze_.zeCommandListAppendBarrier(list_.get(), nullptr, 1, &event); r != ZE_RESULT_SUCCESS) {
    return failed("zeCommandListAppendBarrier (wait)", r, error);
  }
  appended_since_marker_ = true;
  waited_.push_back(std::move(signal));
  release_covered();
  if (waited_.size() < kMaxUncoveredWaits) return HAL_STATUS_SUCCESS;
  std::shared_ptr<Signal> marker = events_->acquire(error);
  if (marker == nullptr) return HAL_STATUS_SUCCESS;  // kept a little longer; the next marker covers them
  if (ze_.zeCommandListAppendBarrier(list_.get(), marker->event, 0, nullptr) == ZE_RESULT_SUCCESS) {
    marker->appended = true;
    marker_ = marker;
    appended_since_marker_ = false;
    covered_.emplace_back(std::move(marker), std::move(waited_));
    waited_.clear();
  }
  return HAL_STATUS_SUCCESS;
}

void Stream::release_covered() {
  // Markers of one list signal in order: the first one not signaled ends the search.
  while (!covered_.empty() && ze_.zeEventQueryStatus(covered_.front().first->event) == ZE_RESULT_SUCCESS) {
    covered_.pop_front();
  }
}

std::shared_ptr<Signal> Stream::mark(std::string* error) {
  std::shared_ptr<Signal> marker;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!appended_since_marker_ && marker_ != nullptr) return marker_;
  }
  marker = events_->acquire(error);
  if (marker == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (ze_result_t r = ze_.zeCommandListAppendBarrier(list_.get(), marker->event, 0, nullptr); r != ZE_RESULT_SUCCESS) {
    failed("zeCommandListAppendBarrier (marker)", r, error);
    return nullptr;
  }
  marker->appended = true;
  marker_ = marker;
  appended_since_marker_ = false;
  if (!waited_.empty()) {
    covered_.emplace_back(marker, std::move(waited_));
    waited_.clear();
  }
  return marker;
}

hal_status_t Stream::synchronize(std::string* error) {
  std::shared_ptr<Signal> marker = mark(error);
  if (marker == nullptr) return HAL_STATUS_DEVICE_ERROR;
  if (ze_result_t r = ze_.zeEventHostSynchronize(marker->event, UINT64_MAX); r != ZE_RESULT_SUCCESS) {
    return failed("zeEventHostSynchronize", r, error);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  release_covered();
  return HAL_STATUS_SUCCESS;
}

hal_status_t Stream::query(std::string* error) {
  std::shared_ptr<Signal> marker = mark(error);
  if (marker == nullptr) return HAL_STATUS_DEVICE_ERROR;
  const ze_result_t r = ze_.zeEventQueryStatus(marker->event);
  if (r == ZE_RESULT_NOT_READY) return HAL_STATUS_NOT_READY;
  if (r != ZE_RESULT_SUCCESS) return failed("zeEventQueryStatus", r, error);
  std::lock_guard<std::mutex> lock(mutex_);
  release_covered();
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_level_zero
