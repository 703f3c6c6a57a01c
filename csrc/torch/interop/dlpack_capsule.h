// DLPack capsules whose device says where the memory really is. ATen exports a hal tensor as kDLExtDev
// and imports kDLExtDev as hal; torch_hal/dlpack.py retargets a capsule to the vendor's own DLPack device
// (CUDA memory as kDLCUDA, so CuPy and JAX take it) and back, with the helper bound here.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.retarget_dlpack(capsule, device_type, device_id) and _C.dlpack_device(capsule).
void bind_dlpack(pybind11::module_& m);

}  // namespace torch_hal
