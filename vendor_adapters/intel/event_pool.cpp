#include "event_pool.h"

namespace hal_level_zero {
namespace {

constexpr uint32_t kEventsPerPool = 64;

}  // namespace

bool EventCache::grow(std::string* error) {
  auto block = std::make_unique<Block>();
  ze_event_pool_desc_t pool_desc{};
  pool_desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  pool_desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  pool_desc.count = kEventsPerPool;
  ze_event_pool_handle_t pool = nullptr;
  // No device list: the events are visible to every device of the context, so one device's stream can wait
  // for another's record.
  if (ze_result_t r = ze_.zeEventPoolCreate(context_, &pool_desc, 0, nullptr, &pool); r != ZE_RESULT_SUCCESS) {
    failed("zeEventPoolCreate", r, error);
    return false;
  }
  block->pool = EventPool(pool, ze_.zeEventPoolDestroy);
  ze_host_mem_alloc_desc_t host_desc{};
  host_desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void* slots = nullptr;
  if (ze_result_t r = ze_.zeMemAllocHost(context_, &host_desc, kEventsPerPool * sizeof(uint64_t), sizeof(uint64_t),
                                         &slots);
      r != ZE_RESULT_SUCCESS) {
    failed("zeMemAllocHost (event timestamps)", r, error);
    return false;
  }
  block->timestamps = Memory(context_, slots, ze_.zeMemFree);
  for (uint32_t i = 0; i < kEventsPerPool; ++i) {
    ze_event_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
    desc.index = i;
    // Host scope both ways: what the commands before a signal wrote is visible to the host that waited for it
    // (a device-to-host copy, a timestamp) and to the device that waited.
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    ze_event_handle_t event = nullptr;
    if (ze_result_t r = ze_.zeEventCreate(pool, &desc, &event); r != ZE_RESULT_SUCCESS) {
      failed("zeEventCreate", r, error);
      return false;
    }
    block->events.emplace_back(event, ze_.zeEventDestroy);
  }
  for (uint32_t i = 0; i < kEventsPerPool; ++i) {
    free_.push_back(Signal{block->events[i].get(), static_cast<uint64_t*>(slots) + i, false});
  }
  blocks_.push_back(std::move(block));
  return true;
}

std::shared_ptr<Signal> EventCache::acquire(std::string* error) {
  Signal taken;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) {
      // Those set aside may have been signaled since.
      for (auto it = pending_.begin(); it != pending_.end();) {
        const bool signaled = ze_.zeEventQueryStatus(it->event) == ZE_RESULT_SUCCESS;
        if (signaled && ze_.zeEventHostReset(it->event) == ZE_RESULT_SUCCESS) {
          free_.push_back(Signal{it->event, it->timestamp, false});
          it = pending_.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (free_.empty() && !grow(error)) return nullptr;
    taken = free_.back();
    free_.pop_back();
  }
  std::weak_ptr<EventCache> cache = weak_from_this();
  return std::shared_ptr<Signal>(new Signal(taken), [cache](Signal* s) {
    if (auto alive = cache.lock()) alive->give_back(*s);
    delete s;
  });
}

void EventCache::give_back(const Signal& signal) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool done = !signal.appended || ze_.zeEventQueryStatus(signal.event) == ZE_RESULT_SUCCESS;
  if (done && ze_.zeEventHostReset(signal.event) == ZE_RESULT_SUCCESS) {
    free_.push_back(Signal{signal.event, signal.timestamp, false});
  } else {
    pending_.push_back(signal);
  }
}

}  // namespace hal_level_zero
