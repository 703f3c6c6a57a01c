// What the GPU kernel library needs from the adapter that compiles it in, and nothing more: each adapter
// (vendor_adapters/nvidia over the CUDA runtime, vendor_adapters/amd over HIP loaded with dlopen) defines
// these, so the library itself calls no vendor runtime and builds unchanged for every vendor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "kernels/op_call.h"

namespace hal_gpu {

// Number of compute units (SMs, CUs) of `device`, cached by the adapter; a plausible default if unknown.
int multiprocessor_count(int32_t device);

// Stream-ordered memset and device-to-device copy, queued on `stream`; errors reported as `what`.
hal_status_t memset_async(void* ptr, int value, size_t bytes, cudaStream_t stream, const char* what);
hal_status_t copy_device_async(void* dst, const void* src, size_t bytes, cudaStream_t stream, const char* what);

// Scratch device memory for one op's kernels on one stream (split-reduction partials, layer-norm backward
// column partials, randperm keys, embedding-backward accumulators). The adapter keeps a buffer per stream,
// so most ops allocate nothing; the lease holds the stream's buffer until it is destroyed, after the op
// has queued its kernels, so that another thread's op on the same stream cannot overwrite or free it
// between this op's kernels.
class StreamScratch {
 public:
  // `bytes` of scratch on `device` (current) for kernels queued on `stream`; ok() is false when the memory
  // could not be had (no kernel may then be queued).
  StreamScratch(int32_t device, cudaStream_t stream, size_t bytes);
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  bool ok() const { return ok_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  std::unique_lock<std::mutex> lock_;
  cudaStream_t stream_ = nullptr;
  void* ptr_ = nullptr;
  bool own_memory_ = false;  // larger than the retained buffer: allocated for this lease alone
  bool ok_ = true;
};

}  // namespace hal_gpu
