// What the adapter keeps between calls, from initialize() to shutdown(): the devices the driver reports
// and, per device, the lazily made default stream, peer-access state, cuBLAS context and the kernels'
// per-stream scratch memory.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "blas_context.h"
#include "cudnn_context.h"
#include "cuda_handles.h"
#include "kernels/stream_scratch_cache.h"
#include "torch_hal/adapter.h"

// The opaque handles of adapter.h. A stream or event belongs to the device it was made on; the core passes
// that device back with it.
struct hal_stream_impl {
  hal_nvidia::CudaStream stream;
};
struct hal_event_impl {
  hal_nvidia::CudaEvent event;
  bool timing = false;
};

namespace hal_nvidia {

struct DeviceState {
  int32_t index = 0;
  int32_t cc_major = 0;
  int32_t cc_minor = 0;

  // hal's default stream of this device (a NULL hal_stream_t), made at first use.
  std::mutex default_stream_mutex;
  CudaStream default_stream;
  std::atomic<cudaStream_t> default_stream_handle{nullptr};  // lock-free read once made

  // Peer access from this device to each other device: unknown until the first peer copy asks.
  enum class Peer : uint8_t { Unknown, Enabled, Unavailable };
  std::mutex peer_mutex;
  std::vector<Peer> peer;

  BlasContext blas;
  CudnnContext cudnn;  // convolutions (convolution.cpp)
  hal_gpu::StreamScratchCache scratch;  // after the default stream: its buffers are freed on their streams first
};

struct AdapterState {
  std::vector<std::unique_ptr<DeviceState>> devices;
};

// The state between initialize() and shutdown() (devices.cpp, the lifecycle). The core validates device indices
// before calling in.
AdapterState& state();
inline DeviceState& device_state(int32_t device) { return *state().devices[device]; }

// The cudaStream_t a hal stream stands for; NULL means `device`'s default stream, made here at first use
// (streams_events.cpp).
hal_status_t resolve_stream(int32_t device, hal_stream_t stream, cudaStream_t* out);

}  // namespace hal_nvidia
