#include "ops/foreach_launch.h"

#include <ATen/ops/empty_like.h>

#include <algorithm>
#include <cstdint>

#include "dispatch/native_launch.h"
#include "dispatch/tensor_bridge.h"

namespace torch_hal::native {
namespace {

// Real numbers only: a bool or complex scalar changes the result's dtype or raises, which the per-tensor
// ops of the slow path decide.
bool real_scalars(const GroupScalar& s, size_t groups) {
  if (!s.covers(groups)) return false;
  for (size_t g = 0; g < groups; ++g) {
    if (s[g].isComplex() || s[g].isBoolean()) return false;
  }
  return true;
}

// A strided tensor on `device` of `dtype`, its values as stored (no lazy negation).
bool plain(const at::Tensor& t, const at::Device& device, at::ScalarType dtype) {
  return t.defined() && t.device() == device && t.scalar_type() == dtype && t.layout() == at::kStrided &&
         !t.is_neg();
}

// ref's sizes and its strides wherever a size is not 1 (a size-1 dimension's stride addresses nothing):
// then t lays its elements out in memory exactly as ref does.
bool same_layout(const at::Tensor& t, const at::Tensor& ref) {
  const at::IntArrayRef sizes = ref.sizes();
  if (t.sizes() != sizes) return false;
  const at::IntArrayRef a = t.strides(), b = ref.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1 && a[d] != b[d]) return false;
  }
  return true;
}

// The bytes a dense tensor covers, from element 0 (its lowest address: strides are never negative).
struct Span {
  uintptr_t begin;
  uintptr_t end;
  size_t group;
};
Span span_of(const at::Tensor& t, size_t group) {
  const auto begin = reinterpret_cast<uintptr_t>(t.const_data_ptr());
  return {begin, begin + static_cast<uintptr_t>(t.numel()) * t.element_size(), group};
}

// In place, the launch runs every group at once where the slow path runs them one after the other, so a
// tensor written by one group must not be read or written by another: every written tensor is disjoint
// from the others, and from every input except its own group's very same tensor (x.mul_(x)).
bool writes_disjoint(const ForeachCall& call) {
  c10::SmallVector<Span, 32> written;
  for (size_t g = 0; g < call.self.size(); ++g) {
    if (call.self[g].numel() > 0) written.push_back(span_of(call.self[g], g));
  }
  std::sort(written.begin(), written.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < written.size(); ++i) {
    if (written[i].begin < written[i - 1].end) return false;
  }
  for (const ForeachOperand& operand : call.operands) {
    // A broadcast element must not be written by any group (the slow path would change it midway).
    if (operand.element != nullptr && operand.element->numel() > 0) {
      const Span in = span_of(*operand.element, 0);
      for (const Span& w : written) {
        if (w.begin < in.end && in.begin < w.end) return false;
      }
    }
    for (size_t g = 0; g < operand.tensors.size(); ++g) {
      const at::Tensor& t = operand.tensors[g];
      if (t.numel() == 0) continue;
      const Span in = span_of(t, g);
      // Sorted and disjoint: only the last written span starting before `in` ends can overlap it.
      const auto after = std::lower_bound(written.begin(), written.end(), in.end,
                                          [](const Span& s, uintptr_t end) { return s.begin < end; });
      if (after == written.begin()) continue;
      const Span& w = *(after - 1);
      if (w.end <= in.begin) continue;
      if (w.group != g || w.begin != in.begin) return false;  // same group, sizes and layout: the same tensor
    }
  }
  return true;
}

// The hal device the fast route launches on, or nullopt where it does not apply.
std::optional<c10::DeviceIndex> fast_route(const ForeachCall& call, bool in_place) {
  const size_t groups = call.self.size();
  if (groups == 0) return std::nullopt;
  const at::Tensor& first = call.self[0];
  if (!first.defined() || !is_hal(first)) return std::nullopt;
  const at::Device device = first.device();
  if (!has_native_kernels(device.index())) return std::nullopt;
  const at::ScalarType dtype = first.scalar_type();
  if (!floating_in_abi(dtype)) return std::nullopt;
  if (call.own.has_value() && !real_scalars(*call.own, groups)) return std::nullopt;
  for (const ForeachOperand& operand : call.operands) {
    bool usable;
    if (operand.element != nullptr) {
      // A 0-dim floating tensor on the device: it does not change the result's dtype (as ATen's promotion of
      // a 0-dim operand of the same category), and the kernel reads it in its own dtype.
      const at::Tensor& e = *operand.element;
      usable = e.defined() && e.dim() == 0 && e.device() == device && floating_in_abi(e.scalar_type()) &&
               e.layout() == at::kStrided && !e.is_neg();
    } else {
      usable = operand.scalar.has_value() ? real_scalars(*operand.scalar, groups) : operand.tensors.size() == groups;
    }
    if (!usable) return std::nullopt;
  }
  for (size_t g = 0; g < groups; ++g) {
    const at::Tensor& ref = call.self[g];
    if (!plain(ref, device, dtype) || !ref.is_non_overlapping_and_dense()) return std::nullopt;
    for (const ForeachOperand& operand : call.operands) {
      if (operand.scalar.has_value() || operand.element != nullptr) continue;
      const at::Tensor& t = operand.tensors[g];
      if (!plain(t, device, dtype) || !same_layout(t, ref)) return std::nullopt;
    }
  }
  if (in_place && !writes_disjoint(call)) return std::nullopt;
  return device.index();
}

// A tensor of a group as the adapter reads it: its own geometry when the group is contiguous (shapes are
// not copied), else the flat array that the group's one dense layout is in memory.
void describe(KernelArgs& args, const at::Tensor& t, bool flat, bool output) {
  if (!flat) {
    if (output) args.output(t);
    else args.input(t);
    return;
  }
  if (output) args.output_flat(t);
  else args.input_flat(t);
}

// One HAL_OP_FOREACH launch writing outputs[g]; scalars as adapter.h orders them: the inner op, then per
// group its scalar operands' values and its own scalar.
bool launch_foreach(c10::DeviceIndex device, const ForeachCall& call, at::TensorList outputs) {
  const at::ScalarType dtype = call.self[0].scalar_type();
  KernelArgs args;
  args.scalar(static_cast<int64_t>(call.op));
  for (size_t g = 0; g < call.self.size(); ++g) {
    const at::Tensor& ref = call.self[g];
    const bool flat = ref.dim() > HAL_MAX_DIMS || !ref.is_contiguous();
    const int64_t flat_numel = ref.numel();
    for (const ForeachOperand& operand : call.operands) {
      if (operand.scalar.has_value()) {
        args.scalar_input_slot(dtype);
        args.scalar((*operand.scalar)[g]);
      } else if (operand.element != nullptr) {
        // The element broadcast over the group's geometry: every stride 0 (adapter.h).
        const at::IntArrayRef sizes = flat ? at::IntArrayRef(flat_numel) : ref.sizes();
        const std::vector<int64_t> zeros(sizes.size(), 0);
        args.input_as(*operand.element, sizes, zeros);
      } else {
        describe(args, operand.tensors[g], flat, false);
      }
    }
    if (call.own.has_value()) args.scalar((*call.own)[g]);
    describe(args, outputs[g], flat, true);
  }
  return launch(device, HAL_OP_FOREACH, args);
}

}  // namespace

bool foreach_in_place(const ForeachCall& call) {
  const auto device = fast_route(call, /*in_place=*/true);
  if (!device.has_value()) return false;
  if (!launch_foreach(*device, call, call.self)) return false;
  // Once written, as CUDA's foreach kernels do (an adapter that refuses the launch leaves the bumps to the
  // slow path's per-tensor ops, so every tensor's version grows by exactly one either way).
  for (const at::Tensor& t : call.self) t.unsafeGetTensorImpl()->bump_version();
  return true;
}

std::optional<std::vector<at::Tensor>> foreach_functional(const ForeachCall& call) {
  const auto device = fast_route(call, /*in_place=*/false);
  if (!device.has_value()) return std::nullopt;
  std::vector<at::Tensor> outputs;
  outputs.reserve(call.self.size());
  for (const at::Tensor& t : call.self) outputs.push_back(at::empty_like(t));  // dense: self's strides kept
  if (!launch_foreach(*device, call, outputs)) return std::nullopt;
  return outputs;
}

}  // namespace torch_hal::native
