#include "convolution_problem.h"

#include <limits>
#include <optional>

#include "adapter_state.h"
#include "cuda_status.h"

namespace hal_nvidia {
namespace {

int alignment_of(const void* address) {
  const auto bits = reinterpret_cast<uintptr_t>(address);
  int alignment = 16;
  while (alignment > 1 && bits % alignment != 0) alignment /= 2;
  return alignment;
}

std::optional<int> cudnn_type(hal_dtype_t t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 32) return kCudnnFloat;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 16) return kCudnnHalf;
  if (t.code == HAL_DTYPE_BFLOAT && t.bits == 16) return kCudnnBfloat16;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 64) return kCudnnDouble;
  return std::nullopt;
}

bool fits_int(int64_t v) { return v >= 0 && v <= std::numeric_limits<int32_t>::max(); }

// t's sizes and strides into cuDNN's int arrays, with the inserted dim of a 1-D convolution.
bool geometry(const hal_tensor_t& t, int ndim, int* sizes, int* strides) {
  const bool lifted = t.ndim == 3;
  int64_t span = 1;  // elements the tensor covers, as a check against int32 offsets
  for (int i = 0, j = 0; i < ndim; ++i) {
    int64_t size, stride;
    if (lifted && i == 2) {
      size = 1;
      stride = t.shape[2] * t.strides[2];
    } else {
      size = t.shape[j];
      stride = t.strides[j];
      ++j;
    }
    if (!fits_int(size) || !fits_int(stride) || size == 0) return false;
    sizes[i] = static_cast<int>(size);
    strides[i] = static_cast<int>(stride);
    span += (size - 1) * stride;
  }
  return fits_int(span);
}

// The dims from fastest to slowest of the NCHW layout (nhwc false: the spatial dims from last to first, then C,
// then N) or the NHWC layout (C first, then the spatial dims, then N); ndim of them.
void layout_order(int ndim, bool nhwc, int* order) {
  int n = 0;
  if (nhwc) order[n++] = 1;
  for (int d = ndim - 1; d > 1; --d) order[n++] = d;
  if (!nhwc) order[n++] = 1;
  order[n] = 0;
}

// Whether sizes/strides are dense in the NCHW or NHWC layout; dims of size 1 may have any stride.
bool dense_in(const int* sizes, const int* strides, int ndim, bool nhwc) {
  int order[kMaxConvDims];
  layout_order(ndim, nhwc, order);
  int64_t expected = 1;
  for (int k = 0; k < ndim; ++k) {
    const int d = order[k];
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// Gives dims of size 1 the stride they would have in a dense tensor of the layout (as torch.cuda's
// fixSizeOneDimStride): cuDNN picks its fast kernels for packed layouts, and a size-1 dim's stride is
// arbitrary in PyTorch.
void fix_size_one_strides(const int* sizes, int* strides, int ndim, bool nhwc) {
  int order[kMaxConvDims];
  layout_order(ndim, nhwc, order);
  int64_t z = 1;
  for (int k = 0; k < ndim; ++k) {
    const int d = order[k];
    if (sizes[d] == 1) {
      if (fits_int(z)) strides[d] = static_cast<int>(z);
    } else {
      z = int64_t{sizes[d]} * strides[d];
    }
  }
}

// Reads the launch into a ConvProblem; false (NOT_SUPPORTED) for what the ABI or cuDNN's int32 API excludes.
bool parse(const hal_gpu::OpCall& call, ConvProblem* p, const hal_tensor_t** x, const hal_tensor_t** w,
           const hal_tensor_t** y) {
  if (call.num_inputs != 2 || call.num_outputs != 1) return false;
  switch (call.op) {
    case HAL_OP_CONVOLUTION: *x = &call.inputs[0]; *w = &call.inputs[1]; *y = &call.outputs[0]; break;
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT: *y = &call.inputs[0]; *w = &call.inputs[1]; *x = &call.outputs[0]; break;
    case HAL_OP_CONVOLUTION_BACKWARD_WEIGHT: *x = &call.inputs[0]; *y = &call.inputs[1]; *w = &call.outputs[0]; break;
    default: return false;
  }
  const int nd = (*x)->ndim;
  if (nd < 3 || nd > 5 || (*w)->ndim != nd || (*y)->ndim != nd) return false;
  if (!(*x)->data || !(*w)->data || !(*y)->data) return false;
  const auto type = cudnn_type((*x)->dtype);
  for (const hal_tensor_t* t : {*w, *y}) {
    const auto other = cudnn_type(t->dtype);
    if (!type || !other || *other != *type) return false;
  }
  const int spatial = nd - 2;
  if (call.num_scalars != 2 + 3 * spatial) return false;
  p->dtype = *type;
  p->ndim = nd == 3 ? 4 : nd;
  p->groups = static_cast<int>(call.scalars[0].value.i);
  p->tf32 = call.scalars[1].value.b != 0;
  if (call.scalars[0].value.i < 1 || !fits_int(call.scalars[0].value.i)) return false;
  const int lift = nd == 3 ? 1 : 0;
  if (lift) {
    p->stride[0] = 1;
    p->pad[0] = 0;
    p->dilation[0] = 1;
  }
  for (int d = 0; d < spatial; ++d) {
    const int64_t s = call.scalars[2 + 3 * d].value.i, pad = call.scalars[3 + 3 * d].value.i,
                  dil = call.scalars[4 + 3 * d].value.i;
    if (s < 1 || dil < 1 || !fits_int(s) || !fits_int(pad) || !fits_int(dil)) return false;
    p->stride[d + lift] = static_cast<int>(s);
    p->pad[d + lift] = static_cast<int>(pad);
    p->dilation[d + lift] = static_cast<int>(dil);
  }
  if (!geometry(**x, p->ndim, p->x, p->x_strides) || !geometry(**y, p->ndim, p->y, p->y_strides) ||
      !geometry(**w, p->ndim, p->w, p->w_strides)) {
    return false;
  }
  // The filter is packed in one of cuDNN's two formats; where both describe it (a 1x1 kernel, one input
  // channel), the input's layout decides, so that cuDNN sees one layout throughout.
  const bool w_first = dense_in(p->w, p->w_strides, p->ndim, false);
  const bool w_last = dense_in(p->w, p->w_strides, p->ndim, true);
  if (!w_first && !w_last) return false;
  const bool x_last = dense_in(p->x, p->x_strides, p->ndim, true) && !dense_in(p->x, p->x_strides, p->ndim, false);
  const bool nhwc = w_last && (!w_first || x_last);
  p->w_format = nhwc ? kCudnnNhwc : kCudnnNchw;
  fix_size_one_strides(p->x, p->x_strides, p->ndim, nhwc);
  fix_size_one_strides(p->y, p->y_strides, p->ndim, nhwc);
  fix_size_one_strides(p->w, p->w_strides, p->ndim, nhwc);
  // The shapes agree with the ABI's formula (a mismatch would make cuDNN read or write out of bounds).
  if (p->x[0] != p->y[0] || p->w[0] != p->y[1] || static_cast<int64_t>(p->w[1]) * p->groups != p->x[1] ||
      p->w[0] % p->groups != 0) {
    return false;
  }
  for (int d = 0; d < p->ndim - 2; ++d) {
    const int64_t q = (int64_t{p->x[d + 2]} + 2 * int64_t{p->pad[d]} - int64_t{p->dilation[d]} * (p->w[d + 2] - 1) - 1);
    if (q < 0 || q / p->stride[d] + 1 != p->y[d + 2]) return false;
  }
  const hal_tensor_t* tensors[3] = {*x, *w, *y};
  for (int i = 0; i < 3; ++i) p->alignment[i] = alignment_of(tensor_address(*tensors[i]));
  return true;
}

}  // namespace

bool parse_convolution(const hal_gpu::OpCall& call, ConvProblem* p, ConvTensors* t) {
  return parse(call, p, &t->x, &t->w, &t->y);
}

std::vector<int64_t> convolution_key(hal_op_t op, const ConvProblem& p) {
  std::vector<int64_t> key = {op, p.ndim, p.dtype, p.tf32, p.groups, p.w_format};
  for (int i = 0; i < p.ndim; ++i) {
    key.insert(key.end(), {p.x[i], p.x_strides[i], p.y[i], p.y_strides[i], p.w[i], p.w_strides[i]});
  }
  for (int i = 0; i < p.ndim - 2; ++i) key.insert(key.end(), {p.stride[i], p.pad[i], p.dilation[i]});
  key.insert(key.end(), {p.alignment[0], p.alignment[1], p.alignment[2]});
  return key;
}

hal_status_t cudnn_status(const CudnnApi& api, const char* what, int status) {
  if (status == kCudnnSuccess) return HAL_STATUS_SUCCESS;
  const bool declined = (status >= kCudnnBadParam && status < kCudnnBadParam + 1000) ||
                        (status >= kCudnnNotSupported && status < kCudnnNotSupported + 1000);
  return fail(declined ? HAL_STATUS_NOT_SUPPORTED : HAL_STATUS_DEVICE_ERROR, cudnn_error(api, what, status));
}

}  // namespace hal_nvidia
