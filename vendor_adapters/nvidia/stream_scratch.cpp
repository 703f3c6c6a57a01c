#include "stream_scratch.h"

#include "adapter_state.h"

namespace hal_nvidia {

void StreamScratchCache::Buffer::release() {
  if (ptr) (void)cudaFreeAsync(ptr, stream);  // cleanup: a failed free only leaks
  ptr = nullptr;
  bytes = 0;
}

void StreamScratchCache::forget(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  buffers_.erase(stream);
}

}  // namespace hal_nvidia

namespace hal_gpu {

using hal_nvidia::device_state;
using hal_nvidia::kRetainedScratchBytes;
using hal_nvidia::StreamScratchCache;

StreamScratch::StreamScratch(int32_t device, cudaStream_t stream, size_t bytes) : stream_(stream) {
  if (bytes == 0) return;
  if (bytes > kRetainedScratchBytes) {
    own_memory_ = cudaMallocAsync(&ptr_, bytes, stream) == cudaSuccess;
    if (!own_memory_) {
      (void)cudaGetLastError();  // clear the failed allocation's error for the caller's next CUDA call
      ptr_ = nullptr;
      ok_ = false;
    }
    return;
  }
  StreamScratchCache& cache = device_state(device).scratch;
  lock_ = std::unique_lock<std::mutex>(cache.mutex_);
  StreamScratchCache::Buffer& buffer = cache.buffers_[stream];
  if (buffer.bytes < bytes) {
    // Rounded up to 64 KiB, so that slowly growing shapes do not reallocate every call. The old buffer is
    // freed after the kernels already queued with it.
    const size_t rounded = (bytes + 0xFFFF) & ~size_t{0xFFFF};
    buffer.release();
    if (cudaMallocAsync(&buffer.ptr, rounded, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      buffer.ptr = nullptr;
      lock_.unlock();
      ok_ = false;
      return;
    }
    buffer.bytes = rounded;
    buffer.stream = stream;
  }
  ptr_ = buffer.ptr;
}

StreamScratch::~StreamScratch() {
  if (own_memory_) (void)cudaFreeAsync(ptr_, stream_);  // after the kernels queued with it
}

}  // namespace hal_gpu
