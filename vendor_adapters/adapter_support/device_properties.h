// How an adapter hands get_device_properties' answer over the C ABI: hal_device_properties_t grows at its end
// (adapter.h), so a caller built against an older header passes a smaller struct_size. Only what the caller's
// struct holds is copied, and struct_size then says how much that was.
#pragma once

#include <cstdint>
#include <cstring>

#include "torch_hal/adapter.h"

namespace hal_adapter_support {

inline hal_status_t answer_properties(const hal_device_properties_t& p, hal_device_properties_t* props) {
  const uint32_t size = props->struct_size < sizeof(p) ? props->struct_size : static_cast<uint32_t>(sizeof(p));
  std::memcpy(props, &p, size);
  props->struct_size = size;
  return HAL_STATUS_SUCCESS;
}

}  // namespace hal_adapter_support
