// torch.hal.memory's history API: the allocator's segments and blocks, and its action trace, with the
// Python stacks that allocated, for torch.hal.memory._snapshot() (torch.cuda's format, read by memory_viz).
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// _C.memory_snapshot(), _C.memory_trace(), _C.record_memory_history(enabled, max_entries).
void bind_memory_history(pybind11::module_& m);

}  // namespace torch_hal
