// What the SPIR-V runtimes share beyond the modules: which kernel runs an adapter op, with which arguments in
// which order, over how many work-items. plan() turns an op of adapter.h into launches described without any
// runtime's types; the OpenCL adapter sets them with clSetKernelArg(SVMPointer), the Level Zero adapter with
// zeKernelSetArgumentValue. The kernels' argument conventions therefore live here once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spirv_modules.h"
#include "torch_hal/adapter.h"

namespace hal_spirv {

struct KernelArg {
  enum class Kind { Pointer, Value };
  Kind kind = Kind::Value;
  const void* pointer = nullptr;  // Pointer: a device (or shared virtual) address
  size_t size = 0;                // Value: bytes of value[]
  // Room for the largest by-value struct of kernels/kernel_layouts.h (a StridedLayout, 344 bytes): shapes and
  // strides travel as kernel arguments, so no launch needs a scratch buffer.
  alignas(8) unsigned char value[384] = {};

  static KernelArg of_pointer(const void* p);
  template <typename T>
  static KernelArg of_value(const T& v) {
    static_assert(sizeof(T) <= sizeof(value), "kernel argument too large");
    KernelArg a;
    a.size = sizeof(T);
    __builtin_memcpy(a.value, &v, sizeof(T));
    return a;
  }
};

struct Launch {
  Module module = Module::Elementwise;
  const char* kernel = nullptr;  // the kernel's name in the module
  std::vector<KernelArg> args;   // in the kernel's parameter order
  uint32_t dims = 1;
  size_t global[3] = {1, 1, 1};  // work-items; kernels ignore those past their range (runtimes may round up)
  size_t local[3] = {0, 0, 0};   // work-group size; 0: the runtime chooses
};

// Whether some kernel runs the op (tensors == nullptr) or runs it on these tensors' dtypes.
bool supports(hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);

// supports() as adapter.h's op_supported entry, which the adapters that run SPIR-V point at.
hal_status_t op_supported(int32_t device, hal_op_t op, const hal_tensor_t* tensors, int32_t num_tensors);

// The launches that run the op, in order, on one in-order queue. NOT_SUPPORTED (nothing planned) for what no
// kernel takes, which sends the op to the core's counted fallback; SUCCESS with no launch for empty tensors.
hal_status_t plan(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                  int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, std::vector<Launch>* launches);

}  // namespace hal_spirv
