// What `python -m torch_hal coverage` needs from the glue: the kernel table (dispatch/kernel_table.h) and
// each adapter's answer to op_supported, the ABI's question "do you have this op for this dtype?".
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.kernel_table(), _C.hal_op_name(op) and _C.adapter_op_support(device, op, dtype).
void bind_op_coverage(pybind11::module_& m);

}  // namespace torch_hal
