#include "adapter_state.h"

#include <dlfcn.h>

#include <string>

#include "cuda_status.h"
#include "current_device.h"

namespace hal_nvidia {
namespace {

std::mutex g_lifecycle_mutex;
AdapterState* g_state = nullptr;  // between the first initialize() and the last shutdown()
int g_initializations = 0;         // initialize()/shutdown() pairs may nest

std::string version_text(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

bool driver_library_present() {
  void* library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!library) return false;
  dlclose(library);
  return true;
}

// Why the CUDA runtime could not start, and what to do about it.
std::string unavailable_reason(cudaError_t error) {
  const std::string code = std::string(" (") + cudaGetErrorName(error) + ")";
  switch (error) {
    case cudaErrorInsufficientDriver: {
      if (!driver_library_present()) {
        return "no NVIDIA driver (libcuda.so.1 not found): install the NVIDIA driver" + code;
      }
      int driver = 0;
      (void)cudaDriverGetVersion(&driver);
      return "the NVIDIA driver supports CUDA " + version_text(driver) + ", older than the CUDA " +
             version_text(CUDART_VERSION) + " runtime this adapter was built with: update the NVIDIA driver" + code;
    }
    case cudaErrorNoDevice:
      return "the driver found no NVIDIA GPU: check nvidia-smi, and CUDA_VISIBLE_DEVICES if it is set" + code;
    case cudaErrorDevicesUnavailable:
      return "every NVIDIA GPU is busy or unavailable (exclusive-process compute mode? see nvidia-smi -q)" + code;
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return "the NVIDIA driver's user-space library does not match its kernel module: reinstall the driver or "
             "reboot after an upgrade" + code;
    default:
      return std::string("the CUDA runtime failed to start: ") + cudaGetErrorName(error) + ": " +
             cudaGetErrorString(error);
  }
}

hal_status_t make_device(int32_t index, int32_t count, std::unique_ptr<DeviceState>* out) {
  auto d = std::make_unique<DeviceState>();
  d->index = index;
  d->peer.assign(static_cast<size_t>(count), DeviceState::Peer::Unknown);
  if (hal_status_t s = check(cudaDeviceGetAttribute(&d->cc_major, cudaDevAttrComputeCapabilityMajor, index),
                             "cudaDeviceGetAttribute(compute capability)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  if (hal_status_t s = check(cudaDeviceGetAttribute(&d->cc_minor, cudaDevAttrComputeCapabilityMinor, index),
                             "cudaDeviceGetAttribute(compute capability)");
      s != HAL_STATUS_SUCCESS) {
    return s;
  }
  *out = std::move(d);
  return HAL_STATUS_SUCCESS;
}

}  // namespace

AdapterState& state() { return *g_state; }

hal_status_t initialize() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_state) {
    ++g_initializations;
    return HAL_STATUS_SUCCESS;
  }
  // The static CUDA runtime loads libcuda.so.1 itself here; without a driver it returns an error (it
  // never aborts), so a machine without an NVIDIA GPU only sees this adapter as unavailable.
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(HAL_STATUS_UNAVAILABLE, unavailable_reason(error));
  }
  if (count == 0) return fail(HAL_STATUS_UNAVAILABLE, unavailable_reason(cudaErrorNoDevice));

  auto s = std::make_unique<AdapterState>();
  for (int32_t i = 0; i < count; ++i) {
    std::unique_ptr<DeviceState> d;
    if (hal_status_t st = make_device(i, count, &d); st != HAL_STATUS_SUCCESS) {
      return fail(HAL_STATUS_UNAVAILABLE, std::string("NVIDIA GPU ") + std::to_string(i) +
                                              " cannot be queried: " + last_error());
    }
    s->devices.push_back(std::move(d));
  }
  g_state = s.release();
  g_initializations = 1;
  return HAL_STATUS_SUCCESS;
}

void shutdown() {
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_initializations == 0 || --g_initializations > 0) return;
  // Each device's handles are released with that device current (cuBLAS destroys on the current one).
  for (auto& d : g_state->devices) {
    if (use_device(d->index) == HAL_STATUS_SUCCESS) d.reset();
  }
  delete g_state;  // what is left could not make its device current: released without it
  g_state = nullptr;
}

hal_status_t device_count(int32_t* count) {
  *count = static_cast<int32_t>(g_state->devices.size());
  return HAL_STATUS_SUCCESS;
}

hal_status_t resolve_stream(int32_t device, hal_stream_t stream, cudaStream_t* out) {
  if (stream) {
    *out = stream->stream.get();
    return HAL_STATUS_SUCCESS;
  }
  DeviceState& d = device_state(device);
  if (cudaStream_t s = d.default_stream_handle.load(std::memory_order_acquire)) {
    *out = s;
    return HAL_STATUS_SUCCESS;
  }
  // hal's default stream is a stream of its own, not CUDA's legacy NULL stream: that one waits for, and
  // holds up, every blocking stream of the device in the whole process (PyTorch's included). Non-blocking
  // also keeps it independent of the legacy stream; ordering with other hal streams is the core's job
  // (events), as it is for torch.cuda's streams.
  std::lock_guard<std::mutex> lock(d.default_stream_mutex);
  if (!d.default_stream) {
    if (hal_status_t s = use_device(device); s != HAL_STATUS_SUCCESS) return s;
    cudaStream_t s = nullptr;
    if (hal_status_t st = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating the default stream");
        st != HAL_STATUS_SUCCESS) {
      return st;
    }
    d.default_stream.reset(s);
    d.default_stream_handle.store(s, std::memory_order_release);
  }
  *out = d.default_stream.get();
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_nvidia
