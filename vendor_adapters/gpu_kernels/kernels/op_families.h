// Which kernel family runs an op, from adapter_ops.def: the same routing in every adapter that compiles the
// library in, and no list of ids anywhere else.
#pragma once

#include <cstdint>

#include "kernels/op_call.h"

namespace hal_gpu {

enum class Family : uint8_t {
#define HAL_FAMILY(family, provider) family,
#include "torch_hal/adapter_ops.def"
  none  // an id adapter_ops.def does not declare
};

constexpr Family family_of(hal_op_t op) {
  switch (op) {
#define HAL_OP(NAME, id, family) \
  case HAL_OP_##NAME:            \
    return Family::family;
#include "torch_hal/adapter_ops.def"
  }
  return Family::none;
}

using Launcher = hal_status_t (*)(const OpCall&);

// The library's entry point for the op's family; nullptr for ids no family of the library runs (unknown ids,
// and VENDOR families such as convolution, which an adapter serves itself).
inline Launcher library_launcher(hal_op_t op) {
  switch (family_of(op)) {
#define HAL_GPU_LAUNCHER_LIBRARY(family) \
  case Family::family:                   \
    return &launch_##family;
#define HAL_GPU_LAUNCHER_VENDOR(family)
#define HAL_FAMILY(family, provider) HAL_GPU_LAUNCHER_##provider(family)
#include "torch_hal/adapter_ops.def"
#undef HAL_GPU_LAUNCHER_LIBRARY
#undef HAL_GPU_LAUNCHER_VENDOR
    default:
      return nullptr;
  }
}

}  // namespace hal_gpu
