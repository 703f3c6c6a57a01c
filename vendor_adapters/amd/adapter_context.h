// The AMD adapter's shared state: the loaded HIP runtime, the devices' state between initialize() and
// shutdown(), the per-thread error message (adapter_support/abi_boundary.h), turning HIP errors into hal
// statuses, and what the table's entries do first (use(), the handle casts).
#pragma once

#include <mutex>
#include <string>

#include "hip_api.h"
#include "lt_bias_gemm.h"
#include "rocblas_api.h"
#include "kernels/stream_scratch_cache.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

// The runtime, once initialize() succeeded (every entry point but initialize runs after it).
const HipApi& hip();

// A rocBLAS handle, destroyed with its owner.
class RocblasHandle {
 public:
  RocblasHandle() = default;
  RocblasHandle(const RocblasHandle&) = delete;
  RocblasHandle& operator=(const RocblasHandle&) = delete;
  ~RocblasHandle();
  // The handle, made on first use on the current device; nullptr with the reason in *why.
  rocblas_handle get(const RocblasApi& api, std::string* why);

 private:
  const RocblasApi* api_ = nullptr;
  rocblas_handle handle_ = nullptr;
};

// What the adapter keeps per device between initialize() and shutdown().
struct DeviceState {
  hal_gpu::StreamScratchCache scratch;  // the kernels' per-stream scratch
  std::mutex blas_mutex;                // a BLAS handle serves one thread at a time (its stream is state)
  RocblasHandle blas;
  hal_gpu::LibraryHandle<void> blas_lt;  // hipBLASLt's handle, made at the first GEMM with a bias
  LtBiasGemmCache lt_bias_gemms;         // after the handle: its descriptors go first
};

// Made by initialize() for `count` devices and destroyed by shutdown(), while the runtime is up.
void create_device_states(int count);
void destroy_device_states();
DeviceState& device_state(int device);

// SUCCESS once `device` (valid) is this thread's current HIP device. Asks the runtime first: the current
// device is per-thread state that code outside this adapter may change, and hipSetDevice costs more than
// hipGetDevice.
hal_status_t use_device(int device);

// The number of devices between initialize() and shutdown() (devices.cpp), 0 otherwise.
extern int g_device_count;

// SUCCESS once `device` is a device of this adapter and this thread's current one; otherwise the error is
// recorded.
hal_status_t use(int32_t device);

// A hal stream or event is the HIP handle itself (a NULL stream: HIP's null stream, the device's default).
inline hipStream_t stream_of(hal_stream_t stream) { return reinterpret_cast<hipStream_t>(stream); }
inline hipEvent_t event_of(hal_event_t event) { return reinterpret_cast<hipEvent_t>(event); }

// Records the message get_last_error() returns on this thread; returns `status`.
hal_status_t fail(hal_status_t status, const std::string& message);
const char* last_error();

// SUCCESS for hipSuccess; otherwise the matching status, with "<what>: hipErrorName: text" recorded.
hal_status_t check(hipError_t error, const std::string& what);

}  // namespace hal_amd
