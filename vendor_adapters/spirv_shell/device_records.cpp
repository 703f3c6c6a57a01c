#include "device_records.h"

#include <utility>

namespace hal_spirv_shell {

void DeviceRecords::add_stream(hal_stream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.insert(stream);
}

void DeviceRecords::forget_stream(hal_stream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.erase(stream);
}

std::vector<hal_stream_t> DeviceRecords::streams() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {streams_.begin(), streams_.end()};
}

void DeviceRecords::add_allocation(void* ptr, uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_.emplace(ptr, size);
  allocated_bytes_ += size;
}

bool DeviceRecords::forget_allocation(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.find(ptr);
  if (it == allocations_.end()) return false;
  allocated_bytes_ -= it->second;
  allocations_.erase(it);
  return true;
}

uint64_t DeviceRecords::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_bytes_;
}

uint64_t DeviceRecords::free_of(uint64_t total) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_bytes_ < total ? total - allocated_bytes_ : 0;
}

std::set<hal_stream_t> DeviceRecords::take_streams() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(streams_, {});
}

std::unordered_map<void*, uint64_t> DeviceRecords::take_allocations() {
  std::lock_guard<std::mutex> lock(mutex_);
  allocated_bytes_ = 0;
  return std::exchange(allocations_, {});
}

}  // namespace hal_spirv_shell
