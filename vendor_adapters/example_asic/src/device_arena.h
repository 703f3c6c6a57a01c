// The simulated ASIC's memory: one fixed-size region reserved when the device starts (as a card's HBM
// is fixed), carved into allocations by a first-fit allocator. Device addresses are addresses inside
// that region; the adapter reports the memory as NOT host-accessible, so torch_hal never reads it
// directly and every byte goes through memcpy_async, like a discrete accelerator.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace example_asic {

class DeviceArena {
 public:
  explicit DeviceArena(uint64_t capacity);  // reserves the region (throws std::bad_alloc when it cannot)
  ~DeviceArena();                           // unmaps it: RAII for the whole device memory
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  static constexpr uint64_t kAlignment = 256;  // what a DMA engine typically wants

  uint64_t capacity() const { return capacity_; }
  uint64_t used();

  void* allocate(uint64_t size);  // nullptr when no free range is large enough
  bool free(void* ptr);           // false when `ptr` is not the start of a live allocation

  // True when [ptr, ptr + size) lies inside one live allocation: every kernel and copy checks its
  // device-side ranges with this, so a stray pointer is an error message, never a write into the void.
  bool contains(const void* ptr, uint64_t size);

 private:
  char* base_ = nullptr;
  uint64_t capacity_ = 0;
  std::mutex mutex_;                          // guards the two maps
  std::map<uint64_t, uint64_t> free_ranges_;  // offset -> size, address-ordered for merging
  std::map<uint64_t, uint64_t> allocations_;  // offset -> size
  uint64_t used_ = 0;
};

}  // namespace example_asic
