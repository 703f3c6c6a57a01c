// read_convolution(): an adapter launch of the convolution family (adapter_ops.h states the shapes and scalars)
// as the library kernel's problem. Plain host C++: compiled into the NVIDIA and AMD adapters with the library and
// into the SPIR-V planners.
#include "kernels/convolution_geometry.h"

#include <cstdint>
#include <limits>

#include "kernels/tensor_operands.h"

namespace hal_gpu {
namespace {

constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();

// Sizes and strides of t into the kernel's [N or K, C, 3 spatial] form, the missing leading spatial dims of
// size 1 (stride 0). False when an element's offset could pass 2^31 or a stride is negative.
bool read_dims(const hal_tensor_t& t, int32_t* sizes, int32_t* strides) {
  const int spatial = t.ndim - 2;
  const int missing = kConvSpatial - spatial;
  int64_t last = 0;  // the largest offset, in elements
  for (int d = 0; d < 2 + kConvSpatial; ++d) {
    const int source = d < 2 ? d : d - missing;
    const bool present = d < 2 || d - 2 >= missing;
    const int64_t size = present ? t.shape[source] : 1;
    const int64_t stride = present ? t.strides[source] : 0;
    if (size < 0 || size > kMaxIndex || stride < 0 || stride > kMaxIndex) return false;
    if (size > 0) last += (size - 1) * stride;
    sizes[d] = static_cast<int32_t>(size);
    strides[d] = static_cast<int32_t>(stride);
  }
  return last <= kMaxIndex;
}

}  // namespace

bool read_convolution(hal_op_t op, const hal_tensor_t* inputs, int32_t num_inputs, const hal_tensor_t* outputs,
                      int32_t num_outputs, const hal_scalar_t* scalars, int32_t num_scalars, ConvLaunch* launch,
                      const char** why) {
  *why = "convolution: unexpected operands";
  if (num_inputs != 2 || num_outputs != 1 || inputs == nullptr || outputs == nullptr) return false;
  ConvLaunch& l = *launch;
  switch (op) {
    case HAL_OP_CONVOLUTION:
      l = {ConvDirection::Forward, &inputs[0], &inputs[1], &outputs[0]};
      break;
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT:
      l = {ConvDirection::BackwardInput, &outputs[0], &inputs[1], &inputs[0]};
      break;
    case HAL_OP_CONVOLUTION_BACKWARD_WEIGHT:
      l = {ConvDirection::BackwardWeight, &inputs[0], &outputs[0], &inputs[1]};
      break;
    default:
      *why = "convolution: not a convolution op";
      return false;
  }
  const int nd = l.x->ndim;
  if (nd < 3 || nd > 5 || l.w->ndim != nd || l.y->ndim != nd) {
    *why = "convolution: x, w and y must have 3 to 5 dims, all the same";
    return false;
  }
  const DType dtype = dtype_of(l.x->dtype);
  if (!is_floating(dtype) || dtype_of(l.w->dtype) != dtype || dtype_of(l.y->dtype) != dtype) {
    *why = "convolution: x, w and y must share one of float32, float16, bfloat16, float64";
    return false;
  }
  const int spatial = nd - 2;
  if (scalars == nullptr || num_scalars != 2 + 3 * spatial) {
    *why = "convolution: expected groups, allow_tf32, then stride, padding, dilation per spatial dim";
    return false;
  }
  ConvGeometry& g = l.geometry;
  int32_t xs[2 + kConvSpatial], ws[2 + kConvSpatial], ys[2 + kConvSpatial];
  if (!read_dims(*l.x, xs, g.x_stride) || !read_dims(*l.w, ws, g.w_stride) || !read_dims(*l.y, ys, g.y_stride)) {
    *why = "convolution: a tensor too large for the kernel's 32-bit index math, or with negative strides";
    return false;
  }
  const int64_t groups = scalars[0].value.i;
  if (groups < 1 || groups > kMaxIndex) {
    *why = "convolution: groups must be at least 1";
    return false;
  }
  g.batch = xs[0];
  g.channels = xs[1];
  g.out_channels = ws[0];
  g.groups = static_cast<int32_t>(groups);
  for (int d = 0; d < kConvSpatial; ++d) {
    const int source = d - (kConvSpatial - spatial);  // the scalars' index of this dim; < 0 for a missing one
    const int64_t stride = source < 0 ? 1 : scalars[2 + 3 * source].value.i;
    const int64_t pad = source < 0 ? 0 : scalars[3 + 3 * source].value.i;
    const int64_t dilation = source < 0 ? 1 : scalars[4 + 3 * source].value.i;
    if (stride < 1 || pad < 0 || dilation < 1 || stride > kMaxIndex || pad > kMaxIndex || dilation > kMaxIndex) {
      *why = "convolution: stride and dilation must be at least 1, padding at least 0";
      return false;
    }
    g.stride[d] = static_cast<int32_t>(stride);
    g.pad[d] = static_cast<int32_t>(pad);
    g.dilation[d] = static_cast<int32_t>(dilation);
    g.in[d] = xs[2 + d];
    g.out[d] = ys[2 + d];
    g.filter[d] = ws[2 + d];
    const int64_t span = int64_t{g.in[d]} + 2 * pad - dilation * (int64_t{g.filter[d]} - 1) - 1;
    if (g.filter[d] < 1 || span < 0 || span / stride + 1 != g.out[d]) {
      *why = "convolution: the output's spatial size disagrees with the input, filter, stride, padding and dilation";
      return false;
    }
  }
  if (ys[0] != g.batch || ys[1] != g.out_channels || g.out_channels % g.groups != 0 ||
      int64_t{ws[1]} * g.groups != g.channels) {
    *why = "convolution: x [N, C, ...], w [K, C / groups, ...] and y [N, K, ...] disagree";
    return false;
  }
  int64_t in_points = 1, out_points = 1, kernel_points = 1;
  for (int d = 0; d < kConvSpatial; ++d) {
    in_points *= g.in[d];
    out_points *= g.out[d];
    kernel_points *= g.filter[d];
  }
  const int64_t cg = g.channels / g.groups, kg = g.out_channels / g.groups;
  int64_t m = 0, n = 0, k = 0;
  switch (l.direction) {
    case ConvDirection::Forward: m = g.batch * out_points; n = kg; k = cg * kernel_points; break;
    case ConvDirection::BackwardInput: m = g.batch * in_points; n = cg; k = kg * kernel_points; break;
    case ConvDirection::BackwardWeight: m = kg; n = cg * kernel_points; k = g.batch * out_points; break;
  }
  if (m > kMaxIndex || n > kMaxIndex || k > kMaxIndex) {
    *why = "convolution: a problem too large for the kernel's 32-bit index math";
    return false;
  }
  g.gemm_m = static_cast<int32_t>(m);
  g.gemm_n = static_cast<int32_t>(n);
  g.gemm_k = static_cast<int32_t>(k);
  l.empty = m == 0 || n == 0;
  *why = nullptr;
  return true;
}

void convolution_grid(const ConvGeometry& g, uint32_t* blocks) {
  blocks[0] = static_cast<uint32_t>((int64_t{g.gemm_m} + kConvTileM - 1) / kConvTileM);
  blocks[1] = static_cast<uint32_t>((int64_t{g.gemm_n} + kConvTileN - 1) / kConvTileN);
  blocks[2] = static_cast<uint32_t>(g.groups);
}

}  // namespace hal_gpu
