// Scratch device memory for one op's kernels on one stream (kernels/adapter_services.h's StreamScratch),
// kept per stream so that most ops allocate nothing.
//
// Each device keeps one buffer per stream, grown to the largest request up to kRetainedScratchBytes, so a
// training step does not allocate and free around every reduction (a transformer step made eight such
// pairs on NVIDIA before this cache existed). Reusing the buffer needs no event: work queued on one stream
// runs in order, so the next op's kernels start after this op's kernels are done with it. The lease holds
// the device's scratch lock from the request until it is destroyed, after the op has queued its kernels:
// otherwise another thread's op on the same stream could queue kernels that overwrite the buffer between
// this op's kernels, or grow (free) it under them. Larger requests get memory of their own, freed with the
// lease. The memory itself comes from the adapter (scratch_allocate/scratch_free below), ordered on the
// stream where its runtime can (cudaMallocAsync), or waiting for the device where it cannot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "kernels/op_call.h"

namespace hal_gpu {

class StreamScratch;

constexpr size_t kRetainedScratchBytes = size_t{16} << 20;

// Adapter services: `bytes` of device memory usable by work queued on `stream` after this call (nullptr,
// with no error left pending in the runtime, when there is none), and its release after the work queued on
// `stream` so far.
void* scratch_allocate(size_t bytes, cudaStream_t stream);
void scratch_free(void* ptr, cudaStream_t stream);

// One device's retained buffers, by stream. The adapter owns one per device and destroys it with the
// device current, before the streams its buffers belong to.
class StreamScratchCache {
 public:
  StreamScratchCache() = default;
  StreamScratchCache(const StreamScratchCache&) = delete;
  StreamScratchCache& operator=(const StreamScratchCache&) = delete;
  // Frees `stream`'s buffer after the work queued on it; called before the stream is destroyed, so that
  // a later stream given the same handle starts without one.
  void forget(cudaStream_t stream);

 private:
  friend class StreamScratch;  // the lease (kernels/adapter_services.h), defined in stream_scratch.cpp
  struct Buffer {
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }
    void release();
    void* ptr = nullptr;
    size_t bytes = 0;
    cudaStream_t stream = nullptr;
  };
  std::mutex mutex_;
  std::unordered_map<cudaStream_t, Buffer> buffers_;
};

// Adapter service: `device`'s cache (the device is valid and current).
StreamScratchCache& scratch_cache(int32_t device);

}  // namespace hal_gpu
