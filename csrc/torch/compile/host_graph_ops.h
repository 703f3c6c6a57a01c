// What torch.compile needs from the glue on host-accessible hal devices (torch_hal/compile/host_graph.py).
//
// Inductor compiles a hal graph for such a device as a CPU graph whose boundary crosses between hal and CPU
// tensors over the same bytes: _C.compile_host_views, which the compiled code calls once at its top to take its
// hal inputs as CPU tensors; _C.compile_host_outputs, which it calls once at its return to hand its outputs back
// as hal tensors; torch_hal::cpu_view, the input view as an operator (the fake tensors of the rewritten graph
// use it). The compiled code's buffers in the device's own memory come from _C.host_buffer_allocator
// (generated_code_calls.h).
#pragma once

#include <pybind11/pybind11.h>

namespace torch_hal {

// torch_hal._C.compile_host_views(*inputs) and torch_hal._C.compile_host_outputs(outputs, devices), as CPython
// fast calls (generated_code_calls.h says why).
void bind_compile_host_graph(pybind11::module_& m);

}  // namespace torch_hal
