// stream_destroy for the SPIR-V adapters, in the adapter's namespace (spirv_traits.h): the stream leaves the
// device's records, then the adapter's release_stream() gives its runtime object back and deletes it.
#include "spirv_traits.h"

hal_status_t hal_spirv_shell::adapter::stream_destroy(int32_t device, hal_stream_t stream) {
  if (stream == nullptr) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "stream_destroy: the default stream cannot be destroyed");
  }
  dev(device).records.forget_stream(stream);
  return release_stream(stream);
}
