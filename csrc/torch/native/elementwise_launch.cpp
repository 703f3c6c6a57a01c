#include "native/elementwise_launch.h"

#include "native/native_launch.h"

namespace torch_hal::native {

bool launch_elementwise(at::TensorIteratorBase& iter, hal_op_t op, std::initializer_list<c10::Scalar> op_scalars) {
  const int ndim = iter.ndim();
  if (ndim > HAL_MAX_DIMS) return false;
  const c10::DeviceIndex device = iter.device(0).index();
  if (!has_native_kernels(device)) return false;
  if (iter.numel() == 0) return true;

  // TensorIterator orders dimensions fastest first; the ABI is row-major (last dimension fastest).
  int64_t sizes[HAL_MAX_DIMS];
  for (int d = 0; d < ndim; ++d) sizes[ndim - 1 - d] = iter.shape()[d];
  KernelArgs args;
  for (int k = 0; k < iter.ntensors(); ++k) {
    const at::ScalarType type = iter.dtype(k);
    if (k >= iter.noutputs() && iter.is_cpu_scalar(k)) {
      const at::ScalarType as = iter.common_dtype();
      if (at::isFloatingType(type)) {
        args.scalar_input(iter.scalar_value<double>(k), as);
      } else if (type == at::kBool) {
        args.scalar_input(iter.scalar_value<bool>(k), as);
      } else {
        args.scalar_input(iter.scalar_value<int64_t>(k), as);
      }
      continue;
    }
    const int64_t element_size = static_cast<int64_t>(c10::elementSize(type));
    int64_t strides[HAL_MAX_DIMS];
    const auto byte_strides = iter.strides(k);
    for (int d = 0; d < ndim; ++d) strides[ndim - 1 - d] = byte_strides[d] / element_size;
    const at::IntArrayRef shape(sizes, ndim), stride_list(strides, ndim);
    if (k < iter.noutputs()) {
      args.raw_output(iter.data_ptr(k), type, shape, stride_list);
    } else {
      args.raw_input(iter.data_ptr(k), type, shape, stride_list);
    }
  }
  for (const c10::Scalar& s : op_scalars) args.scalar(s);
  if (!launch(device, op, args)) return false;
  iter.cast_outputs();  // only does work where the iterator made a temporary output
  return true;
}

}  // namespace torch_hal::native
