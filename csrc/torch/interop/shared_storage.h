// hal storages shared with another process (torch_hal/multiprocessing_reductions.py), over the core's
// hal/ipc.h: the exporting side describes a storage's memory, the importing side wraps the mapped memory as
// a storage whose last release closes the mapping.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.ipc_supported(index), _C.ipc_export(tensor), _C.ipc_open(...).
void bind_ipc(pybind11::module_& m);

}  // namespace torch_hal
