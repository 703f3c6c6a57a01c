// The HAL core's error model: every failure is a hal::Error carrying a code and a message that names the
// problem and the fix. The PyTorch glue maps codes to Python exception types (OutOfMemory to
// torch.OutOfMemoryError, InvalidArgument to ValueError, ...); the core itself knows nothing of Python.
#pragma once

#include <stdexcept>
#include <string>

#include "torch_hal/adapter.h"

namespace hal {

enum class ErrorCode {
  InvalidArgument,     // bad device index, bad size, malformed request
  OutOfDeviceMemory,   // the device (or its memory-fraction cap) cannot satisfy an allocation
  OutOfHostMemory,
  NotSupported,
  Unavailable,         // adapter present but its runtime or hardware is not
  AdapterLoad,         // a library that is not an adapter, a wrong ABI version, a missing symbol
  Device,              // the vendor driver reported an error
  BadConfig,           // an environment variable that does not parse (environment.h)
  BadFork,             // a device used in a child forked after its parent used one (fork_guard.h)
  Internal,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Maps an adapter status to the core's error code (OUT_OF_DEVICE_MEMORY stays distinct from host OOM).
ErrorCode error_code_from_status(hal_status_t status);

// Name of a status for messages, e.g. "HAL_STATUS_OUT_OF_DEVICE_MEMORY".
const char* status_name(hal_status_t status);

// Throws hal::Error when `status` is not SUCCESS. The message reads
// "<adapter name>: <what> failed: <STATUS_NAME>: <adapter's per-thread message>".
void throw_on_failure(const hal_adapter_t& adapter, hal_status_t status, const char* what);

}  // namespace hal
