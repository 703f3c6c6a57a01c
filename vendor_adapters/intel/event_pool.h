// Level Zero events for the adapter's streams and events, from pools of one context.
//
// A hal event's record, a stream's synchronization marker and a stream's wait all need an event that some
// command will signal. Each use takes a fresh one (a Signal) and holds it by shared_ptr for as long as a
// command may still signal it or wait for it: re-signaling an event that a queued wait still names would make
// that wait wait for the wrong record. A Signal given back goes to the free list once signaled (reset by the
// host), and is set aside until then. Events come 64 to a pool, host-visible, with a slot of host memory
// each for the global timestamp that timing records write.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "level_zero_api.h"
#include "handles.h"

namespace hal_level_zero {

struct Signal {
  ze_event_handle_t event = nullptr;
  uint64_t* timestamp = nullptr;  // host memory a timing record writes the device's global timestamp to
  bool appended = false;          // a command that signals it was queued
};

class EventCache : public std::enable_shared_from_this<EventCache> {
 public:
  EventCache(const LevelZeroApi& ze, ze_context_handle_t context) : ze_(ze), context_(context) {}
  EventCache(const EventCache&) = delete;
  EventCache& operator=(const EventCache&) = delete;

  // An unsignaled event; nullptr, with *error set, where the driver gives no pool. A Signal that outlives the
  // cache (the adapter shut down) is only forgotten: its pool went with the cache.
  std::shared_ptr<Signal> acquire(std::string* error);

 private:
  struct Block {
    EventPool pool;
    Memory timestamps;
    std::vector<Event> events;  // declared last: destroyed before their pool
  };

  void give_back(const Signal& signal);
  bool grow(std::string* error);  // under mutex_

  const LevelZeroApi& ze_;
  ze_context_handle_t context_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<Signal> free_;
  std::vector<Signal> pending_;  // given back before their command signaled them
};

}  // namespace hal_level_zero
