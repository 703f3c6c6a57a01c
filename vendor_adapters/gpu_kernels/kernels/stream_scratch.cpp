// The scratch lease and the per-stream cache behind it (kernels/stream_scratch_cache.h), for every GPU
// adapter: only the memory itself comes from the adapter.
#include "kernels/adapter_services.h"
#include "kernels/stream_scratch_cache.h"

namespace hal_gpu {

void StreamScratchCache::Buffer::release() {
  if (ptr) scratch_free(ptr, stream);
  ptr = nullptr;
  bytes = 0;
}

void StreamScratchCache::forget(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  buffers_.erase(stream);
}

StreamScratch::StreamScratch(int32_t device, cudaStream_t stream, size_t bytes) : stream_(stream) {
  if (bytes == 0) return;
  if (bytes > kRetainedScratchBytes) {
    ptr_ = scratch_allocate(bytes, stream);
    own_memory_ = ptr_ != nullptr;
    ok_ = own_memory_;
    return;
  }
  StreamScratchCache& cache = scratch_cache(device);
  lock_ = std::unique_lock<std::mutex>(cache.mutex_);
  StreamScratchCache::Buffer& buffer = cache.buffers_[stream];
  if (buffer.bytes < bytes) {
    // Rounded up to 64 KiB, so that slowly growing shapes do not reallocate every call. The old buffer is
    // freed after the kernels already queued with it.
    const size_t rounded = (bytes + 0xFFFF) & ~size_t{0xFFFF};
    buffer.release();
    buffer.ptr = scratch_allocate(rounded, stream);
    if (!buffer.ptr) {
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
  if (own_memory_) scratch_free(ptr_, stream_);  // after the kernels queued with it
}

}  // namespace hal_gpu
