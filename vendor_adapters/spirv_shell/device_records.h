// What one device has made through a SPIR-V adapter and must give back: the streams created on it and its device
// allocations with their total, kept under one lock since the table's entries run on any thread. The adapter's
// Device holds one (`records`); the runtime's handles stay the adapter's, which releases them.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "torch_hal/adapter.h"

namespace hal_spirv_shell {

class DeviceRecords {
 public:
  void add_stream(hal_stream_t stream);
  void forget_stream(hal_stream_t stream);
  std::vector<hal_stream_t> streams() const;

  void add_allocation(void* ptr, uint64_t size);
  // False where `ptr` is not an allocation of this device (nothing changes then).
  bool forget_allocation(void* ptr);
  uint64_t allocated_bytes() const;
  // What is not allocated through the adapter, of `total` bytes: neither runtime says how much memory is free.
  uint64_t free_of(uint64_t total) const;

  // At shutdown, for the adapter to release: everything recorded, the records left empty.
  std::set<hal_stream_t> take_streams();
  std::unordered_map<void*, uint64_t> take_allocations();

 private:
  mutable std::mutex mutex_;
  std::set<hal_stream_t> streams_;
  std::unordered_map<void*, uint64_t> allocations_;
  uint64_t allocated_bytes_ = 0;
};

}  // namespace hal_spirv_shell
