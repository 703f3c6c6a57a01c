// A hal stream: one immediate command list on the device's compute engine. Commands start as they are
// appended; nothing is batched or flushed.
//
// Order: a command list of API 1.4 may run its commands concurrently (the in-order flag of immediate lists,
// ZE_COMMAND_QUEUE_FLAG_IN_ORDER, came with later versions), so every command is followed by a barrier, and a
// stream keeps the order of CUDA's. Completion: a marker, a barrier that signals a fresh event, is appended
// when the host asks (synchronize, query), and reused while nothing was appended after it. Fences belong to
// command queues with regular command lists, which an immediate list has none of.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "level_zero_api.h"
#include "event_pool.h"
#include "handles.h"

namespace hal_level_zero {

class Stream {
 public:
  Stream(const LevelZeroApi& ze, std::shared_ptr<EventCache> events) : ze_(ze), events_(std::move(events)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // The command list, on `ordinal`'s first queue; priority < 0 asks for a high-priority one, as CUDA's
  // lower numbers do.
  hal_status_t open(ze_context_handle_t context, ze_device_handle_t device, uint32_t ordinal, int32_t priority,
                    std::string* error);

  ze_command_list_handle_t list() const { return list_.get(); }

  // Appends the command that body(list) appends, then a barrier, under the stream's lock (a command list is
  // not thread-safe). `call` names body's entry point for the message where it fails.
  template <typename Body>
  hal_status_t append(const char* call, Body&& body, std::string* error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ze_result_t r = body(list_.get()); r != ZE_RESULT_SUCCESS) return failed(call, r, error);
    appended_since_marker_ = true;
    if (ze_result_t r = ze_.zeCommandListAppendBarrier(list_.get(), nullptr, 0, nullptr); r != ZE_RESULT_SUCCESS) {
      return failed("zeCommandListAppendBarrier", r, error);
    }
    return HAL_STATUS_SUCCESS;
  }

  // `signal` is signaled once every command appended before completed; with `timestamp`, the device's global
  // timestamp of that moment is in *signal->timestamp by then.
  hal_status_t record(const std::shared_ptr<Signal>& signal, bool timestamp, std::string* error);
  // Commands appended after this wait for `signal`, which is kept until they have run.
  hal_status_t wait(std::shared_ptr<Signal> signal, std::string* error);
  // Returns once every command appended before completed.
  hal_status_t synchronize(std::string* error);
  // SUCCESS when every command appended before completed, else NOT_READY.
  hal_status_t query(std::string* error);

 private:
  // The marker that covers everything appended so far (appended now unless the last one still does).
  std::shared_ptr<Signal> mark(std::string* error);
  // Lets go of the waited-for events that completed markers cover. Under mutex_.
  void release_covered();

  const LevelZeroApi& ze_;
  std::shared_ptr<EventCache> events_;
  std::mutex mutex_;
  CommandList list_;
  std::shared_ptr<Signal> marker_;
  bool appended_since_marker_ = true;
  std::vector<std::shared_ptr<Signal>> waited_;  // named by queued waits that no marker covers yet
  // Waited-for events, each batch with the marker appended after its waits: kept until that marker signals.
  std::deque<std::pair<std::shared_ptr<Signal>, std::vector<std::shared_ptr<Signal>>>> covered_;
};

}  // namespace hal_level_zero
