// read_pooling(): an adapter launch of the pooling family (adapter_ops.h states the shapes and scalars) as the
// library kernels' problem. Plain host C++: compiled into the NVIDIA and AMD adapters with the library and into
// the SPIR-V planners.
#include "kernels/pooling_geometry.h"

#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace pooling {

bool read_pooling(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                  int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, Launch* launch,
                  const char** why) {
  Launch& l = *launch;
  l = Launch{};
  switch (op) {
    case HAL_OP_MAX_POOL2D_BACKWARD: l.backward = true; [[fallthrough]];
    case HAL_OP_MAX_POOL2D: l.kind = Kind::Max; break;
    case HAL_OP_AVG_POOL2D_BACKWARD: l.backward = true; [[fallthrough]];
    case HAL_OP_AVG_POOL2D: l.kind = Kind::Avg; break;
    case HAL_OP_ADAPTIVE_AVG_POOL2D_BACKWARD: l.backward = true; [[fallthrough]];
    case HAL_OP_ADAPTIVE_AVG_POOL2D: l.kind = Kind::AdaptiveAvg; break;
    case HAL_OP_ADAPTIVE_MAX_POOL2D_BACKWARD: l.backward = true; [[fallthrough]];
    case HAL_OP_ADAPTIVE_MAX_POOL2D: l.kind = Kind::AdaptiveMax; break;
    default: *why = "pooling: unknown op"; return false;
  }
  l.has_indices = l.kind == Kind::Max || l.kind == Kind::AdaptiveMax;
  const bool windowed = l.kind == Kind::Max || l.kind == Kind::Avg;  // 8 scalars: the window
  const int32_t want_inputs = l.backward && l.has_indices ? 2 : 1, want_outputs = !l.backward && l.has_indices ? 2 : 1;
  if (inputs == nullptr || outputs == nullptr || num_inputs != want_inputs || num_outputs != want_outputs ||
      (windowed && (scalars == nullptr || num_scalars < 8))) {
    *why = "pooling: unexpected operands";
    return false;
  }
  const hal_tensor_t& big = l.backward ? outputs[0] : inputs[0];    // [N, C, H, W]
  const hal_tensor_t& small = l.backward ? inputs[0] : outputs[0];  // [N, C, OH, OW]
  spatial::Geometry& g = l.geometry;
  if (spatial::read_geometry(big, small, g) != nullptr) {
    *why = "pooling: x and y must be 4-D, [N, C, H, W] and [N, C, OH, OW]";
    return false;
  }
  if (g.N * g.C * g.H * g.W == 0 || g.OH * g.OW == 0) {
    // Nothing to read: an empty output (total stays 0), or (backward) a gradient of no outputs, which is zero.
    if (l.backward && g.N * g.C * g.H * g.W != 0) {
      *why = "pooling: empty output";
      return false;
    }
    return true;
  }
  // One dense layout for every tensor: contiguous, else channels-last (where both name the same addresses,
  // as for C == 1, either is right).
  const DType t = dtype_of(big.dtype);
  if (!is_floating(t)) {
    *why = "pooling: unsupported dtype";
    return false;
  }
  const hal_tensor_t* index_tensor = l.has_indices ? (l.backward ? &inputs[1] : &outputs[1]) : nullptr;
  auto all_have = [&](bool channels_last) {
    return spatial::has_layout(big, g.N, g.C, g.H, g.W, channels_last, t) &&
           spatial::has_layout(small, g.N, g.C, g.OH, g.OW, channels_last, t) &&
           (!index_tensor || spatial::has_layout(*index_tensor, g.N, g.C, g.OH, g.OW, channels_last, DType::I64));
  };
  if (all_have(false)) g.channels_last = false;
  else if (all_have(true)) g.channels_last = true;
  else {
    *why = "pooling: tensors must share one dense layout (contiguous or channels-last)";
    return false;
  }
  Window& k = l.window;
  if (windowed) {
    int64_t v[8];
    for (int i = 0; i < 8; ++i) v[i] = scalar_as_int(scalars[i]);
    k.kH = v[0];
    k.kW = v[1];
    k.sH = v[2];
    k.sW = v[3];
    k.pH = v[4];
    k.pW = v[5];
    if (l.kind == Kind::Max) {
      k.dH = v[6];
      k.dW = v[7];
    } else {
      k.dH = k.dW = 1;
      k.count_include_pad = v[6] != 0;
      k.divisor = v[7];
    }
    if (k.kH <= 0 || k.kW <= 0 || k.sH <= 0 || k.sW <= 0 || k.pH < 0 || k.pW < 0 || k.dH <= 0 || k.dW <= 0 ||
        k.divisor < 0) {
      *why = "pooling: invalid window";
      return false;
    }
  }
  l.total = g.threads(l.backward);
  return true;
}

}  // namespace pooling
}  // namespace hal_gpu
