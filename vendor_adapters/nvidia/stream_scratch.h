// Scratch device memory for one op's kernels on one stream: split-reduction partials, layer-norm backward
// column partials, randperm keys, embedding-backward accumulators.
//
// Each device keeps one buffer per stream, grown to the largest request up to kRetainedScratchBytes, so a
// training step does not call cudaMallocAsync and cudaFreeAsync around every reduction (a transformer
// step made eight such pairs). Reusing the buffer needs no event: work queued on one stream runs in
// order, so the next op's kernels start after this op's kernels are done with it. The lease holds the
// device's scratch lock from the request until it is destroyed, after the op has queued its kernels:
// otherwise another thread's op on the same stream could queue kernels that overwrite the buffer between
// this op's kernels, or grow (free) it under them. Larger requests get memory of their own, freed
// stream-ordered with the lease.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "kernels/adapter_services.h"

namespace hal_nvidia {

constexpr size_t kRetainedScratchBytes = size_t{16} << 20;

// One device's retained buffers, by stream (a member of DeviceState, destroyed before the default stream
// with the device current). Every allocation and free is ordered on the buffer's stream, so none waits
// for the device.
class StreamScratchCache {
 public:
  StreamScratchCache() = default;
  StreamScratchCache(const StreamScratchCache&) = delete;
  StreamScratchCache& operator=(const StreamScratchCache&) = delete;
  // Frees `stream`'s buffer after the work queued on it; called before the stream is destroyed, so that
  // a later stream given the same handle starts without one.
  void forget(cudaStream_t stream);

 private:
  friend class hal_gpu::StreamScratch;  // the lease (kernels/adapter_services.h) defined in stream_scratch.cpp
  // Memory from cudaMallocAsync on `stream`, freed with cudaFreeAsync on it.
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

}  // namespace hal_nvidia
