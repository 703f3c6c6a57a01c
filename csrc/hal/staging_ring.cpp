#include "staging_ring.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "hal/error.h"
#include "parallel_memcpy.h"

namespace hal {

StagingRing::Buffer::~Buffer() {
  if (ptr_) device_->table().free_host(ptr_);
}

void* StagingRing::Buffer::data(const Device& device) {
  if (!ptr_) {
    void* p = nullptr;
    throw_on_failure(device.table(), device.table().malloc_host(kChunkBytes, &p), "malloc_host (staging buffer)");
    ptr_ = p;
    device_ = &device;
  }
  return ptr_;
}

StagingRing::StagingRing(int device) : device_(DeviceRegistry::instance().device(device)) {}

StagingRing::Buffer& StagingRing::acquire() {
  Buffer& buffer = buffers_[next_++ % kBuffers];
  buffer.done.synchronize();  // no-op for a buffer never used
  buffer.data(device_);
  return buffer;
}

void StagingRing::host_to_device(void* dst, const void* src, size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  const hal_adapter_t& t = device_.table();
  hal_stream_t s = native_stream(device_.index, stream);
  // While the device copies chunk i out of one buffer, the host fills chunk i+1 into the next.
  for (size_t offset = 0; offset < nbytes; offset += kChunkBytes) {
    const size_t len = std::min(kChunkBytes, nbytes - offset);
    Buffer& buffer = acquire();
    void* staging = buffer.data(device_);
    parallel_memcpy(staging, static_cast<const char*>(src) + offset, len);
    throw_on_failure(t, t.memcpy_async(device_.local_index, static_cast<char*>(dst) + offset, staging, len,
                                       HAL_COPY_HOST_TO_DEVICE, s),
                     "memcpy_async (host to device, staged)");
    buffer.done.record(device_.index, stream);
  }
}

void StagingRing::device_to_host(void* dst, const void* src, size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  const hal_adapter_t& t = device_.table();
  hal_stream_t s = native_stream(device_.index, stream);
  struct InFlight {
    Buffer* buffer;
    size_t offset, len;
  };
  std::deque<InFlight> in_flight;
  // Copies one finished chunk out of its buffer; the device meanwhile fills the others.
  auto drain_one = [&] {
    InFlight f = in_flight.front();
    in_flight.pop_front();
    f.buffer->done.synchronize();
    parallel_memcpy(static_cast<char*>(dst) + f.offset, f.buffer->data(device_), f.len);
  };
  for (size_t offset = 0; offset < nbytes; offset += kChunkBytes) {
    if (in_flight.size() == kBuffers) drain_one();  // the buffer about to be reused holds the oldest chunk
    const size_t len = std::min(kChunkBytes, nbytes - offset);
    Buffer& buffer = acquire();
    throw_on_failure(t, t.memcpy_async(device_.local_index, buffer.data(device_), static_cast<const char*>(src) + offset,
                                       len, HAL_COPY_DEVICE_TO_HOST, s),
                     "memcpy_async (device to host, staged)");
    buffer.done.record(device_.index, stream);
    in_flight.push_back({&buffer, offset, len});
  }
  while (!in_flight.empty()) drain_one();
}

}  // namespace hal
