// Launching an adapter's native kernel (the op table of adapter.h) on ATen tensors.
//
// KernelArgs describes the operands as hal_tensor_t (DLTensor layout) without copying shapes, and
// launch() calls the adapter of the tensors' device on its current stream. A native op answers "not
// supported" (false) when the adapter has no kernel for it, or the dtypes or rank are outside the ABI;
// the caller then takes the host path or the CPU fallback (native_first.h).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/util/SmallVector.h>

#include <optional>

#include "torch_hal/adapter.h"

namespace torch_hal::native {

// Whether the adapter of hal:device implements launch_op at all (cached; lock-free after first use).
bool has_native_kernels(c10::DeviceIndex device);

// The ABI's dtype for an ATen scalar type, or nullopt for those outside it (complex, float8, uint16..).
std::optional<hal_dtype_t> hal_dtype_of(at::ScalarType type);

// The floating dtypes of the ABI, which the multi-tensor and optimizer kernels compute in.
inline bool floating_in_abi(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16 || t == at::kDouble;
}

class KernelArgs {
 public:
  // A tensor operand, described by its own sizes and strides (the tensor must outlive the launch).
  KernelArgs& input(const at::Tensor& t) { return add(inputs_, t); }
  KernelArgs& output(const at::Tensor& t) { return add(outputs_, t); }
  // A tensor operand with the given geometry (strides in elements) over t's data: reshaped or
  // permuted views that ATen need not materialize. `sizes`/`strides` are copied.
  KernelArgs& input_as(const at::Tensor& t, at::IntArrayRef sizes, at::IntArrayRef strides);
  KernelArgs& output_as(const at::Tensor& t, at::IntArrayRef sizes, at::IntArrayRef strides);
  // A non-overlapping dense tensor as the flat array of its elements in memory ([numel], stride 1): the operands
  // of ops whose kernels see only the elements (foreach groups, dropout), in whatever dense layout they share.
  KernelArgs& input_flat(const at::Tensor& t);
  KernelArgs& output_flat(const at::Tensor& t);
  // The same over a raw element-0 pointer (TensorIterator operands), without touching a Tensor.
  KernelArgs& raw_input(const void* data, at::ScalarType type, at::IntArrayRef sizes, at::IntArrayRef strides);
  KernelArgs& raw_output(void* data, at::ScalarType type, at::IntArrayRef sizes, at::IntArrayRef strides);
  // A scalar operand (data NULL, ndim 0) standing for a value of type `as`.
  KernelArgs& scalar_input(const c10::Scalar& value, at::ScalarType as);
  // The same for ops that place scalar operands' values among their own scalars (HAL_OP_FOREACH: each
  // group's values follow the inner op id): the caller passes the value with scalar(), where the op says.
  KernelArgs& scalar_input_slot(at::ScalarType as);
  // Optional tensors not passed, outputs not wanted.
  KernelArgs& absent_input();
  KernelArgs& absent_output();
  // The op's own scalars, in the order adapter.h lists them.
  KernelArgs& scalar(double v);
  KernelArgs& scalar(int64_t v);
  KernelArgs& scalar(bool v);
  KernelArgs& scalar(const c10::Scalar& v);  // as double, int64 or bool by its kind

  // False when some operand's dtype or rank is outside the ABI (then nothing may be launched).
  bool representable() const { return representable_; }

 private:
  friend bool launch(c10::DeviceIndex device, hal_op_t op, KernelArgs& args);
  // Geometry owned here when it is not the tensor's own (input_as / output_as).
  struct OwnedGeometry {
    int64_t sizes[HAL_MAX_DIMS];
    int64_t strides[HAL_MAX_DIMS];
  };
  KernelArgs& add(c10::SmallVector<hal_tensor_t, 4>& list, const at::Tensor& t);
  KernelArgs& add_raw(c10::SmallVector<hal_tensor_t, 4>& list, const void* data, at::ScalarType type,
                      at::IntArrayRef sizes, at::IntArrayRef strides);
  void fix_geometry_pointers();

  c10::SmallVector<hal_tensor_t, 4> inputs_;
  c10::SmallVector<hal_tensor_t, 4> outputs_;
  c10::SmallVector<hal_scalar_t, 4> operand_scalars_;  // values of scalar operands, in input order
  c10::SmallVector<hal_scalar_t, 4> op_scalars_;
  // Four inline entries: an elementwise launch owns one geometry per operand (up to an output and three
  // inputs), and a heap allocation per op is measurable in per-op time.
  c10::SmallVector<OwnedGeometry, 4> owned_;            // pointers fixed up just before launch
  c10::SmallVector<std::pair<bool, size_t>, 4> owned_users_;  // (is_output, position) per owned_ entry
  bool representable_ = true;
};

// Runs `op` on hal:device's current stream. Returns false, having done nothing, when the adapter does
// not support it (or args are not representable); throws the matching c10 error when the adapter fails
// (out of memory: torch.OutOfMemoryError).
bool launch(c10::DeviceIndex device, hal_op_t op, KernelArgs& args);

}  // namespace torch_hal::native
