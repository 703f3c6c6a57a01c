#include "dispatch/native_launch.h"

#include <array>
#include <atomic>
#include <string>

#include "hal/op_names.h"
#include "hal/streams.h"
#include "profiler/device_spans.h"
#include "runtime/hal_context.h"

namespace torch_hal::native {
namespace {

// 0 unknown, 1 no, 2 yes; one slot per possible device so the check on every op takes no lock.
std::array<std::atomic<uint8_t>, hal::DeviceRegistry::kMaxDevices> g_has_native{};

hal_tensor_t describe(const at::Tensor& t, const hal_dtype_t& dtype) {
  hal_tensor_t h{};
  // data + byte_offset is element 0; data itself is the element-0 pointer, so the offset stays 0 (an
  // empty tensor may have no storage at all).
  h.data = t.numel() == 0 ? nullptr : const_cast<void*>(t.const_data_ptr());
  h.ndim = static_cast<int32_t>(t.dim());
  h.dtype = dtype;
  h.shape = const_cast<int64_t*>(t.sizes().data());
  h.strides = const_cast<int64_t*>(t.strides().data());
  h.byte_offset = 0;
  return h;
}

hal_scalar_t scalar_value(const c10::Scalar& v) {
  hal_scalar_t s{};
  if (v.isBoolean()) {
    s.kind = 2;
    s.value.b = v.toBool() ? 1 : 0;
  } else if (v.isIntegral(false)) {
    s.kind = 1;
    s.value.i = v.toLong();
  } else {
    TORCH_CHECK(!v.isComplex(), "hal: complex scalars have no native kernel");
    s.kind = 0;
    s.value.f = v.toDouble();
  }
  return s;
}

}  // namespace

bool has_native_kernels(c10::DeviceIndex device) {
  auto& slot = g_has_native[static_cast<size_t>(device)];
  uint8_t known = slot.load(std::memory_order_relaxed);
  if (known == 0) {
    const auto& table = torch_hal::device(device).table();
    known = table.launch_op != nullptr ? 2 : 1;
    slot.store(known, std::memory_order_relaxed);
  }
  return known == 2;
}

std::optional<hal_dtype_t> hal_dtype_of(at::ScalarType type) {
  switch (type) {
    case at::kBool: return hal_dtype_t{HAL_DTYPE_BOOL, 8, 1};
    case at::kByte: return hal_dtype_t{HAL_DTYPE_UINT, 8, 1};
    case at::kChar: return hal_dtype_t{HAL_DTYPE_INT, 8, 1};
    case at::kShort: return hal_dtype_t{HAL_DTYPE_INT, 16, 1};
    case at::kInt: return hal_dtype_t{HAL_DTYPE_INT, 32, 1};
    case at::kLong: return hal_dtype_t{HAL_DTYPE_INT, 64, 1};
    case at::kHalf: return hal_dtype_t{HAL_DTYPE_FLOAT, 16, 1};
    case at::kFloat: return hal_dtype_t{HAL_DTYPE_FLOAT, 32, 1};
    case at::kDouble: return hal_dtype_t{HAL_DTYPE_FLOAT, 64, 1};
    case at::kBFloat16: return hal_dtype_t{HAL_DTYPE_BFLOAT, 16, 1};
    default: return std::nullopt;
  }
}

KernelArgs& KernelArgs::add(c10::SmallVector<hal_tensor_t, 4>& list, const at::Tensor& t) {
  const auto dtype = hal_dtype_of(t.scalar_type());
  if (!dtype.has_value() || t.dim() > HAL_MAX_DIMS) {
    representable_ = false;
    list.push_back(hal_tensor_t{});
    return *this;
  }
  list.push_back(describe(t, *dtype));
  return *this;
}

KernelArgs& KernelArgs::add_raw(c10::SmallVector<hal_tensor_t, 4>& list, const void* data, at::ScalarType type,
                                at::IntArrayRef sizes, at::IntArrayRef strides) {
  TORCH_INTERNAL_ASSERT(sizes.size() == strides.size());
  const auto dtype = hal_dtype_of(type);
  if (!dtype.has_value() || sizes.size() > HAL_MAX_DIMS) {
    representable_ = false;
    list.push_back(hal_tensor_t{});
    return *this;
  }
  hal_tensor_t h{};
  h.data = const_cast<void*>(data);
  h.ndim = static_cast<int32_t>(sizes.size());
  h.dtype = *dtype;
  OwnedGeometry g{};
  std::copy(sizes.begin(), sizes.end(), g.sizes);
  std::copy(strides.begin(), strides.end(), g.strides);
  owned_.push_back(g);
  owned_users_.emplace_back(&list == &outputs_, list.size());
  list.push_back(h);
  return *this;
}

KernelArgs& KernelArgs::input_as(const at::Tensor& t, at::IntArrayRef sizes, at::IntArrayRef strides) {
  return add_raw(inputs_, t.numel() == 0 ? nullptr : t.const_data_ptr(), t.scalar_type(), sizes, strides);
}
KernelArgs& KernelArgs::output_as(const at::Tensor& t, at::IntArrayRef sizes, at::IntArrayRef strides) {
  return add_raw(outputs_, t.numel() == 0 ? nullptr : t.const_data_ptr(), t.scalar_type(), sizes, strides);
}
KernelArgs& KernelArgs::input_flat(const at::Tensor& t) {
  const int64_t numel = t.numel(), unit = 1;
  return input_as(t, at::IntArrayRef(&numel, 1), at::IntArrayRef(&unit, 1));
}
KernelArgs& KernelArgs::output_flat(const at::Tensor& t) {
  const int64_t numel = t.numel(), unit = 1;
  return output_as(t, at::IntArrayRef(&numel, 1), at::IntArrayRef(&unit, 1));
}
KernelArgs& KernelArgs::raw_input(const void* data, at::ScalarType type, at::IntArrayRef sizes,
                                  at::IntArrayRef strides) {
  return add_raw(inputs_, data, type, sizes, strides);
}
KernelArgs& KernelArgs::raw_output(void* data, at::ScalarType type, at::IntArrayRef sizes, at::IntArrayRef strides) {
  return add_raw(outputs_, data, type, sizes, strides);
}

KernelArgs& KernelArgs::scalar_input(const c10::Scalar& value, at::ScalarType as) {
  if (value.isComplex() || !hal_dtype_of(as).has_value()) {
    representable_ = false;
    inputs_.push_back(hal_tensor_t{});
    return *this;
  }
  operand_scalars_.push_back(scalar_value(value));
  return scalar_input_slot(as);
}

KernelArgs& KernelArgs::scalar_input_slot(at::ScalarType as) {
  const auto dtype = hal_dtype_of(as);
  if (!dtype.has_value()) {
    representable_ = false;
    inputs_.push_back(hal_tensor_t{});
    return *this;
  }
  hal_tensor_t h{};
  h.data = nullptr;
  h.ndim = 0;
  h.dtype = *dtype;
  inputs_.push_back(h);
  return *this;
}

// An optional tensor not passed, or an output not wanted (adapter.h: data NULL, ndim < 0).
static hal_tensor_t absent_tensor() {
  hal_tensor_t h{};
  h.ndim = -1;
  return h;
}

KernelArgs& KernelArgs::absent_input() {
  inputs_.push_back(absent_tensor());
  return *this;
}
KernelArgs& KernelArgs::absent_output() {
  outputs_.push_back(absent_tensor());
  return *this;
}

KernelArgs& KernelArgs::scalar(double v) { return scalar(c10::Scalar(v)); }
KernelArgs& KernelArgs::scalar(int64_t v) { return scalar(c10::Scalar(v)); }
KernelArgs& KernelArgs::scalar(bool v) { return scalar(c10::Scalar(v)); }
KernelArgs& KernelArgs::scalar(const c10::Scalar& v) {
  op_scalars_.push_back(scalar_value(v));
  return *this;
}

void KernelArgs::fix_geometry_pointers() {
  for (size_t k = 0; k < owned_.size(); ++k) {
    auto [is_output, position] = owned_users_[k];
    hal_tensor_t& h = is_output ? outputs_[position] : inputs_[position];
    h.shape = owned_[k].sizes;
    h.strides = owned_[k].strides;
  }
}

bool launch(c10::DeviceIndex device, hal_op_t op, KernelArgs& args) {
  if (!args.representable_ || !has_native_kernels(device)) return false;
  const hal::Device& dev = torch_hal::device(device);
  const hal_adapter_t& table = dev.table();
  args.fix_geometry_pointers();
  for (auto* list : {&args.inputs_, &args.outputs_}) {
    for (hal_tensor_t& h : *list) h.device.device_id = dev.local_index;
  }
  // Scalar operands first, then the op's own scalars (adapter.h).
  c10::SmallVector<hal_scalar_t, 8> scalars(args.operand_scalars_.begin(), args.operand_scalars_.end());
  scalars.append(args.op_scalars_.begin(), args.op_scalars_.end());
  const hal_stream_t stream = call_core([&] { return hal::native_stream(device, hal::current_stream(device)); });
  hal::DeviceSpan span = profiler::kernel_span(device, [op] { return hal::op_name(op); });
  const hal_status_t status = table.launch_op(dev.local_index, op, stream, args.inputs_.data(),
                                              static_cast<int32_t>(args.inputs_.size()), args.outputs_.data(),
                                              static_cast<int32_t>(args.outputs_.size()), scalars.data(),
                                              static_cast<int32_t>(scalars.size()));
  if (status == HAL_STATUS_NOT_SUPPORTED) return false;  // nothing ran: the span is dropped
  if (status != HAL_STATUS_SUCCESS) {
    call_core([&] { hal::throw_on_failure(table, status, ("native op " + hal::op_name(op)).c_str()); });
  }
  span.end();
  return true;
}

}  // namespace torch_hal::native
