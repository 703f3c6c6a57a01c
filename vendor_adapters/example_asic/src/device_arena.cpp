#include "device_arena.h"

#include <sys/mman.h>

#include <iterator>
#include <new>

namespace example_asic {

DeviceArena::DeviceArena(uint64_t capacity) : capacity_(capacity / kAlignment * kAlignment) {
  // MAP_NORESERVE: the region is reserved address space; pages cost RAM only once written, so a large
  // simulated card does not take a large piece of the machine.
  void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (capacity_ == 0 || p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<char*>(p);
  free_ranges_.emplace(0, capacity_);
}

DeviceArena::~DeviceArena() { munmap(base_, capacity_); }

uint64_t DeviceArena::used() {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

void* DeviceArena::allocate(uint64_t size) {
  if (size == 0) size = 1;
  if (size > capacity_) return nullptr;
  const uint64_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_ranges_.begin(); it != free_ranges_.end(); ++it) {
    if (it->second < rounded) continue;
    const uint64_t offset = it->first, rest = it->second - rounded;
    free_ranges_.erase(it);
    if (rest > 0) free_ranges_.emplace(offset + rounded, rest);
    allocations_.emplace(offset, rounded);
    used_ += rounded;
    return base_ + offset;
  }
  return nullptr;
}

bool DeviceArena::free(void* ptr) {
  const char* p = static_cast<const char*>(ptr);
  if (p < base_ || p >= base_ + capacity_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.find(static_cast<uint64_t>(p - base_));
  if (it == allocations_.end()) return false;
  uint64_t offset = it->first, size = it->second;
  allocations_.erase(it);
  used_ -= size;
  // Merge with the free neighbours on both sides, so that fragments do not accumulate.
  auto next = free_ranges_.lower_bound(offset);
  if (next != free_ranges_.end() && next->first == offset + size) {
    size += next->second;
    next = free_ranges_.erase(next);
  }
  if (next != free_ranges_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_ranges_.erase(prev);
    }
  }
  free_ranges_.emplace(offset, size);
  return true;
}

bool DeviceArena::contains(const void* ptr, uint64_t size) {
  const char* p = static_cast<const char*>(ptr);
  if (p < base_ || p >= base_ + capacity_) return false;
  const uint64_t offset = static_cast<uint64_t>(p - base_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.upper_bound(offset);  // the first allocation after `offset`
  if (it == allocations_.begin()) return false;
  --it;                                        // the one that starts at or before it
  return offset + size <= it->first + it->second;
}

}  // namespace example_asic
