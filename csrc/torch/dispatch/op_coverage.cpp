#include "dispatch/op_coverage.h"

#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "dispatch/kernel_table.h"
#include "dispatch/native_launch.h"
#include "runtime/hal_context.h"

namespace py = pybind11;

namespace torch_hal {
namespace {

py::list kernel_table_list() {
  py::list out;
  for (const native::KernelRecord& r : native::recorded_kernels()) {
    py::dict d;
    d["name"] = r.name;
    d["route"] = native::route_name(r.route);
    d["hal_ops"] = r.hal_ops;
    out.append(d);
  }
  return out;
}

// The adapter's answer for `op` with inputs of `dtype`:
//   "no_native_kernels"  the adapter has no launch_op (every op takes a CPU kernel or the fallback);
//   "decided_at_launch"  it launches ops but has no op_supported to ask beforehand;
//   "supported" / "not_supported"  what op_supported says (a dtype outside the ABI is not supported).
// The question carries one 1-element tensor of `dtype`: adapters answer for an op and its dtypes, and
// launch_op still decides layouts and dtype mixes (NOT_SUPPORTED there sends the op down its other path).
std::string adapter_op_support(int index, int op, at::ScalarType dtype) {
  const hal::Device& dev = device(static_cast<c10::DeviceIndex>(index));
  const hal_adapter_t& table = dev.table();
  if (table.launch_op == nullptr) return "no_native_kernels";
  if (table.op_supported == nullptr) return "decided_at_launch";
  const auto hal_dtype = native::hal_dtype_of(dtype);
  if (!hal_dtype.has_value()) return "not_supported";
  alignas(16) static char element[16];  // op_supported reads descriptions only; the pointer just marks a real tensor
  int64_t shape[1] = {1}, strides[1] = {1};
  hal_tensor_t t{};
  t.data = element;
  t.device.device_id = dev.local_index;
  t.ndim = 1;
  t.dtype = *hal_dtype;
  t.shape = shape;
  t.strides = strides;
  const hal_status_t status = table.op_supported(dev.local_index, static_cast<hal_op_t>(op), &t, 1);
  return status == HAL_STATUS_SUCCESS ? "supported" : "not_supported";
}

}  // namespace

void bind_op_coverage(py::module_& m) {
  m.def("kernel_table", &kernel_table_list);
  m.def("hal_op_name", [](int op) { return native::hal_op_name(static_cast<hal_op_t>(op)); });
  m.def("adapter_op_support", &adapter_op_support);
}

}  // namespace torch_hal
