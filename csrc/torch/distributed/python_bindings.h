#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal::distributed {

// Adds torch_hal._C._init_distributed(), which binds the backend class once torch.distributed is imported
// (its base class, c10d's Backend, is registered by torch.distributed's own import).
void bind(pybind11::module& m);

}  // namespace torch_hal::distributed
