// Which hal device an op runs on, checked as PyTorch checks CUDA ops: every hal tensor argument on one
// device, and CPU tensors allowed beside them only as 0-dim scalars (or where the op takes CPU indices).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include "dispatch/tensor_bridge.h"
#include "runtime/hal_context.h"

namespace torch_hal {

struct DeviceScan {
  int device = -1;  // int, not DeviceIndex (int8_t), so messages print a number
  void visit_tensor(const at::Tensor& t, const char* op_name, bool cpu_allowed) {
    if (!t.defined()) return;
    if (is_hal(t)) {
      const int index = t.device().index();
      TORCH_CHECK(device < 0 || device == index,
                  "Expected all tensors to be on the same device, but found at least two devices, hal:", device,
                  " and hal:", static_cast<int>(index), "! (when checking arguments of ", op_name,
                  "). Move them to one device first, e.g. with .to(\"hal:", static_cast<int>(device), "\").");
      device = index;
    } else if (t.device().is_cpu() && t.dim() > 0 && !cpu_allowed) {
      cpu_tensor_seen = true;
    }
  }
  bool cpu_tensor_seen = false;

  // Call after every argument was visited.
  void finish(const char* op_name) const {
    if (device < 0) return;
    TORCH_CHECK(!cpu_tensor_seen,
                "Expected all tensors to be on the same device, but found at least two devices, hal:", device,
                " and cpu! (when checking arguments of ", op_name,
                "). Move the CPU tensor to the hal device first, e.g. with .to(\"hal:", device, "\").");
  }
};

}  // namespace torch_hal
