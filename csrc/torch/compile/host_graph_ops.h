// What torch.compile needs from the glue on host-accessible hal devices (torch_hal/compile/host_graph.py).
//
// Inductor compiles a hal graph for such a device as a CPU graph whose boundary crosses between hal and CPU
// tensors over the same bytes: operators torch_hal::cpu_view, hal_view and copy_into_hal (registered with
// the dispatcher, so the compiled code calls them like any aten op), and _C.compile_host_buffer, the
// allocation of the compiled code's CPU buffers in the device's own memory.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.compile_host_buffer(size, stride, dtype, device).
void bind_compile_host_graph(pybind11::module_& m);

}  // namespace torch_hal
